"""The one way work enters from Python (design §7, §11): an entry in the inbox, exactly what the database's
triggers record when the app writes a row. The workers' taker (worker/inbox.py) enqueues the Celery task.

Writing rows through the store needs none of these: the row's own trigger records its work. They are for work a
row's transition does not show: a lost task found by reconcile, a row re-ingested without changing status.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from worker.stores import Store


class Work(StrEnum):
    """The inbox's task kinds (migrations/007_inbox.sql), each the name of a Celery task `segcite.<kind>`."""

    INGEST = "ingest_document"
    DELETE = "delete_document"
    ANSWER = "answer_message"

    @property
    def task_name(self) -> str:
        return f"segcite.{self.value}"


def document_uploaded(document_id: str, store: Store | None = None) -> None:
    """A `documents` row with its `docai_raw_r2_key` is to be ingested (queue `ingest`)."""
    _record(Work.INGEST, document_id, store)


def document_deleting(document_id: str, store: Store | None = None) -> None:
    """A `deleting` document is to be deleted (queue `ingest`)."""
    _record(Work.DELETE, document_id, store)


def message_created(message_id: str, store: Store | None = None) -> None:
    """A pending assistant message replying to a user message is to be answered (queue `query`)."""
    _record(Work.ANSWER, message_id, store)


def _record(work: Work, target: str, store: Store | None) -> None:
    """Through `store`, or the configured one (opened for this call) when none is given."""
    if store is not None:
        store.record_work(work, str(target))
        return
    from worker.embedded import resolve_services
    from worker.settings import load_settings
    from worker.stores import make_store

    settings = load_settings()
    database_url = "" if settings.segcite_store == "supabase" else resolve_services(settings, start=False).database_url
    configured = make_store(settings, database_url, max_size=1)
    try:
        configured.record_work(work, str(target))
    finally:
        configured.close()
