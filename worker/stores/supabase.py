"""The `supabase` store (design §6): rows through supabase-py's PostgREST client, events through Realtime's
REST broadcast endpoint (`POST /realtime/v1/api/broadcast`). For deployments that reach Supabase over HTTPS
only; LightRAG still needs `DATABASE_URL`.

Unlike the `postgres` store, a row update and its event are two requests, not one transaction: the event is
sent after the row is written, so a client that refetches on an event always sees the new row.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
from postgrest.exceptions import APIError

from ingest import Segment, is_uuid, parse_segment_id
from worker.errors import PermanentError, TransientError
from worker.settings import Settings
from worker.stores.rows import (
    DELTA_EVENT,
    DOCUMENT_COLUMNS,
    DOCUMENT_EVENT,
    DOCUMENT_FIELDS,
    MAX_EVENT_BYTES,
    MESSAGE_EVENT,
    MESSAGE_FIELDS,
    MESSAGE_UNFINISHED,
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
    workspace_stats,
)

_DOCUMENT_SELECT = ",".join(DOCUMENT_COLUMNS)
_MESSAGE_SELECT = (
    "id,conversation_id,role,reply_to,content,status,metadata,error,created_at,updated_at,document_ids,"
    "conversations(workspace_id,document_ids)"
)
_SEGMENT_SELECT = ",".join(SEGMENT_COLUMNS)
_PAGE_SELECT = "document_id,page_idx,image_key,mime,width,height"
_INSERT_BATCH = 500
_READ_PAGE = 1000  # rows a listing reads per request (Supabase's PostgREST answers at most `max_rows`, 1000)
# PostgREST's own connection errors (PGRST000-003), and PostgreSQL's classes for a database that is unreachable,
# shutting down or out of resources: worth retrying. Any other refusal will not change on a retry.
_TRANSIENT_CODES = ("PGRST000", "PGRST001", "PGRST002", "PGRST003", "08", "53", "57P")


_UNIQUE_VIOLATION = "23505"


def _code(exc: BaseException) -> str:
    """The PostgreSQL / PostgREST code of the APIError behind one of our errors ("" if none)."""
    cause = exc.__cause__
    return str(cause.code or "") if isinstance(cause, APIError) else ""


def _message(row: dict[str, Any]) -> MessageRow:
    conversation = row.get("conversations") or {}
    return MessageRow.from_row(row, conversation.get("workspace_id", ""), conversation.get("document_ids"))


class SupabaseStore:
    def __init__(self, settings: Settings, client: Any = None, http: httpx.Client | None = None):
        if not settings.supabase_url or not settings.supabase_service_role_key:
            raise PermanentError("SEGCITE_STORE=supabase needs SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY")
        from supabase import create_client

        key = settings.supabase_service_role_key.get_secret_value()
        self.url = settings.supabase_url.rstrip("/")
        self.client = client or create_client(self.url, key)
        self.http = http or httpx.Client(timeout=30, headers={"apikey": key, "Authorization": f"Bearer {key}"})

    def close(self) -> None:
        self.http.close()

    def _table(self, name: str):
        return self.client.table(name)

    @staticmethod
    def _data(request: Any) -> list[dict[str, Any]]:
        """Run one PostgREST request; its library's errors become ours (design §7: transient or permanent)."""
        try:
            return request.execute().data or []
        except httpx.HTTPError as exc:  # connection refused, timeouts
            raise TransientError(f"Supabase unreachable: {exc}") from exc
        except APIError as exc:
            code = str(exc.code or "")
            if code.startswith(_TRANSIENT_CODES):
                raise TransientError(f"Supabase is unavailable ({code}): {exc.message}") from exc
            raise PermanentError(f"Supabase refused the request ({code}): {exc.message}") from exc

    def _broadcast(self, topic: str, event: str, payload: dict[str, Any], small: dict[str, Any]) -> None:
        chosen = payload if len(orjson.dumps(payload)) <= MAX_EVENT_BYTES else small
        body = {"messages": [{"topic": topic, "event": event, "payload": chosen, "private": True}]}
        try:
            response = self.http.post(
                f"{self.url}/realtime/v1/api/broadcast",
                content=orjson.dumps(body),
                headers={"Content-Type": "application/json"},
            )
        except httpx.HTTPError as exc:
            raise TransientError(f"Supabase Realtime unreachable: {exc}") from exc
        if response.status_code >= 500:
            raise TransientError(f"Supabase Realtime answered {response.status_code}")
        if response.status_code >= 400:
            raise PermanentError(f"Supabase Realtime refused the broadcast: {response.status_code} {response.text}")

    # documents ---------------------------------------------------------------------------------------

    def create_document(
        self,
        workspace_id: str,
        filename: str,
        key: str,
        document_id: str | None = None,
        content_hash: str | None = None,
    ) -> DocumentRow:
        row = {
            "id": document_id or str(uuid.uuid4()),
            "workspace_id": workspace_id,
            "filename": filename,
            "docai_raw_r2_key": key,
            "content_hash": content_hash,
        }
        try:
            return DocumentRow.from_row(self._data(self._table("documents").insert(row))[0])
        except PermanentError as exc:
            if _code(exc) != _UNIQUE_VIOLATION or not content_hash:
                raise
            existing = self.document_with_content(workspace_id, content_hash)  # 006_content_hash.sql's index
            if existing is None:
                raise
            raise DuplicateContent(existing) from None

    def get_document(self, document_id: str) -> DocumentRow | None:
        rows = self._data(self._table("documents").select(_DOCUMENT_SELECT).eq("id", document_id).limit(1))
        return DocumentRow.from_row(rows[0]) if rows else None

    def documents(self, workspace_id: str, *, include_deleted: bool = False) -> list[DocumentRow]:
        request = self._table("documents").select(_DOCUMENT_SELECT).eq("workspace_id", workspace_id)
        if not include_deleted:
            request = request.neq("status", "deleted")
        rows = self._data(request.order("created_at").order("id"))
        return [DocumentRow.from_row(r) for r in rows]

    def workspaces(self) -> list[WorkspaceStat]:
        """As the `postgres` store's, grouped here (PostgREST does not group). A conversation's activity is when it
        was opened: a follow-up in an old conversation is not seen, as reading every message would be needed."""
        documents = self._every(lambda: self._table("documents").select("workspace_id,status,segment_count,updated_at"))
        talks = self._every(lambda: self._table("conversations").select("workspace_id,updated_at:created_at"))
        return workspace_stats(documents, talks)

    def _every(self, request: Callable[[], Any]) -> list[dict[str, Any]]:
        """Every row of a listing, `_READ_PAGE` at a time (in id order, so no row is read twice or skipped)."""
        rows: list[dict[str, Any]] = []
        while True:
            page = self._data(request().order("id").range(len(rows), len(rows) + _READ_PAGE - 1))
            rows += page
            if len(page) < _READ_PAGE:
                return rows

    def document_with_content(self, workspace_id: str, content_hash: str) -> DocumentRow | None:
        rows = self._data(
            self._table("documents")
            .select(_DOCUMENT_SELECT)
            .eq("workspace_id", workspace_id)
            .eq("content_hash", content_hash)
            .neq("status", "deleted")
            .limit(1)
        )
        return DocumentRow.from_row(rows[0]) if rows else None

    def update_document(self, document_id: str, **fields: Any) -> DocumentRow:
        check_fields(fields, DOCUMENT_FIELDS, "document")
        rows = self._data(self._table("documents").update(fields).eq("id", document_id))
        if not rows:
            raise LookupError(f"document {document_id} does not exist")
        document = DocumentRow.from_row(rows[0])
        self._broadcast(document.topic, DOCUMENT_EVENT, document.event(), document.brief())
        return document

    def replace_segments(self, document: DocumentRow, segments: Sequence[Segment]) -> None:
        self._data(self._table("document_segments").delete().eq("document_id", document.id))
        rows = [segment_to_row(s, document.workspace_id) for s in segments]
        for start in range(0, len(rows), _INSERT_BATCH):
            self._data(self._table("document_segments").insert(rows[start : start + _INSERT_BATCH]))

    def delete_segments(self, document_id: str) -> None:
        self._data(self._table("document_segments").delete().eq("document_id", document_id))

    def segments_by_ids(self, workspace_id: str, segment_ids: Iterable[str]) -> dict[str, Segment]:
        wanted = {p for p in map(parse_segment_id, segment_ids) if p}
        if not wanted:
            return {}
        rows = self._data(
            self._table("document_segments")
            .select(_SEGMENT_SELECT)
            .eq("workspace_id", workspace_id)
            .in_("document_id", sorted({d for d, _ in wanted}))
            .in_("segment_index", sorted({i for _, i in wanted}))
        )
        found = (segment_from_row(r) for r in rows)
        return {s.segment_id: s for s in found if (s.document_id, s.segment_index) in wanted}

    def search_segments(
        self, workspace_id: str, terms: Sequence[str], limit: int, scope: Collection[str] | None = None
    ) -> list[Segment]:
        """Full-text hits for any of `terms`, best ranked first: the same SQL function as the `postgres` store
        (migrations/016_search_scope.sql), called through PostgREST's RPC; a `scope` is its `p_documents`."""
        documents = scope_ids(scope)
        if not terms or documents == []:
            return []
        params = {"p_workspace": workspace_id, "p_terms": list(terms), "p_limit": limit, "p_documents": documents}
        rows = self._data(self.client.rpc("segcite_search_segments", params))
        return [segment_from_row(r) for r in rows]

    # page images (migrations/011_page_images.sql) ---------------------------------------------------------

    def page_images(self, document_ids: Iterable[str]) -> dict[tuple[str, int], PageImageRow]:
        ids = sorted(set(document_ids))
        if not ids:
            return {}
        rows = self._data(self._table("document_pages").select(_PAGE_SELECT).in_("document_id", ids))
        pages = map(PageImageRow.from_row, rows)
        return {(p.document_id, p.page_idx): p for p in pages}

    def replace_page_images(self, document: DocumentRow, pages: Sequence[PageImageRow]) -> list[str]:
        old = self._data(self._table("document_pages").delete().eq("document_id", document.id))
        if pages:
            self._data(self._table("document_pages").insert([p.to_row(document.workspace_id) for p in pages]))
        return self._unreferenced([r["image_key"] for r in old])

    def delete_page_images(self, document_id: str) -> list[str]:
        old = self._data(self._table("document_pages").delete().eq("document_id", document_id))
        return self._unreferenced([r["image_key"] for r in old])

    def _unreferenced(self, keys: list[str]) -> list[str]:
        if not keys:
            return []
        used = self._data(self._table("document_pages").select("image_key").in_("image_key", sorted(set(keys))))
        return sorted(set(keys) - {r["image_key"] for r in used})

    # conversations and messages -------------------------------------------------------------------------

    def create_conversation(self, workspace_id: str, document_ids: Sequence[str] | None = None) -> str:
        row = {"workspace_id": workspace_id, "document_ids": None if document_ids is None else list(document_ids)}
        return str(self._data(self._table("conversations").insert(row))[0]["id"])

    def get_conversation(self, conversation_id: str) -> ConversationRow | None:
        if not is_uuid(conversation_id):
            return None
        rows = self._data(
            self._table("conversations").select("id,workspace_id,document_ids").eq("id", conversation_id).limit(1)
        )
        return ConversationRow.from_row(rows[0]) if rows else None

    def create_message(
        self,
        conversation_id: str,
        role: Role,
        content: str,
        reply_to: str | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> MessageRow:
        status = MessageStatus.PENDING if role == Role.ASSISTANT else MessageStatus.DONE
        row = {
            "conversation_id": conversation_id,
            "role": str(role),
            "content": content,
            "reply_to": reply_to,
            "status": str(status),
            "document_ids": None if document_ids is None else list(document_ids),
        }
        created = self._data(self._table("messages").insert(row))[0]
        message = self.get_message(str(created["id"]))
        if message is None:
            raise LookupError(f"message {created['id']} vanished right after it was created")
        return message

    def get_message(self, message_id: str) -> MessageRow | None:
        rows = self._data(self._table("messages").select(_MESSAGE_SELECT).eq("id", message_id).limit(1))
        return _message(rows[0]) if rows else None

    def history(self, message: MessageRow, limit: int) -> list[dict[str, str]]:
        anchor = self.get_message(message.reply_to) if message.reply_to else message
        if anchor is None:
            return []
        rows = self._data(
            self._table("messages")
            .select("role,content")
            .eq("conversation_id", message.conversation_id)
            .eq("status", "done")
            .lt("created_at", str(anchor.created_at))
            .order("created_at", desc=True)
            .limit(limit)
        )
        return [{"role": r["role"], "content": r["content"]} for r in reversed(rows)]

    def last_answer(self, workspace_id: str | None = None) -> MessageRow | None:
        query = self._table("messages").select("id,conversations!inner(workspace_id)")
        if workspace_id is not None:
            query = query.eq("conversations.workspace_id", workspace_id)
        rows = self._data(query.eq("role", "assistant").eq("status", "done").order("updated_at", desc=True).limit(1))
        return self.get_message(str(rows[0]["id"])) if rows else None

    def update_message(self, message_id: str, **fields: Any) -> MessageRow:
        message = self._set_message(message_id, fields, unfinished_only=False)
        if message is None:
            raise LookupError(f"message {message_id} does not exist")
        return message

    def finish_message(self, message_id: str, **fields: Any) -> MessageRow | None:
        return self._set_message(message_id, fields, unfinished_only=True)

    def _set_message(self, message_id: str, fields: dict[str, Any], unfinished_only: bool) -> MessageRow | None:
        check_fields(fields, MESSAGE_FIELDS, "message")
        update = self._table("messages").update(fields).eq("id", message_id)
        if unfinished_only:
            update = update.in_("status", [str(s) for s in MESSAGE_UNFINISHED])
        message = self.get_message(message_id) if self._data(update) else None
        if message is not None:
            self._broadcast(message.topic, MESSAGE_EVENT, message.event(), message.brief())
        return message

    def claim_message(self, message_id: str) -> MessageRow | None:
        rows = self._data(
            self._table("messages").update({"status": "processing"}).eq("id", message_id).eq("status", "pending")
        )
        message = self.get_message(message_id) if rows else None
        if message is not None:
            self._broadcast(message.topic, MESSAGE_EVENT, message.event(), message.brief())
        return message

    def publish_delta(self, message: MessageRow, delta: dict[str, Any]) -> None:
        self._broadcast(message.topic, DELTA_EVENT, delta, {"message_id": message.id, "seq": delta["seq"]})

    def stale(self, older_than_seconds: int, started_only: bool = False) -> tuple[list[str], list[str]]:
        """As the `postgres` store's: unfinished work whose row has not moved for longer than a task may run."""
        document_statuses, message_statuses = unfinished(started_only)
        cutoff = (datetime.now(UTC) - timedelta(seconds=older_than_seconds)).isoformat()
        documents = self._data(
            self._table("documents")
            .select("id")
            .in_("status", document_statuses)
            .lt("updated_at", cutoff)
            .order("updated_at")
        )
        messages = self._data(
            self._table("messages")
            .select("id")
            .eq("role", "assistant")
            .in_("status", message_statuses)
            .lt("updated_at", cutoff)
            .order("updated_at")
        )
        return [str(r["id"]) for r in documents], [str(r["id"]) for r in messages]

    # the inbox (migrations/007_inbox.sql), through its service-role RPCs ---------------------------------

    def record_work(self, task: str, target: str) -> None:
        self._data(self.client.rpc("segcite_inbox_add", {"p_task": task, "p_target": target}))

    def inbox_stats(self) -> list[InboxStat]:
        return [InboxStat.from_row(r) for r in self._data(self.client.rpc("segcite_inbox_stats", {}))]

    def inbox_holds(self, task: str, target: str) -> bool:
        return bool(self._data(self.client.rpc("segcite_inbox_holds", {"p_task": task, "p_target": target})))

    def claim_inbox(self, limit: int, lease_seconds: int) -> list[dict[str, Any]]:
        """Entries nobody holds, oldest first, each hidden from other takers for `lease_seconds`."""
        return self._data(self.client.rpc("segcite_inbox_claim", {"p_limit": limit, "p_lease_seconds": lease_seconds}))

    def finish_inbox(self, entries: Sequence[dict[str, Any]]) -> None:
        """Entries whose tasks were enqueued leave the inbox (those a newer transition released stay)."""
        params = {
            "p_tasks": [e["task"] for e in entries],
            "p_targets": [e["target"] for e in entries],
            "p_claimed_until": [e["claimed_until"] for e in entries],
        }
        self._data(self.client.rpc("segcite_inbox_done", params))
