"""The `supabase` store (design §6): rows through supabase-py's PostgREST client, events through Realtime's
REST broadcast endpoint (`POST /realtime/v1/api/broadcast`). For deployments that reach Supabase over HTTPS
only; LightRAG still needs `DATABASE_URL`.

Unlike the `postgres` store, a row update and its event are two requests, not one transaction: the event is
sent after the row is written, so a client that refetches on an event always sees the new row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import httpx
import orjson

from ingest import Segment
from query.match import SegmentSource, content_words
from worker.providers import PermanentError, TransientError
from worker.settings import Settings
from worker.store import (
    _DOCUMENT_FIELDS,
    _MESSAGE_FIELDS,
    DOCUMENT_EVENT,
    MAX_EVENT_BYTES,
    MESSAGE_EVENT,
    DocumentRow,
    MessageRow,
    _document,
    _segment,
    _split_id,
    check_fields,
)

_DOCUMENT_SELECT = "id,workspace_id,filename,status,docai_raw_r2_key,page_count,segment_count,error,progress,updated_at"
_MESSAGE_SELECT = (
    "id,conversation_id,role,reply_to,content,status,metadata,error,created_at,updated_at,conversations(workspace_id)"
)
_SEGMENT_SELECT = "document_id,segment_index,workspace_id,page_idx,kind,text,char_start,char_end,bbox"
_INSERT_BATCH = 500


def _message(row: dict[str, Any]) -> MessageRow:
    conversation = row.pop("conversations", None) or {}
    return MessageRow(
        **{**row, "workspace_id": str(conversation.get("workspace_id", "")), "metadata": row.get("metadata") or {}}
    )


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
        self, workspace_id: str, filename: str, key: str, document_id: str | None = None
    ) -> DocumentRow:
        row = {"workspace_id": workspace_id, "filename": filename, "docai_raw_r2_key": key}
        if document_id:
            row["id"] = document_id
        return _document(self._table("documents").insert(row).execute().data[0])

    def get_document(self, document_id: str) -> DocumentRow | None:
        rows = self._table("documents").select(_DOCUMENT_SELECT).eq("id", document_id).limit(1).execute().data
        return _document(rows[0]) if rows else None

    def update_document(self, document_id: str, **fields: Any) -> DocumentRow:
        check_fields(fields, _DOCUMENT_FIELDS, "document")
        rows = self._table("documents").update(fields).eq("id", document_id).execute().data
        if not rows:
            raise LookupError(f"document {document_id} does not exist")
        document = _document(rows[0])
        self._broadcast(document.topic, DOCUMENT_EVENT, document.event(), document.brief())
        return document

    def replace_segments(self, document: DocumentRow, segments: Sequence[Segment]) -> None:
        self._table("document_segments").delete().eq("document_id", document.id).execute()
        rows = [
            {
                **{k: v for k, v in s.to_dict().items() if k != "segment_id"},
                "document_id": document.id,
                "workspace_id": document.workspace_id,
            }
            for s in segments
        ]
        for start in range(0, len(rows), _INSERT_BATCH):
            self._table("document_segments").insert(rows[start : start + _INSERT_BATCH]).execute()

    def delete_segments(self, document_id: str) -> None:
        self._table("document_segments").delete().eq("document_id", document_id).execute()

    def segments_by_ids(self, workspace_id: str, segment_ids: Iterable[str]) -> dict[str, Segment]:
        wanted = {p for p in (_split_id(i) for i in segment_ids) if p}
        if not wanted:
            return {}
        rows = (
            self._table("document_segments")
            .select(_SEGMENT_SELECT)
            .eq("workspace_id", workspace_id)
            .in_("document_id", sorted({d for d, _ in wanted}))
            .in_("segment_index", sorted({i for _, i in wanted}))
            .execute()
            .data
        )
        found = (_segment(r) for r in rows)
        return {s.segment_id: s for s in found if (s.document_id, s.segment_index) in wanted}

    def search_segments(self, workspace_id: str, text: str, limit: int) -> list[Segment]:
        """Full-text candidates (PostgREST cannot order by rank: rapidfuzz reranks them anyway)."""
        terms = sorted(content_words(text))[:64]
        if not terms:
            return []
        rows = (
            self._table("document_segments")
            .select(_SEGMENT_SELECT)
            .eq("workspace_id", workspace_id)
            .filter("tsv", "fts(simple)", " | ".join(terms))
            .limit(limit)
            .execute()
            .data
        )
        return [_segment(r) for r in rows]

    def segment_source(self, workspace_id: str) -> SegmentSource:
        from worker.store import PostgresSegmentSource

        return PostgresSegmentSource(self, workspace_id)  # same two calls, over PostgREST

    # conversations and messages -------------------------------------------------------------------------

    def create_conversation(self, workspace_id: str) -> str:
        return str(self._table("conversations").insert({"workspace_id": workspace_id}).execute().data[0]["id"])

    def create_message(self, conversation_id: str, role: str, content: str, reply_to: str | None = None) -> MessageRow:
        row = {
            "conversation_id": conversation_id,
            "role": role,
            "content": content,
            "reply_to": reply_to,
            "status": "pending" if role == "assistant" else "done",
        }
        created = self._table("messages").insert(row).execute().data[0]
        message = self.get_message(str(created["id"]))
        assert message is not None
        return message

    def get_message(self, message_id: str) -> MessageRow | None:
        rows = self._table("messages").select(_MESSAGE_SELECT).eq("id", message_id).limit(1).execute().data
        return _message(rows[0]) if rows else None

    def history(self, message: MessageRow, limit: int) -> list[dict[str, str]]:
        anchor = self.get_message(message.reply_to) if message.reply_to else message
        if anchor is None:
            return []
        rows = (
            self._table("messages")
            .select("role,content")
            .eq("conversation_id", message.conversation_id)
            .eq("status", "done")
            .lt("created_at", str(anchor.created_at))
            .order("created_at", desc=True)
            .limit(limit)
            .execute()
            .data
        )
        return [{"role": r["role"], "content": r["content"]} for r in reversed(rows)]

    def update_message(self, message_id: str, **fields: Any) -> MessageRow:
        check_fields(fields, _MESSAGE_FIELDS, "message")
        rows = self._table("messages").update(fields).eq("id", message_id).execute().data
        if not rows:
            raise LookupError(f"message {message_id} does not exist")
        message = self.get_message(message_id)
        assert message is not None
        self._broadcast(message.topic, MESSAGE_EVENT, message.event(), message.brief())
        return message
