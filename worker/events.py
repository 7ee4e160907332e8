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


def document_uploaded(store: Store, document_id: str) -> None:
    """A `documents` row with its `docai_raw_r2_key` is to be ingested (queue `ingest`)."""
    store.record_work(Work.INGEST, str(document_id))


def document_deleting(store: Store, document_id: str) -> None:
    """A `deleting` document is to be deleted (queue `ingest`)."""
    store.record_work(Work.DELETE, str(document_id))


def message_created(store: Store, message_id: str) -> None:
    """A pending assistant message replying to a user message is to be answered (queue `query`)."""
    store.record_work(Work.ANSWER, str(message_id))
