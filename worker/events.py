"""Enqueue helpers for the app: call these after the row exists (design §7)."""

from __future__ import annotations

from celery.result import AsyncResult

from worker.app import app


def document_uploaded(document_id: str) -> AsyncResult:
    """A `documents` row with its `docai_raw_r2_key` was written: ingest it (queue `ingest`)."""
    return app.send_task("segcite.ingest_document", args=[str(document_id)])


def document_deleted(document_id: str) -> AsyncResult:
    return app.send_task("segcite.delete_document", args=[str(document_id)])


def message_created(message_id: str) -> AsyncResult:
    """A pending assistant message replying to a user message was written: answer it (queue `query`)."""
    return app.send_task("segcite.answer_message", args=[str(message_id)])
