"""What the app does around segcite, played by the CLI: store an upload (once per content: the same bytes in the
same workspace are one document) and write a question, as rows whose triggers record the work in the inbox, and
wait for the outcome (design §7, §9, §11, "For the app" in the README)."""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from worker import events
from worker.errors import PermanentError
from worker.objects import ObjectStore
from worker.stores import Store
from worker.stores.rows import (
    DOCUMENT_FINISHED,
    DOCUMENT_UNFINISHED,
    MESSAGE_FINISHED,
    DocumentRow,
    DocumentStatus,
    DuplicateContent,
    MessageRow,
    Role,
)

_WORKSPACE_NAMESPACE = uuid.UUID("3f6c1d2e-5a4b-4c3d-9e8f-7a6b5c4d3e2f")
DOCUMENT_DONE = DOCUMENT_FINISHED
MESSAGE_DONE = MESSAGE_FINISHED
POLL_INTERVAL = 0.3  # seconds between two reads of a row being waited for


class WaitTimeout(RuntimeError):
    def __init__(self, message: str, last: Any):
        super().__init__(message)
        self.last = last  # what the wait saw last: where the work stands


class UploadError(PermanentError):
    """An upload that cannot be made (a folder without JSON files); the message names the user's path."""


def workspace_id(name_or_id: str) -> str:
    """A UUID as given; a name maps to a stable UUID (the same name, the same workspace, whatever its case).
    An empty or blank name is refused: it would silently become a workspace of its own."""
    if not name_or_id.strip():
        raise ValueError("the workspace name is empty")
    try:
        return str(uuid.UUID(name_or_id))
    except ValueError:
        return str(uuid.uuid5(_WORKSPACE_NAMESPACE, name_or_id.strip().lower()))


class Outcome(StrEnum):
    NEW = "new"  # a new document
    REPLACED = "replaced"  # the document named by the caller now holds these bytes
    REUSED = "reused"  # a live document of the workspace already holds them: nothing new was queued
    RETRIED = "retried"  # ... but it had failed: it is ingested again
    FORCED = "forced"  # ... and it was ingested: `force` ingests it again


@dataclass(frozen=True)
class Upload:
    document: DocumentRow
    name: str
    outcome: Outcome = Outcome.NEW

    @property
    def queued(self) -> bool:
        """Whether this upload stored bytes and queued an ingest (a reused document's work is someone else's)."""
        return self.outcome != Outcome.REUSED


def shard_paths(folder: Path) -> list[Path]:
    """A folder's JSON files (one document's shards) in name order; a folder without any is refused."""
    shards = sorted(folder.glob("*.json"))
    if not shards:
        raise UploadError(f"{folder}: no Document AI JSON, PDF or image in this folder")
    return shards


def upload_files(path: Path) -> list[bytes]:
    """The bytes of one document: a file, or a folder's shards."""
    return [file.read_bytes() for file in (shard_paths(path) if path.is_dir() else [path])]


def content_hash(blobs: Sequence[bytes]) -> str:
    """Hex SHA-256 of a file's bytes; for shards, of their SHA-256 digests in name order (one shard: its own)."""
    if len(blobs) == 1:
        return hashlib.sha256(blobs[0]).hexdigest()
    return hashlib.sha256(b"".join(hashlib.sha256(blob).digest() for blob in blobs)).hexdigest()


def upload(
    store: Store,
    objects: ObjectStore,
    workspace: str,
    path: Path,
    document_id: str | None = None,
    *,
    force: bool = False,
) -> Upload:
    """Store one document's JSON (a folder: its shards) as the upload flow would; its row records the ingest.

    Bytes a live document of the workspace already holds are not stored twice: that document is reused (an
    ingest in progress is followed, a failed one is tried again, an ingested one is left as it is unless
    `force`, which ingests it again in place). Otherwise a new document is made, or, given the `document_id` of
    an existing one, that document is replaced. Bytes stored for an upload that is then refused are removed."""
    blobs = upload_files(path)
    digest = content_hash(blobs)
    existing = store.document_with_content(workspace, digest)
    if existing is not None:
        if existing.status in DOCUMENT_UNFINISHED or (existing.status == DocumentStatus.INGESTED and not force):
            return Upload(existing, path.name, Outcome.REUSED)
        outcome = Outcome.FORCED if existing.status == DocumentStatus.INGESTED else Outcome.RETRIED
        # A failed parse tried again keeps the shards Document AI gave already; a forced one parses again.
        reparse = outcome == Outcome.FORCED
        return Upload(_ingest_again(store, objects, existing.id, path, blobs, digest, reparse), path.name, outcome)
    if document_id is not None and store.get_document(document_id) is not None:
        replaced = _ingest_again(store, objects, document_id, path, blobs, digest, reparse=True)
        return Upload(replaced, path.name, Outcome.REPLACED)
    document_id = document_id or str(uuid.uuid4())
    key = _put(objects, document_id, path, blobs)
    try:
        document = store.create_document(workspace, path.name, key, document_id, content_hash=digest)
    except DuplicateContent as same:  # an upload of the same bytes made it first
        objects.delete(key)
        return Upload(same.existing, path.name, Outcome.REUSED)
    except BaseException:
        objects.delete(key)
        raise
    return Upload(document, path.name)  # the new `uploaded` row's trigger recorded its ingest in the inbox


