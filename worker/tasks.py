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
from celery.signals import worker_process_shutdown, worker_ready

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


def _deliveries_key(kind: str, object_id: str) -> str:
    return f"segcite:deliveries:{kind}:{object_id}"


def _count_delivery(rt: Runtime, task: Task, kind: str, object_id: str) -> int:
    """How many times work on this object started without finishing: a worker killed mid-task has its task
    redelivered (acks_late), and a poison input would kill every worker that takes it. A planned retry does
    not count; the same attempt delivered again (its worker died) does, retry or not."""
    key = _deliveries_key(kind, object_id)
    week = 7 * 24 * 3600
    first_start = rt.redis.set(f"segcite:started:{task.request.id}:{task.request.retries}", 1, nx=True, ex=week)
    if first_start and task.request.retries:
        return int(rt.redis.get(key) or 1)
    count = int(rt.redis.incr(key))
    rt.redis.expire(key, week)
    return count


def _run(
    task: Task,
    kind: str,
    object_id: str,
    work: Callable[[Runtime, str], dict[str, Any]],
    fail: Callable[[Runtime, str, str], None],
) -> dict[str, Any]:
    rt = runtime()
    deliveries = _count_delivery(rt, task, kind, object_id)
    if deliveries > rt.settings.segcite_max_redeliveries:
        message = f"a worker stopped {deliveries - 1} times while processing this {kind}; giving up"
        return _finish(rt, kind, object_id, fail, message)
    try:
        result = work(rt, object_id)
    except PERMANENT as exc:
        log.warning("%s %s failed: %s", kind, object_id, exc)
        return _finish(rt, kind, object_id, fail, str(exc))
    except SoftTimeLimitExceeded:
        message = f"processing took longer than {rt.settings.segcite_task_soft_time_limit} s"
        return _finish(rt, kind, object_id, fail, message)
    except TRANSIENT as exc:
        if task.request.retries >= MAX_RETRIES:
            return _finish(
                rt, kind, object_id, fail, f"gave up after {MAX_RETRIES} retries: {type(exc).__name__}: {exc}"
            )
        log.info("%s %s: transient %s, retry %d", kind, object_id, type(exc).__name__, task.request.retries + 1)
        raise task.retry(exc=exc, countdown=backoff(task.request.retries), max_retries=MAX_RETRIES) from exc
    except Exception as exc:  # a bug: fail visibly with the type, keep serving
        log.exception("%s %s crashed", kind, object_id)
        return _finish(rt, kind, object_id, fail, f"internal error ({type(exc).__name__}): {exc}")
    rt.redis.delete(_deliveries_key(kind, object_id))
    return result


def _finish(rt: Runtime, kind: str, object_id: str, fail: Callable[[Runtime, str, str], None], error: str) -> dict:
    """Record the failure on the row (this raises if the database is down: the task is then retried or
    redelivered, and the row is never left without an outcome)."""
    fail(rt, object_id, error)
    rt.redis.delete(_deliveries_key(kind, object_id))
    return {"id": object_id, "failed": error}


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


@worker_ready.connect
def _reconcile_on_start(**_: Any) -> None:
    from worker.reconcile import reconcile
    from worker.settings import load_settings

    try:
        reconcile(load_settings())
    except Exception as exc:  # the database may be down at start; the worker still serves
        log.warning("could not look for unfinished work: %s", exc)
