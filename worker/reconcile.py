"""Record again in the inbox work a dead worker left behind (design §7: nothing lost on a crash): when a worker
starts, and then once per hard time limit by one of the running workers.

A row still `ingesting`, `deleting` or `processing` long after any task could have run (the hard time limit)
belongs to a task that is gone: a worker killed with its unacknowledged message, a broker that lost it, or a
retry the broker could not take. Recording it again (worker.events: the inbox, the one way work enters) is safe:
the tasks are idempotent, and the delivery counter fails work that keeps killing workers. On start, rows waiting
that long count too (a wiped broker loses them); the periodic pass leaves those alone, since a long queue is no
lost work and would count as redeliveries.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from celery import bootsteps

from worker import events
from worker.embedded import redis_client_url, resolve_services
from worker.redis_state import claim_reconcile
from worker.settings import Settings, load_settings
from worker.stores import make_store
from worker.stores.rows import DocumentStatus

log = logging.getLogger(__name__)


def reconcile(
    settings: Settings, older_than_seconds: int | None = None, *, started_only: bool = False
) -> tuple[list[str], list[str]]:
    """Re-enqueue unfinished rows that have not moved for `older_than_seconds` (default: the hard time limit);
    with `started_only`, only work a task had started (`ingesting`, `processing`)."""
    services = resolve_services(settings, start=False)
    store = make_store(settings, services.database_url, max_size=1)
    try:
        documents, messages = store.stale(older_than_seconds or settings.segcite_task_time_limit, started_only)
        for document_id in documents:
            document = store.get_document(document_id)
            if document is not None and document.status == DocumentStatus.DELETING:
                events.document_deleting(document_id, store)
            elif document is not None:
                events.document_uploaded(document_id, store)
        for message_id in messages:
            events.message_created(message_id, store)
    finally:
        store.close()
    if documents or messages:
        log.warning("re-enqueued %d document(s) and %d message(s) left unfinished", len(documents), len(messages))
    return documents, messages


class PeriodicReconcile(bootsteps.StartStopStep):
    """A consumer step: once per hard time limit, on the worker's own timer, one worker (whichever claims the
    period in Redis first) re-enqueues started work nobody finished, so a lost task is taken up again without
    waiting for a worker to start."""

    def __init__(self, parent: Any, **kwargs: Any):
        super().__init__(parent, **kwargs)
        self.timer_ref: Any = None

    def start(self, parent: Any) -> None:
        settings = load_settings()
        period = settings.segcite_task_time_limit
        self.timer_ref = parent.timer.call_repeatedly(period, self.tick, (settings, period), priority=10)

    def stop(self, parent: Any) -> None:
        if self.timer_ref is not None:
            self.timer_ref.cancel()
            self.timer_ref = None

    shutdown = stop

    @staticmethod
    def tick(settings: Settings, period: int) -> None:
        try:
            services = resolve_services(settings, start=False)
            client = redis.Redis.from_url(redis_client_url(services.redis_url), socket_timeout=10)
            try:
                if claim_reconcile(client, period):
                    reconcile(settings, started_only=True)
            finally:
                client.close()
        except Exception as exc:  # a service is down: the next period tries again; the worker keeps serving
            log.warning("could not look for unfinished work: %s", exc)
