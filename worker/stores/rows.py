"""The rows the stores read and write (design §2), their statuses, and the realtime events they send (§6)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from ingest import BBox, Line, Segment, is_uuid

# Realtime broadcasts are capped; past this the client gets `{…_id, status}` and refetches the row.
MAX_EVENT_BYTES = 250_000
DOCUMENT_EVENT = "document.status_updated"
MESSAGE_EVENT = "message.status_updated"
DELTA_EVENT = "message.delta"  # while the model writes (design §6); the row is written once, at `done`


class DocumentStatus(StrEnum):
    UPLOADED = "uploaded"
    PARSING = "parsing"  # a PDF or an image being turned into Document AI JSON (design §3a)
    PARSED = "parsed"
    INGESTING = "ingesting"
    INGESTED = "ingested"
    FAILED = "failed"
    DELETING = "deleting"  # set by the app (or `segcite delete`): the delete task ends it at `deleted`
    DELETED = "deleted"


class MessageStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"


# Statuses where a document's or a message's work is over (what a waiting client stops at).
DOCUMENT_FINISHED = frozenset({DocumentStatus.INGESTED, DocumentStatus.FAILED, DocumentStatus.DELETED})
MESSAGE_FINISHED = frozenset({MessageStatus.DONE, MessageStatus.FAILED})
# Statuses of an ingest somebody still has to finish.
DOCUMENT_UNFINISHED = (DocumentStatus.UPLOADED, DocumentStatus.PARSING, DocumentStatus.PARSED, DocumentStatus.INGESTING)
MESSAGE_UNFINISHED = (MessageStatus.PENDING, MessageStatus.PROCESSING)
# Unfinished work a task had started (reconcile's periodic pass looks only at these).
DOCUMENT_STARTED = (DocumentStatus.PARSING, DocumentStatus.PARSED, DocumentStatus.INGESTING)
MESSAGE_STARTED = (MessageStatus.PROCESSING,)
# A document's `progress` through an ingest: parsed at 30%, segments stored at 50%, embedding from 50% to 95%,
# then done (written by worker/documents.py, read by whoever shows it).
PARSED_AT, STORED_AT, EMBEDDED_AT = 0.3, 0.5, 0.95


def unfinished(started_only: bool) -> tuple[list[str], list[str]]:
    """The document and message statuses `Store.stale` looks for: a delete asked for (`deleting`) counts as
    work under way either way, since nothing but its task moves it on."""
    documents, messages = (
        (DOCUMENT_STARTED, MESSAGE_STARTED) if started_only else (DOCUMENT_UNFINISHED, MESSAGE_UNFINISHED)
    )
    return [*map(str, documents), str(DocumentStatus.DELETING)], [str(s) for s in messages]


DOCUMENT_FIELDS = frozenset(
    {
        "status",
        "error",
        "progress",
        "page_count",
        "segment_count",
        "filename",
        "docai_raw_r2_key",
        "source_r2_key",
        "content_hash",
    }
)
MESSAGE_FIELDS = frozenset({"status", "content", "metadata", "error"})
DOCUMENT_COLUMNS = (
    "id",
    "workspace_id",
    "filename",
    "status",
    "docai_raw_r2_key",
    "source_r2_key",
    "page_count",
    "segment_count",
    "error",
    "progress",
    "content_hash",
    "updated_at",
)
SEGMENT_COLUMNS = (
    "document_id",
    "segment_index",
    "workspace_id",
    "page_idx",
    "kind",
    "text",
    "char_start",
    "char_end",
    "bbox",
    "lines",
)


def _timestamp(value: Any) -> datetime | None:
    """PostgreSQL gives datetimes; PostgREST gives ISO 8601 text."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def scope_ids(scope: Collection[str] | None) -> list[str] | None:
    """A question's scope as the search functions take it (`p_documents`): its document ids, those that are not UUIDs
    left out (they name no document); None for the whole workspace."""
    return None if scope is None else sorted({str(d) for d in scope if is_uuid(str(d))})


