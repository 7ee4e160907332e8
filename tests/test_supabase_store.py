"""The `supabase` store, checked on the exact HTTP requests it sends.

PostgREST and Realtime cannot run here, so this is the one place that mocks HTTP (respx answers with the
shapes PostgREST returns); everything else in the suite talks to real servers.
"""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
import respx

from ingest import Segment
from worker.settings import Settings
from worker.stores.rows import DuplicateContent
from worker.stores.supabase import SupabaseStore

URL = "https://project.supabase.co"
KEY = "service-role-key-0123456789"
DOC = str(uuid.uuid4())
WS = str(uuid.uuid4())


def document_row(**over) -> dict:
    return {
        "id": DOC,
        "workspace_id": WS,
        "filename": "a.json",
        "status": "ingesting",
        "docai_raw_r2_key": "k",
        "page_count": 2,
        "segment_count": 5,
        "error": None,
        "progress": 0.5,
        "updated_at": None,
        **over,
    }


@pytest.fixture
def store():
    settings = Settings(segcite_store="supabase", supabase_url=URL, supabase_service_role_key=KEY)
    with respx.mock(assert_all_called=False) as mock:
        yield SupabaseStore(settings), mock


def test_update_document_patches_the_row_then_broadcasts(store) -> None:
    supabase, mock = store
    patch = mock.patch(f"{URL}/rest/v1/documents").mock(
        return_value=httpx.Response(200, json=[document_row(status="ingested", progress=1.0)])
    )
    broadcast = mock.post(f"{URL}/realtime/v1/api/broadcast").mock(return_value=httpx.Response(202))
    row = supabase.update_document(DOC, status="ingested", progress=1.0)
    assert row.status == "ingested"

    request = patch.calls.last.request
    assert request.url.params["id"] == f"eq.{DOC}"
    assert json.loads(request.content) == {"status": "ingested", "progress": 1.0}
    assert request.headers["apikey"] == KEY

    sent = broadcast.calls.last.request
    assert sent.headers["Authorization"] == f"Bearer {KEY}" and sent.headers["apikey"] == KEY
    assert json.loads(sent.content) == {
        "messages": [
            {
                "topic": f"workspace:{WS}",
                "event": "document.status_updated",
                "private": True,
                "payload": {
                    "document_id": DOC,
                    "status": "ingested",
                    "progress": 1.0,
                    "error": None,
                    "page_count": 2,
                    "segment_count": 5,
                },
            }
        ]
    }


def test_large_message_event_sends_only_id_and_status(store) -> None:
    supabase, mock = store
    message_id, conversation_id = str(uuid.uuid4()), str(uuid.uuid4())
    huge = {"citations": ["x" * 300_000]}
    row = {
        "id": message_id,
        "conversation_id": conversation_id,
        "role": "assistant",
        "reply_to": None,
        "content": "answer",
        "status": "done",
        "metadata": huge,
        "error": None,
        "created_at": None,
        "updated_at": None,
        "conversations": {"workspace_id": WS},
    }
    mock.patch(f"{URL}/rest/v1/messages").mock(return_value=httpx.Response(200, json=[{"id": message_id}]))
    mock.get(f"{URL}/rest/v1/messages").mock(return_value=httpx.Response(200, json=[row]))
    broadcast = mock.post(f"{URL}/realtime/v1/api/broadcast").mock(return_value=httpx.Response(202))
    supabase.update_message(message_id, status="done", content="answer", metadata=huge)
    [message] = json.loads(broadcast.calls.last.request.content)["messages"]
    assert message["topic"] == f"conversation:{conversation_id}"
    assert message["payload"] == {"message_id": message_id, "status": "done"}


def test_replace_segments_deletes_then_inserts(store) -> None:
    supabase, mock = store
    delete = mock.delete(f"{URL}/rest/v1/document_segments").mock(return_value=httpx.Response(200, json=[]))
    insert = mock.post(f"{URL}/rest/v1/document_segments").mock(return_value=httpx.Response(201, json=[]))
    segments = [Segment(DOC, i, 0, "paragraph", f"text {i}", 0, 6, None) for i in range(3)]
    supabase.replace_segments(supabase_document(), segments)
    assert delete.calls.last.request.url.params["document_id"] == f"eq.{DOC}"
    rows = json.loads(insert.calls.last.request.content)
    assert [r["segment_index"] for r in rows] == [0, 1, 2]
    assert rows[0]["workspace_id"] == WS and "segment_id" not in rows[0]


def supabase_document():
    from worker.stores.rows import DocumentRow

    return DocumentRow.from_row(document_row())


def test_search_calls_the_ranked_search_function(store) -> None:
    supabase, mock = store
    route = mock.post(f"{URL}/rest/v1/rpc/segcite_search_segments").mock(
        return_value=httpx.Response(
            200,
            json=[
                {
                    "document_id": DOC,
                    "segment_index": 4,
                    "workspace_id": WS,
                    "page_idx": 1,
                    "kind": "paragraph",
                    "text": "Budget 2024",
                    "char_start": None,
                    "char_end": None,
                    "bbox": None,
                },
            ],
        )
    )
    found = supabase.search_segments(WS, ["2024", "budget"], 10)
    assert [s.segment_id for s in found] == [f"{DOC}:4"]
    body = json.loads(route.calls.last.request.content)
    assert body == {"p_workspace": WS, "p_terms": ["2024", "budget"], "p_limit": 10}


