"""Rows and realtime events (design §6): the `postgres` store, on any PostgreSQL or on Supabase's.

Every status change updates its row and sends its event in one transaction: `realtime.send(...)` where
Supabase's realtime schema exists, else `pg_notify(<topic>, …)` (what tests and plain PostgreSQL LISTEN to).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import orjson
import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ingest import BBox, Segment
from query.match import SegmentSource, content_words

if TYPE_CHECKING:
    from worker.supabase_store import SupabaseStore

# Realtime broadcasts are capped; past this the client gets `{message_id, status}` and refetches the row.
MAX_EVENT_BYTES = 250_000
# pg_notify payloads are capped at 8000 bytes by PostgreSQL.
MAX_NOTIFY_BYTES = 7_900


def _jsonb(value: Any) -> Jsonb:
    return Jsonb(value, dumps=lambda v: orjson.dumps(v).decode())


@dataclass(frozen=True)
class DocumentRow:
    id: str
    workspace_id: str
    filename: str
    status: str
    docai_raw_r2_key: str | None
    page_count: int | None
    segment_count: int | None
    error: str | None
    progress: float
    updated_at: datetime | None = None

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
class MessageRow:
    id: str
    conversation_id: str
    workspace_id: str
    role: str
    reply_to: str | None
    content: str
    status: str
    metadata: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def topic(self) -> str:
        return f"conversation:{self.conversation_id}"

    def brief(self) -> dict[str, Any]:
        return {"message_id": self.id, "status": self.status}

    def event(self) -> dict[str, Any]:
        return {
            "message_id": self.id,
            "status": self.status,
            "content": self.content,
            "metadata": self.metadata,
            "error": self.error,
        }


class Store(Protocol):
    def create_document(
        self, workspace_id: str, filename: str, key: str, document_id: str | None = None
    ) -> DocumentRow: ...
    def get_document(self, document_id: str) -> DocumentRow | None: ...
    def update_document(self, document_id: str, **fields: Any) -> DocumentRow: ...
    def replace_segments(self, document: DocumentRow, segments: Sequence[Segment]) -> None: ...
    def delete_segments(self, document_id: str) -> None: ...
    def segment_source(self, workspace_id: str) -> SegmentSource: ...
    def create_conversation(self, workspace_id: str) -> str: ...
    def create_message(
        self, conversation_id: str, role: str, content: str, reply_to: str | None = None
    ) -> MessageRow: ...
    def get_message(self, message_id: str) -> MessageRow | None: ...
    def history(self, message: MessageRow, limit: int) -> list[dict[str, str]]: ...
    def update_message(self, message_id: str, **fields: Any) -> MessageRow: ...


_DOCUMENT_COLUMNS = (
    "id, workspace_id, filename, status, docai_raw_r2_key, page_count, segment_count, error, progress, updated_at"
)
_MESSAGE_COLUMNS = (
    "m.id, m.conversation_id, c.workspace_id, m.role, m.reply_to, m.content, m.status, m.metadata, "
    "m.error, m.created_at, m.updated_at"
)
DOCUMENT_EVENT = "document.status_updated"
MESSAGE_EVENT = "message.status_updated"
_DOCUMENT_FIELDS = {"status", "error", "progress", "page_count", "segment_count", "filename", "docai_raw_r2_key"}
_MESSAGE_FIELDS = {"status", "content", "metadata", "error"}


def check_fields(fields: dict[str, Any], allowed: set[str], what: str) -> None:
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"not {what} fields: {sorted(unknown)}")


def _document(row: dict[str, Any]) -> DocumentRow:
    return DocumentRow(**{**row, "id": str(row["id"]), "workspace_id": str(row["workspace_id"])})


def _message(row: dict[str, Any]) -> MessageRow:
    return MessageRow(
        **{
            **row,
            "id": str(row["id"]),
            "conversation_id": str(row["conversation_id"]),
            "workspace_id": str(row["workspace_id"]),
            "reply_to": str(row["reply_to"]) if row["reply_to"] else None,
        }
    )


def _segment(row: dict[str, Any]) -> Segment:
    bbox = row["bbox"]
    return Segment(
        str(row["document_id"]),
        row["segment_index"],
        row["page_idx"],
        row["kind"],
        row["text"],
        row["char_start"],
        row["char_end"],
        BBox(**bbox) if bbox else None,
    )


def _split_id(segment_id: str) -> tuple[str, int] | None:
    document_id, _, index = segment_id.rpartition(":")
    try:
        return str(uuid.UUID(document_id)), int(index)
    except ValueError:
        return None  # not an id this database can hold: unknown


class PostgresStore:
    def __init__(self, database_url: str, *, max_size: int = 4, timeout: float = 30.0):
        # prepare_threshold=None: no server-side prepared statements, so Supabase's transaction pooler works.
        self.pool = ConnectionPool(
            database_url,
            min_size=1,
            max_size=max_size,
            open=True,
            timeout=timeout,  # a database that is down raises PoolTimeout (an OperationalError) after this
            check=ConnectionPool.check_connection,  # a restarted database leaves dead connections in the pool
            kwargs={"prepare_threshold": None, "row_factory": dict_row},
        )
        self._has_realtime: bool | None = None  # asked on first publish: a worker may start before the database

    def _realtime(self, conn: psycopg.Connection) -> bool:
        if self._has_realtime is None:
            found = conn.execute(
                "select to_regprocedure('realtime.send(jsonb,text,text,boolean)') is not null as found"
            ).fetchone()
            self._has_realtime = bool(found and found["found"])
        return self._has_realtime

    def close(self) -> None:
        self.pool.close()

    # events ------------------------------------------------------------------------------------------

    def _publish(self, conn: psycopg.Connection, topic: str, event: str, payload: dict[str, Any], small: dict) -> None:
        body = orjson.dumps(payload)
        if self._realtime(conn):
            chosen = payload if len(body) <= MAX_EVENT_BYTES else small
            conn.execute("select realtime.send(%s, %s, %s, true)", (_jsonb(chosen), event, topic))
        else:
            chosen_body = body if len(body) <= MAX_NOTIFY_BYTES else orjson.dumps(small)
            note = b'{"event":"' + event.encode() + b'","payload":' + chosen_body + b"}"
            conn.execute("select pg_notify(%s, %s)", (topic, note.decode()))

    # documents ---------------------------------------------------------------------------------------

    def create_document(
        self, workspace_id: str, filename: str, key: str, document_id: str | None = None
    ) -> DocumentRow:
        with self.pool.connection() as conn:
            row = conn.execute(
                f"insert into documents (id, workspace_id, filename, docai_raw_r2_key) values (%s, %s, %s, %s) "
                f"returning {_DOCUMENT_COLUMNS}",
                (document_id or str(uuid.uuid4()), workspace_id, filename, key),
            ).fetchone()
        return _document(row)

    def get_document(self, document_id: str) -> DocumentRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"select {_DOCUMENT_COLUMNS} from documents where id = %s", (document_id,)).fetchone()
        return _document(row) if row else None

    def update_document(self, document_id: str, **fields: Any) -> DocumentRow:
        check_fields(fields, _DOCUMENT_FIELDS, "document")
        assignments = ", ".join(f"{name} = %({name})s" for name in fields)
        with self.pool.connection() as conn, conn.transaction():
            row = conn.execute(
                f"update documents set {assignments} where id = %(id)s returning {_DOCUMENT_COLUMNS}",
                {**fields, "id": document_id},
            ).fetchone()
            if row is None:
                raise LookupError(f"document {document_id} does not exist")
            document = _document(row)
            self._publish(conn, document.topic, DOCUMENT_EVENT, document.event(), document.brief())
        return document

    def replace_segments(self, document: DocumentRow, segments: Sequence[Segment]) -> None:
        """The document's segments become exactly these (a redelivered ingest never appends twice)."""
        rows = [
            (
                document.id,
                s.segment_index,
                document.workspace_id,
                s.page_idx,
                s.kind,
                s.text,
                s.char_start,
                s.char_end,
                _jsonb(s.to_dict()["bbox"]) if s.bbox else None,
            )
            for s in segments
        ]
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("delete from document_segments where document_id = %s", (document.id,))
            with conn.cursor() as cursor:
                cursor.executemany(
                    "insert into document_segments (document_id, segment_index, workspace_id, page_idx, kind, text, "
                    "char_start, char_end, bbox) values (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    rows,
                )

    def delete_segments(self, document_id: str) -> None:
        with self.pool.connection() as conn:
            conn.execute("delete from document_segments where document_id = %s", (document_id,))

    def segments_by_ids(self, workspace_id: str, segment_ids: Iterable[str]) -> dict[str, Segment]:
        pairs = [p for p in (_split_id(i) for i in segment_ids) if p]
        if not pairs:
            return {}
        with self.pool.connection() as conn:
            rows = conn.execute(
                "select s.* from document_segments s join unnest(%s::uuid[], %s::int[]) as wanted(d, i) "
                "on s.document_id = wanted.d and s.segment_index = wanted.i where s.workspace_id = %s",
                ([d for d, _ in pairs], [i for _, i in pairs], workspace_id),
            ).fetchall()
        return {segment.segment_id: segment for segment in map(_segment, rows)}

    def search_segments(self, workspace_id: str, text: str, limit: int) -> list[Segment]:
        """Full-text candidates: any content word may match; the best ranked first."""
        terms = sorted(content_words(text))[:64]
        if not terms:
            return []
        with self.pool.connection() as conn:
            rows = conn.execute(
                "select s.* from document_segments s, to_tsquery('simple', %s) q "
                "where s.workspace_id = %s and s.tsv @@ q order by ts_rank_cd(s.tsv, q) desc, s.document_id, "
                "s.segment_index limit %s",
                (" | ".join(terms), workspace_id, limit),
            ).fetchall()
        return [_segment(r) for r in rows]

    def segment_source(self, workspace_id: str) -> SegmentSource:
        return PostgresSegmentSource(self, workspace_id)

    # conversations and messages -------------------------------------------------------------------------

    def create_conversation(self, workspace_id: str) -> str:
        with self.pool.connection() as conn:
            row = conn.execute("insert into conversations (workspace_id) values (%s) returning id", (workspace_id,))
            return str(row.fetchone()["id"])

    def create_message(self, conversation_id: str, role: str, content: str, reply_to: str | None = None) -> MessageRow:
        with self.pool.connection() as conn:
            row = conn.execute(
                "insert into messages (conversation_id, role, content, reply_to, status) values (%s, %s, %s, %s, %s) "
                "returning id",
                (conversation_id, role, content, reply_to, "pending" if role == "assistant" else "done"),
            ).fetchone()
        message = self.get_message(str(row["id"]))
        assert message is not None
        return message

    def get_message(self, message_id: str) -> MessageRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                f"select {_MESSAGE_COLUMNS} from messages m join conversations c on c.id = m.conversation_id "
                "where m.id = %s",
                (message_id,),
            ).fetchone()
        return _message(row) if row else None

    def history(self, message: MessageRow, limit: int) -> list[dict[str, str]]:
        """Earlier turns of the conversation, oldest first, without the question being answered."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "select role, content from messages where conversation_id = %s and created_at < "
                "(select created_at from messages where id = %s) and id <> %s and status = 'done' "
                "order by created_at desc limit %s",
                (message.conversation_id, message.reply_to or message.id, message.reply_to or message.id, limit),
            ).fetchall()
        return [{"role": r["role"], "content": r["content"]} for r in reversed(rows)]

    def update_message(self, message_id: str, **fields: Any) -> MessageRow:
        check_fields(fields, _MESSAGE_FIELDS, "message")
        values = {k: _jsonb(v) if k == "metadata" else v for k, v in fields.items()}
        assignments = ", ".join(f"{name} = %({name})s" for name in fields)
        with self.pool.connection() as conn, conn.transaction():
            found = conn.execute(
                f"update messages set {assignments} where id = %(id)s returning id", {**values, "id": message_id}
            ).fetchone()
            if found is None:
                raise LookupError(f"message {message_id} does not exist")
            row = conn.execute(
                f"select {_MESSAGE_COLUMNS} from messages m join conversations c on c.id = m.conversation_id "
                "where m.id = %s",
                (message_id,),
            ).fetchone()
            message = _message(row)
            self._publish(conn, message.topic, MESSAGE_EVENT, message.event(), message.brief())
        return message

    def stale(self, older_than_seconds: int) -> tuple[list[str], list[str]]:
        """Ids of work nobody finished: documents not yet ingested and messages not yet answered whose row has
        not moved for longer than a task may run (a dead worker's, or a task lost with its broker)."""
        with self.pool.connection() as conn:
            documents = conn.execute(
                "select id from documents where status in ('uploaded', 'parsed', 'ingesting') "
                "and updated_at < now() - make_interval(secs => %s) order by updated_at",
                (older_than_seconds,),
            ).fetchall()
            messages = conn.execute(
                "select id from messages where role = 'assistant' and status in ('pending', 'processing') "
                "and updated_at < now() - make_interval(secs => %s) order by updated_at",
                (older_than_seconds,),
            ).fetchall()
        return [str(r["id"]) for r in documents], [str(r["id"]) for r in messages]


class PostgresSegmentSource:
    """The workspace tier of the fallback: lookups by id, and full-text candidates (design §5.5)."""

    def __init__(self, store: PostgresStore | SupabaseStore, workspace_id: str):
        self.store = store
        self.workspace_id = workspace_id

    def lookup(self, segment_ids: Iterable[str]) -> dict[str, Segment]:
        return self.store.segments_by_ids(self.workspace_id, segment_ids)

    def candidates(self, text: str, limit: int) -> list[Segment]:
        return self.store.search_segments(self.workspace_id, text, limit)