def _put(objects: ObjectStore, document_id: str, path: Path, blobs: Sequence[bytes]) -> str:
    """Store the bytes under the document's key: one object, or a prefix of shards for a folder."""
    if not path.is_dir():
        from parse import detect_kind

        # A PDF or an image is named for its kind: the worker parses it (by its bytes) and writes its shards beside.
        key = f"docai/{document_id}.{detect_kind(blobs[0][:1024]) or 'json'}"
        objects.put(key, blobs[0])
        return key
    key = f"docai/{document_id}/"
    for number, blob in enumerate(blobs):
        objects.put(f"{key}shard-{number:04d}.json", blob)
    return key


def _ingest_again(
    store: Store,
    objects: ObjectStore,
    document_id: str,
    path: Path,
    blobs: Sequence[bytes],
    digest: str,
    reparse: bool,
) -> DocumentRow:
    """The document, same id, gets these bytes and a new ingest: its segments and chunks are replaced."""
    before = store.get_document(document_id)
    if reparse and before is not None and before.source_r2_key:  # its shards go: the PDF is parsed again
        objects.delete(before.docai_raw_r2_key or before.source_r2_key + ".docai/")
    key = _put(objects, document_id, path, blobs)
    document = store.update_document(
        document_id,
        status=DocumentStatus.UPLOADED,
        progress=0.0,
        error=None,
        docai_raw_r2_key=key,
        source_r2_key=None,
        content_hash=digest,
    )
    if before is not None and before.status == DocumentStatus.UPLOADED:
        events.document_uploaded(document.id, store)  # no transition, so no trigger: recorded here
    return document  # else the move back to `uploaded` recorded its ingest in the inbox


def ask(
    store: Store,
    workspace: str,
    question: str,
    conversation_id: str | None = None,
    document_ids: Sequence[str] | None = None,
) -> MessageRow:
    """Write a question and its pending reply (whose trigger records the answer in the inbox): in a new conversation,
    or as the next turn of `conversation_id`; asked of `document_ids` (None: the conversation's, else all)."""
    conversation = conversation_id or store.create_conversation(workspace)
    user = store.create_message(conversation, Role.USER, question, document_ids=document_ids)
    return store.create_message(conversation, Role.ASSISTANT, "", reply_to=user.id)


class UnknownDocument(PermanentError):
    """A document chosen by a name or an id the workspace does not hold (or holds more than once, by that name)."""


def chosen_documents(held: Sequence[DocumentRow], given: Sequence[str]) -> list[str]:
    """The ids of the documents a user chose (design §5.10): each given as its id or as its file name, among the
    workspace's documents (`held`, those `segcite documents` lists)."""
    by_id = {d.id.lower(): d.id for d in held}
    chosen = []
    for item in given:
        if item.strip().lower() in by_id:
            chosen.append(by_id[item.strip().lower()])
            continue
        named = [d.id for d in held if d.filename == item] or [d.id for d in held if d.filename.lower() == item.lower()]
        if not named:
            raise UnknownDocument(f"no document {item!r} in this workspace")
        if len(named) > 1:
            raise UnknownDocument(
                f"{len(named)} documents are named {item!r}: choose one by its id ({', '.join(named)})"
            )
        chosen.append(named[0])
    return list(dict.fromkeys(chosen))


T = TypeVar("T")


def wait_for(
    fetch: Callable[[], T],
    done: Callable[[T], bool],
    timeout: float,
    on_change: Callable[[T], None] | None = None,
    what: str = "the task",
    pause: Callable[[float], None] = time.sleep,
) -> T:
    """Poll `fetch` until `done`; raises WaitTimeout (with the last value seen) after `timeout` seconds.
    `pause` waits between two polls (at most POLL_INTERVAL): one that an event cuts short reads a change at once."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        current = fetch()
        if on_change is not None and current != last:
            on_change(current)
        last = current
        if done(current):
            return current
        left = deadline - time.monotonic()
        if left <= 0:
            raise WaitTimeout(f"{what}: not finished after {timeout:g} s", current)
        pause(min(POLL_INTERVAL, left))
