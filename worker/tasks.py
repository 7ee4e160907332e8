"""Celery tasks (design §7). One base class, `RowTask`, declares what every task on a row shares: the retry
policy (Celery's autoretry with exponential backoff and jitter, for transient errors only), the redelivery
cap, and how a failure is recorded on the row. The tasks themselves only name their work.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any, ClassVar

from celery import Task
from celery.exceptions import Reject, SoftTimeLimitExceeded
from celery.signals import worker_process_shutdown, worker_ready

from worker import answers, documents
from worker.app import app
from worker.errors import PermanentError, describe_transient, transient_errors
from worker.inbox import InboxTaker
from worker.parsing import stage as parsing
from worker.parsing.shards import Shard
from worker.reconcile import PeriodicReconcile
from worker.runtime import Runtime, runtime
from worker.stores.rows import DOCUMENT_UNFINISHED, MESSAGE_UNFINISHED, DocumentStatus

log = logging.getLogger(__name__)
TRANSIENT_ERRORS = transient_errors()
RETRY_BACKOFF_MAX = 60  # seconds: backoff is 1, 2, 4… s (full jitter), capped here
# The retry policy of the tasks that are not RowTasks (a Document AI page range, recording a failure): RowTask's own.
RETRIED_WITH_BACKOFF: dict[str, Any] = {
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": True,
    "retry_backoff_max": RETRY_BACKOFF_MAX,
    "retry_jitter": True,
}
RECORD_FAILURE_RETRIES = 2000  # about a day at the backoff cap; after that, reconcile on start takes over
BROKER_WAIT = 120.0  # seconds a task waits for the broker to take its retry (see `RowTask.retry`)
BROKER_POLL = 2.0


class RowTask(Task):
    """A task that works on one row (a document or a message), given its id.

    Transient errors are retried by Celery's autoretry (`max_retries` is SEGCITE_MAX_RETRIES, set from the
    settings in `worker.app`). Once they run out, or on a permanent error, a soft time limit, or a redelivery
    cap, the work is over: `give_up` records `failed` with an `error` a user can act on, and the task returns
    `{"id", "failed"}`. Anything else is a bug: the task fails in Flower with its traceback, and `on_failure`
    still records `failed` on the row, so nothing is left `processing`."""

    autoretry_for = TRANSIENT_ERRORS
    retry_backoff = True
    retry_backoff_max = RETRY_BACKOFF_MAX
    retry_jitter = True
    job: ClassVar[str]  # "ingest", "delete" or "answer": what `record_failure` is told
    kind: ClassVar[str]  # "document" or "message": the row the work is on
    # The row statuses a failure of this work may overwrite: a failure recorded late (after a database outage)
    # must not undo a re-upload ingested meanwhile, or mark a re-uploaded document's delete as failed.
    open_statuses: ClassVar[tuple[str, ...]]

    def __call__(self, object_id: str) -> dict[str, Any]:
        rt = runtime()
        request = self.request
        deliveries = rt.deliveries.count(self.kind, object_id, request.id, request.retries)
        if deliveries > rt.settings.segcite_max_redeliveries:
            return self.give_up(
                rt, object_id, f"a worker stopped {deliveries - 1} times while processing this {self.kind}; giving up"
            )
        try:
            result = self.run(object_id)  # retried by autoretry_for; what escapes it is final
        except PermanentError as exc:
            log.warning("%s %s failed: %s", self.kind, object_id, exc)
            return self.give_up(rt, object_id, str(exc))
        except SoftTimeLimitExceeded:
            return self.give_up(
                rt, object_id, f"processing took longer than {rt.settings.segcite_task_soft_time_limit} s"
            )
        except TRANSIENT_ERRORS as exc:
            return self.give_up(rt, object_id, f"gave up after {self.max_retries} retries: {describe_transient(exc)}")
        rt.deliveries.forget(self.kind, object_id)
        return result

    def retry(self, *args: Any, **kwargs: Any) -> Any:
        """Celery's retry, waiting up to BROKER_WAIT for the broker to take the retry message. A transient
        error is often the broker itself going away (Redis is the broker and holds our keys); Celery answers a
        retry it cannot publish by rejecting the message without requeueing it, which loses the work."""
        deadline = time.monotonic() + BROKER_WAIT
        while True:
            try:
                return super().retry(*args, **kwargs)
            except Reject as rejected:  # raised only when publishing the retry failed
                if time.monotonic() > deadline:
                    raise
                log.warning("%s: cannot enqueue the retry yet (%s); waiting for the broker", self.name, rejected.reason)
                time.sleep(BROKER_POLL)

    def give_up(self, rt: Runtime, object_id: str, error: str) -> dict[str, Any]:
        """The work is over and failed: record that on the row. If the database is down too (the usual reason a
        task runs out of retries), the work is not tried again; only writing its outcome is, by `record_failure`,
        which waits for the database. If the broker is down as well, this raises, and reconcile takes over."""
        try:
            mark_failed(rt, self.job, object_id, error)
        except TRANSIENT_ERRORS as exc:
            log.warning("cannot record that %s %s failed yet (%s); will retry", self.kind, object_id, exc)
            record_failure.apply_async((self.job, object_id, error), countdown=1)
        rt.deliveries.forget(self.kind, object_id)
        if self.kind == "message":
            rt.answer_claims.release(object_id)  # the work is over: a retry the app asks for may take it
        return {"id": object_id, "failed": error}

    def on_failure(self, exc: BaseException, task_id: str, args: tuple, kwargs: dict, einfo: Any) -> None:
        object_id = args[0] if args else kwargs.get("object_id")
        log.error("%s %s crashed: %s", self.kind, object_id, einfo)
        try:
            self.give_up(runtime(), object_id, f"internal error ({type(exc).__name__}): {exc}")
        except Exception:  # the broker is down too: reconcile on the next start re-enqueues the row
            log.exception("could not record the crash of %s %s", self.kind, object_id)


@app.task(name="segcite.ping")
def ping() -> dict[str, object]:
    """Round-trip check for a worker: who answered."""
    return {"pong": True, "hostname": socket.gethostname(), "pid": os.getpid()}


@app.task(
    base=RowTask,
    name="segcite.ingest_document",
    job="ingest",
    kind="document",
    open_statuses=tuple(DOCUMENT_UNFINISHED),
)
def ingest_document(document_id: str) -> dict[str, Any]:
    return documents.ingest_document(runtime(), document_id)


@app.task(
    base=RowTask,
    name="segcite.delete_document",
    job="delete",
    kind="document",
    open_statuses=(DocumentStatus.DELETING, DocumentStatus.DELETED),
)
def delete_document(document_id: str) -> dict[str, Any]:
    return documents.delete_document(runtime(), document_id)


@app.task(
    base=RowTask, name="segcite.answer_message", job="answer", kind="message", open_statuses=tuple(MESSAGE_UNFINISHED)
)
def answer_message(message_id: str) -> dict[str, Any]:
    return answers.answer_message(runtime(), message_id, claimant=answer_message.request.id)


@app.task(
    name="segcite.parse_shard",
    bind=True,
    **RETRIED_WITH_BACKOFF,
)
def parse_shard(self: Task, document_id: str, index: int, start: int, stop: int, count: int) -> dict[str, Any]:
    """One page range of a document through Document AI (worker/parsing/stage.py). Transient errors (quota,
    unavailable, deadline) are retried with backoff; a permanent one, or retries run out, fails the document."""
    rt = runtime()
    work = f"{document_id}:{index}"
    deliveries = rt.deliveries.count("shard", work, self.request.id, self.request.retries)
    try:
        if deliveries > rt.settings.segcite_max_redeliveries:  # a page range that kills its worker every time
            raise PermanentError(f"a worker stopped {deliveries - 1} times while parsing pages {start + 1}-{stop}")
        result = parsing.parse_shard(rt, document_id, Shard(index, count, start, stop))
        rt.deliveries.forget("shard", work)
        return result
    except PermanentError as exc:
        error = str(exc)
    except TRANSIENT_ERRORS as exc:
        if self.request.retries < self.max_retries:
            raise  # autoretry_for retries it
        error = f"gave up after {self.max_retries} retries: {describe_transient(exc)}"
    rt.deliveries.forget("shard", work)
    log.warning("document %s: shard %d failed: %s", document_id, index, error)
    try:
        mark_failed(rt, "ingest", document_id, error)
    except TRANSIENT_ERRORS:
        record_failure.apply_async(("ingest", document_id, error), countdown=1)
    return {"document_id": document_id, "shard": index, "failed": error}


def row_task(job: str) -> RowTask:
    """The task of a job: `ingest`, `delete` or `answer`."""
    return {"ingest": ingest_document, "delete": delete_document, "answer": answer_message}[job]


def mark_failed(rt: Runtime, job: str, object_id: str, error: str) -> bool:
    """Set the row to `failed` with `error`, unless it moved on since (see `open_statuses`). True if it was set."""
    task = row_task(job)
    store = rt.store
    get, update = (
        (store.get_document, store.update_document)
        if task.kind == "document"
        else (store.get_message, store.update_message)
    )
    row = get(object_id)
    if row is None or row.status not in task.open_statuses:
        return False
    update(object_id, status="failed", error=error[:2000])
    return True


def settle(rt: Runtime, job: str, object_id: str, error: str) -> str:
    """The late outcome of work that gave up while the database was down: an answer the model gave before
    the database went away is published after all (nothing lost); anything else is marked failed."""
    if job == "answer":
        payload = rt.answers.get(object_id)
        message = rt.store.get_message(object_id) if payload is not None else None
        if payload is not None and message is not None and message.status in MESSAGE_UNFINISHED:
            answers.publish_answer(rt, object_id, payload)
            return "published"
    return "failed" if mark_failed(rt, job, object_id, error) else "unchanged"


@app.task(
    name="segcite.record_failure",
    bind=True,
    **RETRIED_WITH_BACKOFF,
    max_retries=RECORD_FAILURE_RETRIES,
)
def record_failure(self: Task, job: str, object_id: str, error: str) -> dict[str, Any]:
    """Write a failure the database was too far gone to take when the work gave up (see `RowTask.give_up`)."""
    return {"id": object_id, "error": error, "outcome": settle(runtime(), job, object_id, error)}


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


app.steps["consumer"].add(PeriodicReconcile)  # and then once per hard time limit, by one worker
app.steps["consumer"].add(InboxTaker)  # the inbox's taker: rows the app writes become tasks (design §11)
