"""The `postgres` store (design §6): rows and realtime events on any PostgreSQL, Supabase's included.

Every status change updates its row and sends its event in one transaction: `realtime.send(...)` where
Supabase's realtime schema exists, else `pg_notify(<topic>, …)` (what tests and plain PostgreSQL LISTEN to).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import orjson
import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ingest import Segment, is_uuid, parse_segment_id
from worker.stores.rows import (
    DELTA_EVENT,
    DOCUMENT_COLUMNS,
    DOCUMENT_EVENT,
    DOCUMENT_FIELDS,
    MAX_EVENT_BYTES,
    MESSAGE_EVENT,
    MESSAGE_FIELDS,
    SEGMENT_COLUMNS,
    ConversationRow,
    DocumentRow,
    DuplicateContent,
    InboxStat,
    MessageRow,
    MessageStatus,
    PageImageRow,
    Role,
    WorkspaceStat,
    check_fields,
    scope_ids,
    segment_from_row,
    segment_to_row,
    unfinished,
)

# pg_notify payloads are capped at 8000 bytes by PostgreSQL.
MAX_NOTIFY_BYTES = 7_900
_DOCUMENT_SELECT = ", ".join(DOCUMENT_COLUMNS)
# The unique index of migrations/006_content_hash.sql: one live document per content in a workspace.
_LIVE_CONTENT = "(workspace_id, content_hash) where content_hash is not null and status <> 'deleted'"
_MESSAGE_SELECT = (
    "select m.id, m.conversation_id, c.workspace_id, m.role, m.reply_to, m.content, m.status, m.metadata, "
    "m.error, m.created_at, m.updated_at, m.document_ids, c.document_ids as conversation_document_ids "
    "from messages m join conversations c on c.id = m.conversation_id where m.id = %s"
)
# Each workspace that holds a document or a conversation: its live documents and segments, and its last change.
_WORKSPACES = """
with docs as (
    select workspace_id, count(*) filter (where status <> 'deleted') as documents,
           coalesce(sum(segment_count) filter (where status <> 'deleted'), 0) as segments, max(updated_at) as last
    from documents group by workspace_id
), talk as (
    select c.workspace_id, greatest(max(c.created_at), max(m.updated_at)) as last
    from conversations c left join messages m on m.conversation_id = c.id group by c.workspace_id
)
select coalesce(docs.workspace_id, talk.workspace_id) as workspace_id, coalesce(docs.documents, 0) as documents,
       coalesce(docs.segments, 0) as segments, greatest(docs.last, talk.last) as last_activity