def check_fields(fields: dict[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"not {what} fields: {sorted(unknown)}")


@dataclass(frozen=True)
class DocumentRow:
    id: str
    workspace_id: str
    filename: str
    status: DocumentStatus
    docai_raw_r2_key: str | None
    page_count: int | None
    segment_count: int | None
    error: str | None
    progress: float
    content_hash: str | None = None  # hex SHA-256 of the uploaded bytes (migrations/006_content_hash.sql)
    updated_at: datetime | None = None
    source_r2_key: str | None = None  # the PDF or image a parse started from (migrations/014_parse.sql)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> DocumentRow:
        values = {name: row.get(name) for name in DOCUMENT_COLUMNS}
        return cls(
            **{
                **values,
                "id": str(row["id"]),
                "workspace_id": str(row["workspace_id"]),
                "status": DocumentStatus(row["status"]),
                "filename": row.get("filename") or "",
                "progress": float(row.get("progress") or 0.0),
                "updated_at": _timestamp(row.get("updated_at")),
            }
        )

    @property
    def topic(self) -> str:
        return f"workspace:{self.workspace_id}"

    def brief(self) -> dict[str, Any]:
        """The event when the full one is too large: the client refetches the row."""
        return {"document_id": self.id, "status": self.status}

    def event(self) -> dict[str, Any]:
        return {
            "document_id": self.id,
            "status": self.status,
            "progress": self.progress,
            "error": self.error,
            "page_count": self.page_count,
            "segment_count": self.segment_count,
        }


@dataclass(frozen=True)
class PageImageRow:
    """One row of `document_pages` (migrations/011_page_images.sql): where a page's image is stored, its size."""

    document_id: str
    page_idx: int
    image_key: str
    mime: str
    width: int
    height: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PageImageRow:
        return cls(
            str(row["document_id"]), int(row["page_idx"]), row["image_key"], row["mime"], row["width"], row["height"]
        )

    def to_row(self, workspace_id: str) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "workspace_id": workspace_id}

    def citation_image(self) -> dict[str, Any]:
        """A citation's `page_image` (design §5.8)."""
        return {"key": self.image_key, "width": self.width, "height": self.height}


@dataclass(frozen=True)
class InboxStat:
    """Entries of one task kind waiting in the inbox, and the oldest one's age (what `segcite status` shows)."""

    task: str
    waiting: int
    oldest_seconds: float

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> InboxStat:
        return cls(str(row["task"]), int(row["waiting"]), float(row["oldest_seconds"]))


@dataclass(frozen=True)
class WorkspaceStat:
    """A workspace that holds a document (of any status) or a conversation (what `segcite workspaces` shows):
    its documents and their segments, deleted ones left out, and when anything in it last changed."""

    workspace_id: str
    documents: int
    segments: int
    last_activity: datetime | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> WorkspaceStat:
        return cls(
            str(row["workspace_id"]),
            int(row["documents"]),
            int(row["segments"]),
            _timestamp(row.get("last_activity")),
        )


