"""Celery tasks (design §7): thin shells that turn the pipeline's errors into retries or a `failed` status."""

from __future__ import annotations

import logging
import os
import random
import socket
from collections.abc import Callable
from typing import Any

import psycopg
import redis
from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_shutdown

from ingest import InvalidDocument
from worker import pipeline
from worker.app import app
from worker.objects import MissingObject
from worker.providers import PermanentError, TransientError
from worker.runtime import Runtime, runtime

log = logging.getLogger(__name__)

MAX_RETRIES = 5
TRANSIENT = (
    TransientError,
    pipeline.LockBusy,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    redis.ConnectionError,
    redis.TimeoutError,
    ConnectionError,
    TimeoutError,
)
PERMANENT = (PermanentError, InvalidDocument, MissingObject)


def backoff(retries: int) -> float:
    """Exponential backoff with full jitter: 1, 2, 4, 8… seconds (capped at 60), times a random factor."""
    return min(60.0, 2.0**retries) * (0.5 + random.random() / 2)


@app.task(name="segcite.ping")
def ping() -> dict[str, object]:
    """Round-trip check for a worker: who answered."""
    return {"pong": True, "hostname": socket.gethostname(), "pid": os.getpid()}


def _deliveries(rt: Runtime, task: Task) -> int:
    """How many times this task id has started: a worker killed mid-task leaves it to be redelivered."""
    key = f"segcite:deliveries:{task.request.id}"
    count = int(rt.redis.incr(key))
    rt.redis.expire(key, 7 * 24 * 3600)
    return count - (task.request.retries or 0)


def _run(
    task: Task,
    kind: str,
    object_id: str,
    work: Callable[[Runtime, str], dict[str, Any]],
    fail: Callable[[Runtime, str, str], None],
) -> dict[str, Any]:
    rt = runtime()
    deliveries = _deliveries(rt, task)
    if deliveries > rt.settings.segcite_max_redeliveries:
        message = f"a worker stopped {deliveries - 1} times while processing this {kind}; giving up"
        fail(rt, object_id, message)
        return {"id": object_id, "failed": message}
    try:
        return work(rt, object_id)
    except PERMANENT as exc:
        log.warning("%s %s failed: %s", kind, object_id, exc)
        fail(rt, object_id, str(exc))
        return {"id": object_id, "failed": str(exc)}
    except SoftTimeLimitExceeded:
        message = f"processing took longer than {rt.settings.segcite_task_soft_time_limit} s"
        fail(rt, object_id, message)
        return {"id": object_id, "failed": message}
    except TRANSIENT as exc:
        if task.request.retries >= MAX_RETRIES:
            message = f"gave up after {MAX_RETRIES} retries: {type(exc).__name__}: {exc}"
            fail(rt, object_id, message)
            return {"id": object_id, "failed": message}
        log.info("%s %s: transient %s, retry %d", kind, object_id, type(exc).__name__, task.request.retries + 1)
        raise task.retry(exc=exc, countdown=backoff(task.request.retries), max_retries=MAX_RETRIES) from exc
    except Exception as exc:  # a bug: fail visibly with the type, keep serving
        log.exception("%s %s crashed", kind, object_id)
        fail(rt, object_id, f"internal error ({type(exc).__name__}): {exc}")
        return {"id": object_id, "failed": str(exc)}


def _fail_document(rt: Runtime, document_id: str, error: str) -> None:
    if rt.store.get_document(document_id) is not None:
        rt.store.update_document(document_id, status="failed", error=error[:2000])


def _fail_message(rt: Runtime, message_id: str, error: str) -> None:
    message = rt.store.get_message(message_id)
    if message is not None and message.status != "done":
        rt.store.update_message(message_id, status="failed", error=error[:2000])


@app.task(name="segcite.ingest_document", bind=True, max_retries=MAX_RETRIES)
def ingest_document(self: Task, document_id: str) -> dict[str, Any]:
    return _run(self, "document", document_id, pipeline.ingest_document, _fail_document)


@app.task(name="segcite.delete_document", bind=True, max_retries=MAX_RETRIES)
def delete_document(self: Task, document_id: str) -> dict[str, Any]:
    return _run(self, "document", document_id, pipeline.delete_document, _fail_document)


@app.task(name="segcite.answer_message", bind=True, max_retries=MAX_RETRIES)
def answer_message(self: Task, message_id: str) -> dict[str, Any]:
    return _run(self, "message", message_id, pipeline.answer_message, _fail_message)


@worker_process_shutdown.connect
def _close_runtime(**_: Any) -> None:
    if runtime.cache_info().currsize:
        runtime().close()