from docs full join talk on talk.workspace_id = docs.workspace_id
order by last_activity desc nulls last
"""
_SEGMENT_SELECT = ", ".join(f"s.{name}" for name in SEGMENT_COLUMNS)
_JSON_COLUMNS = frozenset({"bbox", "lines", "metadata"})


def _jsonb(value: Any) -> Jsonb | None:
    return None if value is None else Jsonb(value, dumps=lambda v: orjson.dumps(v).decode())


def _message(row: dict[str, Any]) -> MessageRow:
    return MessageRow.from_row(row, row["workspace_id"], row["conversation_document_ids"])


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

    def close(self) -> None:
        self.pool.close()

    # events ------------------------------------------------------------------------------------------

    def _realtime(self, conn: psycopg.Connection) -> bool:
        if self._has_realtime is None:
            found = conn.execute(
                "select to_regprocedure('realtime.send(jsonb,text,text,boolean)') is not null as found"
            ).fetchone()
            self._has_realtime = bool(found and found["found"])
        return self._has_realtime

    def _publish(self, conn: psycopg.Connection, topic: str, event: str, payload: dict, small: dict) -> None:
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
        self,
        workspace_id: str,
        filename: str,
        key: str,
        document_id: str | None = None,
        content_hash: str | None = None,
    ) -> DocumentRow:
        with self.pool.connection() as conn:
            row = conn.execute(
                "insert into documents (id, workspace_id, filename, docai_raw_r2_key, content_hash) "
                f"values (%s, %s, %s, %s, %s) on conflict {_LIVE_CONTENT} do nothing returning {_DOCUMENT_SELECT}",
                (document_id or str(uuid.uuid4()), workspace_id, filename, key, content_hash),
            ).fetchone()
        if row is not None:
            return DocumentRow.from_row(row)
        existing = self.document_with_content(workspace_id, content_hash or "")
        if existing is None:  # deleted between the conflict and this read: the caller may simply try again
            raise LookupError(f"a document with the same content appeared and vanished in workspace {workspace_id}")
        raise DuplicateContent(existing)

    def get_document(self, document_id: str) -> DocumentRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(f"select {_DOCUMENT_SELECT} from documents where id = %s", (document_id,)).fetchone()
        return DocumentRow.from_row(row) if row else None

    def documents(self, workspace_id: str, *, include_deleted: bool = False) -> list[DocumentRow]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                f"select {_DOCUMENT_SELECT} from documents where workspace_id = %s and (%s or status <> 'deleted') "
                "order by created_at, id",
                (workspace_id, include_deleted),
            ).fetchall()
        return [DocumentRow.from_row(r) for r in rows]

    def workspaces(self) -> list[WorkspaceStat]:
        with self.pool.connection() as conn:
            return [WorkspaceStat.from_row(r) for r in conn.execute(_WORKSPACES).fetchall()]

    def document_with_content(self, workspace_id: str, content_hash: str) -> DocumentRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                f"select {_DOCUMENT_SELECT} from documents "
                "where workspace_id = %s and content_hash = %s and status <> 'deleted'",
                (workspace_id, content_hash),
            ).fetchone()
        return DocumentRow.from_row(row) if row else None

    def update_document(self, document_id: str, **fields: Any) -> DocumentRow:
        check_fields(fields, DOCUMENT_FIELDS, "document")
        assignments = ", ".join(f"{name} = %({name})s" for name in fields)
        with self.pool.connection() as conn, conn.transaction():
            row = conn.execute(
                f"update documents set {assignments} where id = %(id)s returning {_DOCUMENT_SELECT}",
                {**fields, "id": document_id},
            ).fetchone()
            if row is None:
                raise LookupError(f"document {document_id} does not exist")
            document = DocumentRow.from_row(row)
            self._publish(conn, document.topic, DOCUMENT_EVENT, document.event(), document.brief())
        return document

    def replace_segments(self, document: DocumentRow, segments: Sequence[Segment]) -> None:
        """The document's segments become exactly these (a redelivered ingest never appends twice). One COPY:
        the statement triggers of migrations/010 count the document's terms once, not once per segment."""
        rows = [
            tuple(_jsonb(v) if k in _JSON_COLUMNS else v for k, v in segment_to_row(s, document.workspace_id).items())
            for s in segments
        ]
        columns = ", ".join(segment_to_row(segments[0], "").keys()) if segments else ""
        with self.pool.connection() as conn, conn.transaction():
            # Not waiting for the disk: the document's `ingested` commit, later, does (worker/rag.py's settings).
            conn.execute("set local synchronous_commit = off")
            conn.execute("delete from document_segments where document_id = %s", (document.id,))
            if rows:
                with conn.cursor().copy(f"copy document_segments ({columns}) from stdin") as copy:
                    for row in rows:
                        copy.write_row(row)

    def delete_segments(self, document_id: str) -> None:
        with self.pool.connection() as conn:
            conn.execute("delete from document_segments where document_id = %s", (document_id,))

    def segments_by_ids(self, workspace_id: str, segment_ids: Iterable[str]) -> dict[str, Segment]:
        pairs = [p for p in map(parse_segment_id, segment_ids) if p and is_uuid(p[0])]
        if not pairs:
            return {}
        with self.pool.connection() as conn:
            rows = conn.execute(
                f"select {_SEGMENT_SELECT} from document_segments s join unnest(%s::uuid[], %s::int[]) as "
                "wanted(d, i) on s.document_id = wanted.d and s.segment_index = wanted.i where s.workspace_id = %s",
                ([d for d, _ in pairs], [i for _, i in pairs], workspace_id),
            ).fetchall()
        return {segment.segment_id: segment for segment in map(segment_from_row, rows)}

    def search_segments(
        self, workspace_id: str, terms: Sequence[str], limit: int, scope: Collection[str] | None = None
    ) -> list[Segment]:
        """Full-text hits for any of `terms`, best ranked first; with a `scope`, only those documents'
        (migrations/016_search_scope.sql)."""
        documents = scope_ids(scope)
        if not terms or documents == []:
            return []
        with self.pool.connection() as conn:
            rows = conn.execute(
                f"select {_SEGMENT_SELECT} from segcite_search_segments(%s, %s, %s, %s::uuid[]) s",
                (workspace_id, list(terms), limit, documents),
            ).fetchall()
        return [segment_from_row(r) for r in rows]

    # page images (migrations/011_page_images.sql) ---------------------------------------------------------

    def page_images(self, document_ids: Iterable[str]) -> dict[tuple[str, int], PageImageRow]:
        ids = [d for d in set(document_ids) if is_uuid(d)]
        if not ids:
            return {}
        with self.pool.connection() as conn:
            rows = conn.execute(
                "select document_id, page_idx, image_key, mime, width, height from document_pages "
                "where document_id = any(%s::uuid[])",
                (ids,),
            ).fetchall()
        pages = map(PageImageRow.from_row, rows)
        return {(p.document_id, p.page_idx): p for p in pages}

    def replace_page_images(self, document: DocumentRow, pages: Sequence[PageImageRow]) -> list[str]:
        rows = [tuple(p.to_row(document.workspace_id).values()) for p in pages]
        with self.pool.connection() as conn, conn.transaction():
            old = conn.execute(
                "delete from document_pages where document_id = %s returning image_key", (document.id,)
            ).fetchall()
            if rows:
                columns = ", ".join(pages[0].to_row("").keys())
                placeholders = ", ".join(["%s"] * len(rows[0]))
                with conn.cursor() as cursor:
                    cursor.executemany(f"insert into document_pages ({columns}) values ({placeholders})", rows)
            return _unreferenced(conn, [r["image_key"] for r in old])

    def delete_page_images(self, document_id: str) -> list[str]:
        with self.pool.connection() as conn, conn.transaction():
            old = conn.execute(
                "delete from document_pages where document_id = %s returning image_key", (document_id,)
            ).fetchall()
            return _unreferenced(conn, [r["image_key"] for r in old])

    # conversations and messages -------------------------------------------------------------------------

    def create_conversation(self, workspace_id: str, document_ids: Sequence[str] | None = None) -> str:
        with self.pool.connection() as conn:
            row = conn.execute(
                "insert into conversations (workspace_id, document_ids) values (%s, %s::uuid[]) returning id",
                (workspace_id, _ids(document_ids)),
            )
            return str(row.fetchone()["id"])

    def get_conversation(self, conversation_id: str) -> ConversationRow | None:
        if not is_uuid(conversation_id):
            return None
        with self.pool.connection() as conn:
            row = conn.execute(
                "select id, workspace_id, document_ids from conversations where id = %s", (conversation_id,)
            ).fetchone()
        return ConversationRow.from_row(row) if row else None

    def create_message(
        self,
        conversation_id: str,
        role: Role,
        content: str,
        reply_to: str | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> MessageRow:
        status = MessageStatus.PENDING if role == Role.ASSISTANT else MessageStatus.DONE
        with self.pool.connection() as conn:
            row = conn.execute(
                "insert into messages (conversation_id, role, content, reply_to, status, document_ids) "
                "values (%s, %s, %s, %s, %s, %s::uuid[]) returning id",
                (conversation_id, str(role), content, reply_to, str(status), _ids(document_ids)),
            ).fetchone()
            return _message(conn.execute(_MESSAGE_SELECT, (row["id"],)).fetchone())

    def get_message(self, message_id: str) -> MessageRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(_MESSAGE_SELECT, (message_id,)).fetchone()
        return _message(row) if row else None

    def history(self, message: MessageRow, limit: int) -> list[dict[str, str]]:
        """Earlier turns of the conversation, oldest first, without the question being answered."""
        anchor = message.reply_to or message.id
        with self.pool.connection() as conn:
            rows = conn.execute(
                "select role, content from messages where conversation_id = %s and created_at < "
                "(select created_at from messages where id = %s) and id <> %s and status = 'done' "
                "order by created_at desc limit %s",
                (message.conversation_id, anchor, anchor, limit),
            ).fetchall()
        return [{"role": r["role"], "content": r["content"]} for r in reversed(rows)]

    def last_answer(self, workspace_id: str | None = None) -> MessageRow | None:
        with self.pool.connection() as conn:
            row = conn.execute(
                "select m.id from messages m join conversations c on c.id = m.conversation_id "
                "where (%(workspace)s::uuid is null or c.workspace_id = %(workspace)s::uuid) "
                "and m.role = 'assistant' and m.status = 'done' order by m.updated_at desc, m.created_at desc limit 1",
                {"workspace": workspace_id},
            ).fetchone()
        return self.get_message(str(row["id"])) if row else None

    def update_message(self, message_id: str, **fields: Any) -> MessageRow:
        message = self._set_message(message_id, fields, unfinished_only=False)
        if message is None:
            raise LookupError(f"message {message_id} does not exist")
        return message

    def finish_message(self, message_id: str, **fields: Any) -> MessageRow | None:
        return self._set_message(message_id, fields, unfinished_only=True)

    def _set_message(self, message_id: str, fields: dict[str, Any], unfinished_only: bool) -> MessageRow | None:
        check_fields(fields, MESSAGE_FIELDS, "message")
        values = {k: _jsonb(v) if k in _JSON_COLUMNS else v for k, v in fields.items()}
        assignments = ", ".join(f"{name} = %({name})s" for name in fields)
        unfinished = " and status in ('pending', 'processing')" if unfinished_only else ""
        with self.pool.connection() as conn, conn.transaction():
            found = conn.execute(
                f"update messages set {assignments} where id = %(id)s{unfinished} returning id",
                {**values, "id": message_id},
            ).fetchone()
            if found is None:
                return None
            message = _message(conn.execute(_MESSAGE_SELECT, (message_id,)).fetchone())
            self._publish(conn, message.topic, MESSAGE_EVENT, message.event(), message.brief())
        return message

    def claim_message(self, message_id: str) -> MessageRow | None:
        with self.pool.connection() as conn, conn.transaction():
            found = conn.execute(
                "update messages set status = 'processing' where id = %s and status = 'pending' returning id",
                (message_id,),
            ).fetchone()
            if found is None:
                return None
            message = _message(conn.execute(_MESSAGE_SELECT, (message_id,)).fetchone())
            self._publish(conn, message.topic, MESSAGE_EVENT, message.event(), message.brief())
        return message

    def publish_delta(self, message: MessageRow, delta: dict[str, Any]) -> None:
        brief = {"message_id": message.id, "seq": delta["seq"]}
        with self.pool.connection() as conn:
            self._publish(conn, message.topic, DELTA_EVENT, delta, brief)

    def stale(self, older_than_seconds: int, started_only: bool = False) -> tuple[list[str], list[str]]:
        """Ids of work nobody finished: documents not yet ingested and messages not yet answered whose row has
        not moved for longer than a task may run (a dead worker's, or a task lost with its broker)."""
        document_statuses, message_statuses = unfinished(started_only)
        with self.pool.connection() as conn:
            documents = conn.execute(
                "select id from documents where status = any(%s) "
                "and updated_at < now() - make_interval(secs => %s) order by updated_at",
                (document_statuses, older_than_seconds),
            ).fetchall()
            messages = conn.execute(
                "select id from messages where role = 'assistant' and status = any(%s) "
                "and updated_at < now() - make_interval(secs => %s) order by updated_at",
                (message_statuses, older_than_seconds),
            ).fetchall()
        return [str(r["id"]) for r in documents], [str(r["id"]) for r in messages]

    def record_work(self, task: str, target: str) -> None:
        with self.pool.connection() as conn:
            conn.execute("select segcite_inbox_add(%s, %s)", (task, target))

    def inbox_stats(self) -> list[InboxStat]:
        with self.pool.connection() as conn:
            rows = conn.execute("select task, waiting, oldest_seconds from segcite_inbox_stats()").fetchall()
        return [InboxStat.from_row(r) for r in rows]

    def inbox_holds(self, task: str, target: str) -> bool:
        with self.pool.connection() as conn:
            return bool(conn.execute("select segcite_inbox_holds(%s, %s) as held", (task, target)).fetchone()["held"])


def _ids(document_ids: Sequence[str] | None) -> list[str] | None:
    return None if document_ids is None else list(document_ids)


def _unreferenced(conn: psycopg.Connection, keys: list[str]) -> list[str]:
    """Of `keys`, those no page row names any more (another document whose JSON is the same object shares them)."""
    if not keys:
        return []
    rows = conn.execute("select distinct image_key from document_pages where image_key = any(%s)", (keys,))
    return sorted(set(keys) - {r["image_key"] for r in rows.fetchall()})