def workspace_stats(documents: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[WorkspaceStat]:
    """WorkspaceStats from plain rows (the `supabase` store's, which PostgREST cannot group): documents with
    `workspace_id`, `status`, `segment_count`, `updated_at`; messages (or conversations) with `workspace_id` and
    `updated_at`. Latest activity first, as the `postgres` store orders them."""
    found: dict[str, dict[str, Any]] = {}
    for row in [*documents, *messages]:
        stat = found.setdefault(str(row["workspace_id"]), {"documents": 0, "segments": 0, "last": None})
        when = _timestamp(row.get("updated_at"))
        if when is not None and (stat["last"] is None or when > stat["last"]):
            stat["last"] = when
        if "status" in row and row["status"] != DocumentStatus.DELETED:
            stat["documents"] += 1
            stat["segments"] += row.get("segment_count") or 0
    stats = [WorkspaceStat(ws, s["documents"], s["segments"], s["last"]) for ws, s in found.items()]
    return sorted(stats, key=lambda s: s.last_activity.timestamp() if s.last_activity else -math.inf, reverse=True)


class DuplicateContent(Exception):
    """A live document of the workspace already holds these bytes (same `content_hash`): `existing`."""

    def __init__(self, existing: DocumentRow):
        super().__init__(f"document {existing.id} ({existing.filename}) has the same content")
        self.existing = existing


def document_ids(value: Any) -> tuple[str, ...] | None:
    """A `document_ids` column (uuid[]) as text ids; None stays None (no choice made)."""
    return None if value is None else tuple(str(v) for v in value)


@dataclass(frozen=True)
class ConversationRow:
    id: str
    workspace_id: str
    document_ids: tuple[str, ...] | None = None  # the sources chosen for it (migrations/017); None: the workspace

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ConversationRow:
        return cls(str(row["id"]), str(row["workspace_id"]), document_ids(row.get("document_ids")))


@dataclass(frozen=True)
class MessageRow:
    id: str
    conversation_id: str
    workspace_id: str
    role: Role
    reply_to: str | None
    content: str
    status: MessageStatus
    metadata: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    document_ids: tuple[str, ...] | None = None  # a question's own choice (migrations/017); None: its conversation's
    conversation_document_ids: tuple[str, ...] | None = None  # its conversation's; None: the whole workspace

    @classmethod
    def from_row(cls, row: dict[str, Any], workspace_id: Any, conversation_document_ids: Any = None) -> MessageRow:
        return cls(
            id=str(row["id"]),
            conversation_id=str(row["conversation_id"]),
            workspace_id=str(workspace_id),
            role=Role(row["role"]),
            reply_to=str(row["reply_to"]) if row.get("reply_to") else None,
            content=row.get("content") or "",
            status=MessageStatus(row["status"]),
            metadata=row.get("metadata") or {},
            error=row.get("error"),
            created_at=row.get("created_at"),
            updated_at=row.get("updated_at"),
            document_ids=document_ids(row.get("document_ids")),
            conversation_document_ids=document_ids(conversation_document_ids),
        )

    @property
    def scope(self) -> tuple[str, ...] | None:
        """The documents a question is asked of (design §2, §5.10): its own choice narrows its conversation's (those
        of its own that the conversation's hold), else the conversation's; None: the whole workspace."""
        if self.document_ids is None or self.conversation_document_ids is None:
            return self.document_ids if self.document_ids is not None else self.conversation_document_ids
        allowed = {d.lower() for d in self.conversation_document_ids}
        return tuple(d for d in self.document_ids if d.lower() in allowed)

    @property
    def topic(self) -> str:
        return f"conversation:{self.conversation_id}"

    def brief(self) -> dict[str, Any]:
        return {"message_id": self.id, "status": self.status}

    def event(self) -> dict[str, Any]:
        """The realtime event: the row, without the model's raw reply (kept on the row for audits, design §5.8)."""
        return {
            "message_id": self.id,
            "status": self.status,
            "content": self.content,
            "metadata": {k: v for k, v in self.metadata.items() if k != "raw_output"},
            "error": self.error,
        }


def segment_from_row(row: dict[str, Any]) -> Segment:
    bbox, lines = row.get("bbox"), row.get("lines")
    return Segment(
        str(row["document_id"]),
        row["segment_index"],
        row["page_idx"],
        row["kind"],
        row["text"],
        row["char_start"],
        row["char_end"],
        BBox(**bbox) if bbox else None,
        tuple(Line.from_dict(line) for line in lines) if lines is not None else None,
    )


def segment_to_row(segment: Segment, workspace_id: str) -> dict[str, Any]:
    """A `document_segments` row (JSON columns as plain values)."""
    data = segment.to_dict()
    return {name: data[name] for name in SEGMENT_COLUMNS if name != "workspace_id"} | {"workspace_id": workspace_id}