def test_broadcast_server_errors_are_transient(store) -> None:
    from worker.errors import TransientError

    supabase, mock = store
    mock.patch(f"{URL}/rest/v1/documents").mock(return_value=httpx.Response(200, json=[document_row()]))
    mock.post(f"{URL}/realtime/v1/api/broadcast").mock(return_value=httpx.Response(503))
    with pytest.raises(TransientError):
        supabase.update_document(DOC, progress=0.5)


def test_missing_settings_say_what_is_needed() -> None:
    from worker.errors import PermanentError

    with pytest.raises(PermanentError, match="SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY"):
        SupabaseStore(Settings(segcite_store="supabase"))


def test_documents_of_a_workspace_leave_deleted_ones_out_unless_asked(store) -> None:
    supabase, mock = store
    route = mock.get(f"{URL}/rest/v1/documents").mock(
        return_value=httpx.Response(200, json=[document_row(status="ingested", updated_at="2025-03-01T12:00:00+00:00")])
    )
    [row] = supabase.documents(WS)
    assert (row.id, row.status, row.updated_at.isoformat()) == (DOC, "ingested", "2025-03-01T12:00:00+00:00")
    params = route.calls.last.request.url.params
    assert (params["workspace_id"], params["status"], params["order"]) == (
        f"eq.{WS}",
        "neq.deleted",
        "created_at.asc,id.asc",
    )
    supabase.documents(WS, include_deleted=True)
    assert "status" not in route.calls.last.request.url.params


def test_the_same_content_twice_gives_the_existing_document(store) -> None:
    """PostgREST refuses the insert with 409 / 23505 (the unique index of 006_content_hash.sql): the store
    answers with the document that holds the content."""
    supabase, mock = store
    insert = mock.post(f"{URL}/rest/v1/documents").mock(
        return_value=httpx.Response(
            409, json={"code": "23505", "message": "duplicate key value", "details": None, "hint": None}
        )
    )
    lookup = mock.get(f"{URL}/rest/v1/documents").mock(
        return_value=httpx.Response(200, json=[document_row(status="ingested", content_hash="abc")])
    )
    with pytest.raises(DuplicateContent) as same:
        supabase.create_document(WS, "copy.json", "docai/new.json", str(uuid.uuid4()), content_hash="abc")
    assert (same.value.existing.id, same.value.existing.content_hash) == (DOC, "abc")
    assert json.loads(insert.calls.last.request.content)["content_hash"] == "abc"
    params = lookup.calls.last.request.url.params
    assert (params["workspace_id"], params["content_hash"], params["status"]) == (f"eq.{WS}", "eq.abc", "neq.deleted")


def test_other_refusals_of_a_new_document_stay_permanent_errors(store) -> None:
    from worker.errors import PermanentError

    supabase, mock = store
    mock.post(f"{URL}/rest/v1/documents").mock(
        return_value=httpx.Response(400, json={"code": "23514", "message": "check violation"})
    )
    with pytest.raises(PermanentError, match=r"\(23514\): check violation"):
        supabase.create_document(WS, "a.json", "docai/a.json", content_hash="abc")


def test_deltas_go_to_the_conversation_topic_and_only_their_seq_when_too_large(store) -> None:
    from worker.stores.rows import MessageRow, MessageStatus, Role

    supabase, mock = store
    broadcast = mock.post(f"{URL}/realtime/v1/api/broadcast").mock(return_value=httpx.Response(202))
    conversation = str(uuid.uuid4())
    message = MessageRow(DOC, conversation, WS, Role.ASSISTANT, None, "", MessageStatus.PROCESSING)
    delta = {"message_id": DOC, "seq": 3, "sections": [{"content": "One [1].", "citations": []}], "tail": "Tw"}
    supabase.publish_delta(message, delta)
    [sent] = json.loads(broadcast.calls.last.request.content)["messages"]
    assert sent == {
        "topic": f"conversation:{conversation}",
        "event": "message.delta",
        "private": True,
        "payload": delta,
    }
    supabase.publish_delta(message, {**delta, "tail": "x" * 300_000})  # over Realtime's limit: the client waits
    [sent] = json.loads(broadcast.calls.last.request.content)["messages"]
    assert sent["payload"] == {"message_id": DOC, "seq": 3}


def test_stale_work_asks_for_unfinished_rows_or_only_started_ones(store) -> None:
    supabase, mock = store
    documents = mock.get(f"{URL}/rest/v1/documents").mock(return_value=httpx.Response(200, json=[{"id": DOC}]))
    messages = mock.get(f"{URL}/rest/v1/messages").mock(return_value=httpx.Response(200, json=[]))
    assert supabase.stale(960) == ([DOC], [])
    assert documents.calls.last.request.url.params["status"] == "in.(uploaded,parsed,ingesting,deleting)"
    assert messages.calls.last.request.url.params["status"] == "in.(pending,processing)"
    assert messages.calls.last.request.url.params["role"] == "eq.assistant"
    assert supabase.stale(960, started_only=True) == ([DOC], [])  # the periodic pass: queued work is left alone
    assert documents.calls.last.request.url.params["status"] == "in.(parsed,ingesting,deleting)"
    assert messages.calls.last.request.url.params["status"] == "in.(processing)"
    assert documents.calls.last.request.url.params["updated_at"].startswith("lt.")
