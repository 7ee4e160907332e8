"""The work behind the tasks, over adapters only: upload -> segments + chunks; message -> published answer.

Called by the Celery tasks, and in-process by the benchmark. Raises TransientError for what is worth
retrying and PermanentError (or InvalidDocument) for what is not; the tasks turn those into retries or a
`failed` status.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

import orjson

from ingest import InvalidDocument, build_segments
from query import build_answer
from query.model import as_segments
from worker.providers import PermanentError
from worker.runtime import Runtime

log = logging.getLogger(__name__)
HISTORY_MESSAGES = 8


class LockBusy(RuntimeError):
    """Another worker is writing this workspace; try again shortly."""


@contextlib.contextmanager
def workspace_lock(rt: Runtime, workspace_id: str) -> Iterator[None]:
    """One writer per workspace (design §4): inserts and deletes of a workspace hold this Redis lock. A thread
    renews it while the work runs; if the worker dies, it expires after SEGCITE_LOCK_TTL seconds."""
    ttl = rt.settings.segcite_lock_ttl
    key = f"segcite:lock:workspace:{workspace_id}"
    lock = rt.redis.lock(key, timeout=ttl, blocking_timeout=min(30, ttl * 2), thread_local=False)
    if not lock.acquire():
        raise LockBusy(f"workspace {workspace_id} is busy with another ingest or delete")
    released = threading.Event()

    def renew() -> None:
        while not released.wait(ttl / 3):
            with contextlib.suppress(Exception):  # a failed renewal is retried; expiry is the fallback
                lock.reacquire()

    keeper = threading.Thread(target=renew, name="segcite-lock-keeper", daemon=True)
    keeper.start()
    try:
        yield
    finally:
        released.set()
        keeper.join(5)
        with contextlib.suppress(Exception):  # expired and taken by another worker meanwhile: nothing to free
            lock.release()


def ingest_document(rt: Runtime, document_id: str) -> dict[str, Any]:
    document = rt.store.get_document(document_id)
    if document is None:
        return {"document_id": document_id, "skipped": "no such document"}
    # Under the workspace lock, and with the status read again there: a delete or a second copy of this task
    # that ran meanwhile is seen, so the final state is always one whole ingest or one whole delete.
    with workspace_lock(rt, document.workspace_id):
        return _ingest_locked(rt, document_id)


def _ingest_locked(rt: Runtime, document_id: str) -> dict[str, Any]:
    store = rt.store
    document = store.get_document(document_id)
    if document is None or document.status in ("ingested", "deleted"):
        return {"document_id": document_id, "skipped": f"already {document.status}" if document else "deleted"}
    if not document.docai_raw_r2_key:
        raise PermanentError("the document has no docai_raw_r2_key: nothing to ingest")
    store.update_document(document_id, status="ingesting", progress=0.05, error=None)
    blobs = rt.objects.read_docai(document.docai_raw_r2_key)
    try:
        segments = build_segments(
            blobs if len(blobs) > 1 else blobs[0], document_id, max_chars=rt.settings.segcite_max_chars
        )
    except InvalidDocument as exc:
        raise PermanentError(f"invalid Document AI JSON at {rt.objects.url(document.docai_raw_r2_key)}: {exc}") from exc
    pages = len({s.page_idx for s in segments})
    document = store.update_document(
        document_id, status="parsed", progress=0.3, page_count=pages, segment_count=len(segments)
    )
    store.replace_segments(document, segments)
    store.update_document(document_id, status="ingesting", progress=0.5)
    chunks = rt.rag.replace_document(document.workspace_id, document_id, segments)
    if chunks != len(segments):
        raise PermanentError(f"the RAG store holds {chunks} chunks for {len(segments)} segments")
    store.update_document(document_id, status="ingested", progress=1.0)
    return {"document_id": document_id, "segments": len(segments), "pages": pages}


def delete_document(rt: Runtime, document_id: str) -> dict[str, Any]:
    document = rt.store.get_document(document_id)
    if document is None:
        return {"document_id": document_id, "skipped": "no such document"}
    with workspace_lock(rt, document.workspace_id):
        rt.store.update_document(document_id, status="deleted", progress=1.0, error=None)
        rt.rag.delete_document(document.workspace_id, document_id)
        rt.store.delete_segments(document_id)
    return {"document_id": document_id, "deleted": True}


def _answer_key(message_id: str) -> str:
    return f"segcite:answer:{message_id}"


def compute_answer(rt: Runtime, message_id: str) -> dict[str, Any] | None:
    """The payload for a pending assistant message (None: nothing to do). Kept in Redis until published, so
    a publish that fails is retried without asking the model again."""
    message = rt.store.get_message(message_id)
    if message is None or message.status in ("done", "failed"):
        return None
    cached = cached_answer(rt, message_id)
    if cached is not None:
        return cached
    if message.role != "assistant" or not message.reply_to:
        raise PermanentError("only an assistant message that replies to a user message can be answered")
    question = rt.store.get_message(message.reply_to)
    if question is None:
        raise PermanentError(f"the user message {message.reply_to} this answers does not exist")
    if message.status != "processing":
        rt.store.update_message(message_id, status="processing")
    history = rt.store.history(message, HISTORY_MESSAGES)
    context_ids = rt.rag.retrieve(message.workspace_id, question.content, rt.settings.segcite_top_k)
    source = rt.store.segment_source(message.workspace_id)
    found = source.lookup(context_ids)
    context = [found[i] for i in context_ids if i in found]  # text, page and box come from document_segments
    raw = rt.answerer.answer(question.content, context, history)
    payload = build_answer(raw, context=as_segments(context), workspace=source)
    payload["metadata"]["context_ids"] = [s.segment_id for s in context]
    rt.redis.set(_answer_key(message_id), orjson.dumps(payload), ex=7 * 24 * 3600)
    return payload


def cached_answer(rt: Runtime, message_id: str) -> dict[str, Any] | None:
    """The payload computed for this message and not yet published, if any."""
    cached = rt.redis.get(_answer_key(message_id))
    return orjson.loads(cached) if cached else None


def publish_answer(rt: Runtime, message_id: str, payload: dict[str, Any]) -> None:
    rt.store.update_message(
        message_id, status="done", content=payload["content"], metadata=payload["metadata"], error=None
    )
    rt.redis.delete(_answer_key(message_id))


def answer_message(rt: Runtime, message_id: str) -> dict[str, Any]:
    payload = compute_answer(rt, message_id)
    if payload is None:
        return {"message_id": message_id, "skipped": "not pending"}
    publish_answer(rt, message_id, payload)
    return {"message_id": message_id, "stats": payload["metadata"]["stats"]}
