"""Celery tasks (design §7): thin shells that turn the pipeline's errors into retries or a `failed` status."""

from __future__ import annotations

import logging
import os
import random
import socket
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Job:
    kind: str  # "document" or "message": the row the work is on
    work: Callable[[Runtime, str], dict[str, Any]]
    open_statuses: tuple[str, ...]  # row statuses a failure of this job may overwrite


# A failure only overwrites the status its own work left: a failure recorded late (after a database outage)
# must not undo a re-upload ingested meanwhile, or mark a re-uploaded document's delete as failed.
JOBS = {
    "ingest": Job("document", pipeline.ingest_document, ("uploaded", "parsed", "ingesting")),
    "delete": Job("document", pipeline.delete_document, ("deleted",)),
    "answer": Job("message", pipeline.answer_message, ("pending", "processing")),
}
RECORD_FAILURE_RETRIES = 2000  # about a day at the 60 s backoff cap; after that, reconcile on start takes over


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


def _run(task: Task, job_name: str, object_id: str) -> dict[str, Any]:
    rt = runtime()
    job = JOBS[job_name]
    retries = rt.settings.segcite_max_retries
    deliveries = _count_delivery(rt, task, job.kind, object_id)
    if deliveries > rt.settings.segcite_max_redeliveries:
        message = f"a worker stopped {deliveries - 1} times while processing this {job.kind}; giving up"
        return _finish(rt, job_name, object_id, message)
    try:
        result = job.work(rt, object_id)
    except PERMANENT as exc:
        log.warning("%s %s failed: %s", job.kind, object_id, exc)
        return _finish(rt, job_name, object_id, str(exc))
    except SoftTimeLimitExceeded:
        message = f"processing took longer than {rt.settings.segcite_task_soft_time_limit} s"
        return _finish(rt, job_name, object_id, message)
    except TRANSIENT as exc:
        if task.request.retries >= retries:
            return _finish(rt, job_name, object_id, f"gave up after {retries} retries: {type(exc).__name__}: {exc}")
        log.info("%s %s: transient %s, retry %d", job.kind, object_id, type(exc).__name__, task.request.retries + 1)
        raise task.retry(exc=exc, countdown=backoff(task.request.retries), max_retries=retries) from exc
    except Exception as exc:  # a bug: fail visibly with the type, keep serving
        log.exception("%s %s crashed", job.kind, object_id)
        return _finish(rt, job_name, object_id, f"internal error ({type(exc).__name__}): {exc}")
    rt.redis.delete(_deliveries_key(job.kind, object_id))
    return result


def _finish(rt: Runtime, job_name: str, object_id: str, error: str) -> dict[str, Any]:
    """The work is over and failed: record that on the row. If the database is down too (the usual reason a
    task runs out of retries), the work is not tried again; only writing its outcome is, by a small task that
    waits for the database. If the broker is down as well, this raises, and the row is left to reconcile."""
    try:
        mark_failed(rt, job_name, object_id, error)
    except TRANSIENT as exc:
        log.warning("cannot record that %s %s failed yet (%s); will retry", job_name, object_id, exc)
        record_failure.apply_async((job_name, object_id, error), countdown=backoff(0))
    rt.redis.delete(_deliveries_key(JOBS[job_name].kind, object_id))
    return {"id": object_id, "failed": error}


def mark_failed(rt: Runtime, job_name: str, object_id: str, error: str) -> bool:
    """Set the row to `failed` with `error`, unless it moved on since (see JOBS). True if it was set."""
    job = JOBS[job_name]
    get, update = (
        (rt.store.get_document, rt.store.update_document)
        if job.kind == "document"
        else (rt.store.get_message, rt.store.update_message)
    )
    row = get(object_id)
    if row is None or row.status not in job.open_statuses:
        return False
    update(object_id, status="failed", error=error[:2000])
    return True


@app.task(name="segcite.ingest_document", bind=True)
def ingest_document(self: Task, document_id: str) -> dict[str, Any]:
    return _run(self, "ingest", document_id)


@app.task(name="segcite.delete_document", bind=True)
def delete_document(self: Task, document_id: str) -> dict[str, Any]:
    return _run(self, "delete", document_id)


@app.task(name="segcite.answer_message", bind=True)
def answer_message(self: Task, message_id: str) -> dict[str, Any]:
    return _run(self, "answer", message_id)


@app.task(name="segcite.record_failure", bind=True)
def record_failure(self: Task, job_name: str, object_id: str, error: str) -> dict[str, Any]:
    """Write a failure the database was too far gone to take when the work gave up (see `_finish`)."""
    try:
        outcome = settle(runtime(), job_name, object_id, error)
    except TRANSIENT as exc:
        raise self.retry(exc=exc, countdown=backoff(self.request.retries), max_retries=RECORD_FAILURE_RETRIES) from exc
    return {"id": object_id, "error": error, "outcome": outcome}


def settle(rt: Runtime, job_name: str, object_id: str, error: str) -> str:
    """The late outcome of work that gave up while the database was down: an answer the model gave before
    the database went away is published after all (nothing lost); anything else is marked failed."""
    if job_name == "answer":
        payload = pipeline.cached_answer(rt, object_id)
        message = rt.store.get_message(object_id) if payload is not None else None
        if payload is not None and message is not None and message.status in JOBS["answer"].open_statuses:
            pipeline.publish_answer(rt, object_id, payload)
            return "published"
    return "failed" if mark_failed(rt, job_name, object_id, error) else "unchanged"


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
