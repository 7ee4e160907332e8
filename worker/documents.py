"""The work on documents behind the tasks: ingest (Document AI JSON -> segments + RAG chunks) and delete.

Both run under the workspace's write lock (design §4), and check it before every write: a lock lost midway
stops the work with LockLost, and the task retries it from the start. Errors leave as TransientError (worth
retrying) or PermanentError (the message says what to fix, naming the user's file).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

from ingest import InvalidDocument, Segment, build_segments
from worker.errors import MissingObject, PermanentError
from worker.page_images import delete_page_images, store_page_images
from worker.parsing import stage as parsing
from worker.rag import retrieved_segments
from worker.runtime import Runtime
from worker.stores.rows import EMBEDDED_AT, PARSED_AT, STORED_AT, DocumentRow, DocumentStatus
from worker.workspace_lock import WorkspaceLock

PROGRESS_INTERVAL = 0.5  # seconds between two progress updates while embedding
REPLACE_WAIT = 630.0  # seconds to wait for LightRAG's part of an ingest (RagStore.replace_document's own timeout, 600)
_NOT_TO_INGEST = (DocumentStatus.INGESTED, DocumentStatus.DELETING, DocumentStatus.DELETED)


def ingest_document(rt: Runtime, document_id: str) -> dict[str, Any]:
    document = rt.store.get_document(document_id)
    if document is None:
        return {"document_id": document_id, "skipped": "no such document"}
    # A PDF or an image is parsed first (design §3a), outside the workspace lock: parsing writes only its own
    # shards. Sent to Document AI as shard tasks, its ingest is recorded in the inbox when the last one is stored.
    if document.status not in _NOT_TO_INGEST:
        document = parsing.begin(rt, document)
        if document is None:
            return {"document_id": document_id, "parsing": True}
    prepared = _prepare(rt, document)
    # Under the workspace lock, and with the status read again there: a delete or a second copy of this task
    # that ran meanwhile is seen, so the final state is always one whole ingest or one whole delete.
    with rt.workspace_lock(document.workspace_id) as lock:
        return _ingest_locked(rt, document_id, lock, prepared)


@dataclass
class _Prepared:
    """A document's JSON and segments, read before its workspace's lock was taken, and the row they were read for."""

    row: DocumentRow
    blobs: list[bytes]
    segments: list[Segment]


def _prepare(rt: Runtime, document: DocumentRow) -> _Prepared | None:
    """The JSON read and segmented while another ingest of the workspace may hold its lock (one writes at a time:
    the next one's reading overlaps the current one's writes). None where the locked path is to decide (nothing to
    ingest, or an error it reports after its own checks)."""
    if document.status in _NOT_TO_INGEST:
        return None
    try:
        blobs = read_docai(rt, document)
        return _Prepared(document, blobs, read_segments(rt, document, blobs))
    except PermanentError:
        return None


def _ingest_locked(rt: Runtime, document_id: str, lock: WorkspaceLock, prepared: _Prepared | None) -> dict[str, Any]:
    store = rt.store
    document = store.get_document(document_id)
    if document is None or document.status in _NOT_TO_INGEST:
        return {"document_id": document_id, "skipped": f"already {document.status}" if document else "deleted"}
    lock.check()
    # What was read before the lock holds if the row is as it was then (an upload in place changes it).
    if prepared is not None and (prepared.row.updated_at, prepared.row.docai_raw_r2_key) == (
        document.updated_at,
        document.docai_raw_r2_key,
    ):
        blobs, segments = prepared.blobs, prepared.segments
    else:
        blobs = read_docai(rt, document)
        segments = read_segments(rt, document, blobs)
    del prepared
    store.update_document(document_id, status=DocumentStatus.INGESTING, progress=0.05, error=None)
    pages = len({s.page_idx for s in segments})
    lock.check()
    document = store.update_document(
        document_id, status=DocumentStatus.PARSED, progress=PARSED_AT, page_count=pages, segment_count=len(segments)
    )
    lock.check()
    progress = EmbeddingProgress(rt, document_id, lock)
    # LightRAG's chunks are written while the segments and page images are: other tables, so the database (and the
    # embedder) work on both at once. The document is `ingested` only once all are, as before.
    replacing = rt.rag.start_replace(document.workspace_id, document_id, segments, on_progress=progress)
    try:
        store.replace_segments(document, segments)
        lock.check()
        images = store_page_images(rt, document, blobs)
        del blobs  # not held while embedding
        lock.check()
        store.update_document(document_id, status=DocumentStatus.INGESTING, progress=STORED_AT)
        progress.stored = True
    except BaseException:
        # Nothing of this ingest writes after it ends: LightRAG's part is waited for (a lost lock stops it at its
        # next check, as it stopped this part).
        with contextlib.suppress(BaseException):
            replacing.result(REPLACE_WAIT)
        raise
    chunks = replacing.result(REPLACE_WAIT)
    expected = len(retrieved_segments(segments))
    if chunks != expected:
        raise PermanentError(f"the RAG store holds {chunks} chunks for {expected} segments")
    lock.check()
    store.update_document(document_id, status=DocumentStatus.INGESTED, progress=1.0)
    return {"document_id": document_id, "segments": len(segments), "pages": pages, "page_images": images}


def read_docai(rt: Runtime, document: DocumentRow) -> list[bytes]:
    """The document's Document AI JSON: one object, or the shards under a prefix (a ProcessResponse read as the
    Document it wraps)."""
    if not document.docai_raw_r2_key:
        raise PermanentError(f"{document.filename}: the document has no docai_raw_r2_key: nothing to ingest")
    try:
        return rt.objects.read_docai(document.docai_raw_r2_key)
    except MissingObject as exc:  # it names the key looked for (the row's docai_raw_r2_key), never a local path
        raise PermanentError(f"{document.filename}: its Document AI JSON is not in the object store: {exc}") from exc


def read_segments(rt: Runtime, document: DocumentRow, blobs: list[bytes]) -> list[Segment]:
    """The document's segments, from its Document AI JSON (`read_docai`)."""
    names = [document.filename] if len(blobs) == 1 else shard_names(document.filename, len(blobs))
    try:
        return build_segments(
            blobs if len(blobs) > 1 else blobs[0], document.id, max_chars=rt.settings.segcite_max_chars, names=names
        )
    except InvalidDocument as exc:  # it names the user's file, never where we keep it
        raise PermanentError(f"invalid Document AI JSON: {exc}") from exc


