"""On worker start, re-enqueue work a dead worker left behind (design §7: nothing lost on a crash).

A row still `ingesting` or `processing` long after any task could have run (the hard time limit) belongs to a
task that is gone: a worker killed with its unacknowledged message, or a broker that lost it. Re-enqueueing is
safe: the tasks are idempotent, and the delivery counter fails work that keeps killing workers.
"""

from __future__ import annotations

import logging

from worker import events
from worker.embedded import resolve_services
from worker.settings import Settings
from worker.stores import make_store

log = logging.getLogger(__name__)


def reconcile(settings: Settings, older_than_seconds: int | None = None) -> tuple[list[str], list[str]]:
    services = resolve_services(settings, start=False)
    store = make_store(settings, services.database_url, max_size=1)
    try:
        documents, messages = store.stale(older_than_seconds or settings.segcite_task_time_limit)
    finally:
        store.close()
    for document_id in documents:
        events.document_uploaded(document_id)
    for message_id in messages:
        events.message_created(message_id)
    if documents or messages:
        log.warning("re-enqueued %d document(s) and %d message(s) left unfinished", len(documents), len(messages))
    return documents, messages
