"""What the app does around segcite, played by the CLI: store an upload and enqueue its ingest, write a
question and enqueue its answer, and wait for the outcome (design §7, "For the app" in the README)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from worker import events
from worker.objects import ObjectStore
from worker.stores import Store
from worker.stores.rows import DOCUMENT_FINISHED, MESSAGE_FINISHED, DocumentRow, DocumentStatus, MessageRow, Role

_WORKSPACE_NAMESPACE = uuid.UUID("3f6c1d2e-5a4b-4c3d-9e8f-7a6b5c4d3e2f")
DOCUMENT_DONE = DOCUMENT_FINISHED
MESSAGE_DONE = MESSAGE_FINISHED


class WaitTimeout(RuntimeError):
    pass


def workspace_id(name_or_id: str) -> str:
    """A UUID as given; a name maps to a stable UUID (the same name, the same workspace)."""
    try:
        return str(uuid.UUID(name_or_id))
    except ValueError:
        return str(uuid.uuid5(_WORKSPACE_NAMESPACE, name_or_id.strip().lower()))


@dataclass(frozen=True)
class Upload:
    document: DocumentRow
    name: str


def upload(store: Store, objects: ObjectStore, workspace: str, path: Path, document_id: str | None = None) -> Upload:
    """Store one document's JSON (a folder: its shards) as the upload flow would, and enqueue its ingest.
    With a `document_id` that exists already, the document is replaced (re-ingested)."""
    document_id = document_id or str(uuid.uuid4())
    if path.is_dir():
        shards = sorted(path.glob("*.json"))
        if not shards:
            raise FileNotFoundError(f"no JSON files in {path}")
        key = f"docai/{document_id}/"
        for number, shard in enumerate(shards):
            objects.put(f"{key}shard-{number:04d}.json", shard.read_bytes())
    else:
        key = f"docai/{document_id}.json"
        objects.put(key, path.read_bytes())
    existing = store.get_document(document_id)
    if existing is None:
        document = store.create_document(workspace, path.name, key, document_id)
    else:
        document = store.update_document(
            document_id, status=DocumentStatus.UPLOADED, progress=0.0, error=None, docai_raw_r2_key=key
        )
    events.document_uploaded(document.id)
    return Upload(document, path.name)


def ask(store: Store, workspace: str, question: str, conversation_id: str | None = None) -> MessageRow:
    conversation = conversation_id or store.create_conversation(workspace)
    user = store.create_message(conversation, Role.USER, question)
    assistant = store.create_message(conversation, Role.ASSISTANT, "", reply_to=user.id)
    events.message_created(assistant.id)
    return assistant


T = TypeVar("T")


def wait_for(
    fetch: Callable[[], T],
    done: Callable[[T], bool],
    timeout: float,
    on_change: Callable[[T], None] | None = None,
    what: str = "the task",
) -> T:
    deadline = time.monotonic() + timeout
    last = None
    while True:
        current = fetch()
        if on_change is not None and current != last:
            on_change(current)
        last = current
        if done(current):
            return current
        if time.monotonic() > deadline:
            raise WaitTimeout(f"{what} did not finish within {timeout:.0f} s; is a worker running (segcite up)?")
        time.sleep(0.3)