def shard_names(filename: str, count: int) -> list[str]:
    return [f"{filename} (part {number} of {count})" for number in range(1, count + 1)]


class EmbeddingProgress:
    """Called after each embedding batch of an ingest: stops the work if the lock was lost, and moves the
    document's progress (at most every PROGRESS_INTERVAL seconds, so a 500-page document shows it moving)."""

    def __init__(self, rt: Runtime, document_id: str, lock: WorkspaceLock):
        self.rt = rt
        self.document_id = document_id
        self.lock = lock
        self.last = 0.0
        self.stored = False  # set once the segments are stored: progress before then would go back to STORED_AT

    def __call__(self, fraction: float) -> None:
        self.lock.check()
        if not self.stored:
            return
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL:
            return
        self.last = now
        progress = round(STORED_AT + (EMBEDDED_AT - STORED_AT) * fraction, 3)
        self.rt.store.update_document(self.document_id, progress=progress)


def delete_document(rt: Runtime, document_id: str) -> dict[str, Any]:
    """A document asked to be deleted (`deleting`) loses its chunks and segments, and ends `deleted`."""
    document = rt.store.get_document(document_id)
    if document is None:
        return {"document_id": document_id, "skipped": "no such document"}
    with rt.workspace_lock(document.workspace_id) as lock:
        lock.check()
        rt.rag.delete_document(document.workspace_id, document_id)
        lock.check()
        rt.store.delete_segments(document_id)
        delete_page_images(rt, document_id)
        lock.check()
        # Last: a client that sees `deleted` finds nothing of the document left.
        # segment_count 0: the row no longer counts segments that are gone (page_count stays: the file's).
        rt.store.update_document(document_id, status=DocumentStatus.DELETED, progress=1.0, error=None, segment_count=0)
    return {"document_id": document_id, "deleted": True}
