"""The `supabase` store, checked on the exact HTTP requests it sends.

PostgREST and Realtime cannot run here, so this is the one place that mocks HTTP (respx answers with the
shapes PostgREST returns); everything else in the suite talks to real servers. What the service role may do is
checked on a real database instead (below).
"""

from __future__ import annotations

import json
import uuid

import httpx
import orjson
import psycopg
import pytest
import respx
from supabase_like import as_role

from ingest import Segment
from worker.migrate import apply_migrations
from worker.settings import Settings
from worker.stores.rows import DOCUMENT_COLUMNS, SEGMENT_COLUMNS, DuplicateContent
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
    assert body == {"p_workspace": WS, "p_terms": ["2024", "budget"], "p_limit": 10, "p_documents": None}
    # A scope goes to the same function, its ids checked here: one that is not a UUID names no document.
    supabase.search_segments(WS, ["budget"], 5, {DOC, "not-an-id"})
    body = json.loads(route.calls.last.request.content)
    assert body == {"p_workspace": WS, "p_terms": ["budget"], "p_limit": 5, "p_documents": [DOC]}
    calls = route.call_count
    assert supabase.search_segments(WS, ["budget"], 5, {"not-an-id"}) == [] and route.call_count == calls


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
    assert documents.calls.last.request.url.params["status"] == "in.(uploaded,parsing,parsed,ingesting,deleting)"
    assert messages.calls.last.request.url.params["status"] == "in.(pending,processing)"
    assert messages.calls.last.request.url.params["role"] == "eq.assistant"
    assert supabase.stale(960, started_only=True) == ([DOC], [])  # the periodic pass: queued work is left alone
    assert documents.calls.last.request.url.params["status"] == "in.(parsing,parsed,ingesting,deleting)"
    assert messages.calls.last.request.url.params["status"] == "in.(processing)"
    assert documents.calls.last.request.url.params["updated_at"].startswith("lt.")


# The service role's grants, on a real database ----------------------------------------------------------
# PostgREST runs each request of the store as the key's role, `service_role`; since 2026-10-30 Supabase grants
# that role nothing on new tables and functions, so the store works only with what the migrations grant it.
# Every kind of request the store sends above is run here as the SQL PostgREST makes of it, as `service_role`,
# on a Supabase-like database under both grant regimes (the `grants` fixture).


@pytest.fixture(scope="module")
def workers_database(supabase_like_database: str) -> str:
    apply_migrations(supabase_like_database)
    return supabase_like_database


def test_the_service_role_may_send_every_request_of_the_store(workers_database: str, grants: str) -> None:
    workspace, document = str(uuid.uuid4()), str(uuid.uuid4())
    documents = ", ".join(DOCUMENT_COLUMNS)
    segments = ", ".join(SEGMENT_COLUMNS)
    with psycopg.connect(workers_database) as conn:
        as_role(conn, "service_role", orjson.dumps({"role": "service_role"}).decode())
        run = conn.execute
        # create_document, get_document, documents, document_with_content, update_document
        run(
            f"insert into documents (id, workspace_id, filename, docai_raw_r2_key, content_hash) "
            f"values (%s, %s, 'a.json', 'k', 'abc') returning {documents}",
            (document, workspace),
        )
        run(f"select {documents} from documents where workspace_id = %s and content_hash = 'abc'", (workspace,))
        run(
            f"update documents set status = 'ingesting', progress = 0.5 where id = %s returning {documents}",
            (document,),
        )
        # replace_segments, delete_segments, segments_by_ids, search_segments (the RPC)
        run("delete from document_segments where document_id = %s", (document,))
        run(
            f"insert into document_segments ({segments}) values (%s, 0, %s, 0, 'paragraph', 'Budget 2024', 0, 11, "
            f"null, null) returning {segments}",
            (document, workspace),
        )
        run(f"select {segments} from document_segments where workspace_id = %s and segment_index in (0)", (workspace,))
        found = run("select * from segcite_search_segments(%s, %s, 10)", (workspace, ["budget"])).fetchall()
        assert len(found) == 1
        scoped = "select * from segcite_search_segments(%s, %s, 10, %s::uuid[])"
        assert len(run(scoped, (workspace, ["budget"], [document])).fetchall()) == 1
        assert run(scoped, (workspace, ["budget"], [str(uuid.uuid4())])).fetchall() == []
        # create_conversation, create_message, get_message (embeds the conversation), history, update_message
        conversation = run("insert into conversations (workspace_id) values (%s) returning *", (workspace,)).fetchone()[
            0
        ]
        message = run(
            "insert into messages (conversation_id, role, content, status) values (%s, 'assistant', '', 'pending') "
            "returning *",
            (conversation,),
        ).fetchone()[0]
        run(
            "select m.*, c.workspace_id from messages m join conversations c on c.id = m.conversation_id "
            "where m.id = %s",
            (message,),
        )
        run("update messages set status = 'done', content = 'x', metadata = '{}' where id = %s returning *", (message,))
        # stale
        run("select id from documents where status = any('{parsed,ingesting}') and updated_at < now()")
        # the inbox, which the polling taker reads and writes through PostgREST
        run("select task, target from segcite_inbox where task = 'answer_message' for update skip locked")
        run("update segcite_inbox set claimed_until = now() where target = %s", (message,))
        run("delete from segcite_inbox where target = %s", (message,))
        # replace_page_images, page_images, delete_page_images (011_page_images.sql)
        run(
            "insert into document_pages (document_id, page_idx, workspace_id, image_key, mime, width, height) "
            "values (%s, 0, %s, 'k.pages/1.png', 'image/png', 10, 20)",
            (document, workspace),
        )
        run("select image_key from document_pages where image_key in ('k.pages/1.png')")
        run("delete from document_pages where document_id = %s returning image_key", (document,))
        # an Edge Function with the service key manages memberships
        run("insert into workspace_members (workspace_id, user_id) values (%s, %s)", (workspace, document))
        run("delete from workspace_members where workspace_id = %s", (workspace,))
        run("delete from documents where id = %s", (document,))
        conn.rollback()


def test_the_service_role_gets_no_more_than_the_workers_need(workers_database: str, grants: str) -> None:
    """Today's Supabase: nothing beyond the explicit grants (no truncate, no member RPCs, no trigger function)."""
    with psycopg.connect(workers_database) as conn:
        truncate = conn.execute("select has_table_privilege('service_role', 'documents', 'TRUNCATE')").fetchone()[0]
        ask = conn.execute("select has_function_privilege('service_role', 'segcite_ask(uuid,text,uuid[])', 'EXECUTE')")
        assert ask.fetchone()[0] is False
    assert truncate is (grants == "legacy")


def test_page_images_are_replaced_and_only_unshared_keys_given_back(store) -> None:
    from worker.stores.rows import PageImageRow

    supabase, mock = store
    old = [{"image_key": "ws/a.pages/1-old.png"}, {"image_key": "ws/a.pages/2-shared.png"}]
    delete = mock.delete(f"{URL}/rest/v1/document_pages").mock(return_value=httpx.Response(200, json=old))
    insert = mock.post(f"{URL}/rest/v1/document_pages").mock(return_value=httpx.Response(201, json=[]))
    still_used = mock.get(f"{URL}/rest/v1/document_pages").mock(
        return_value=httpx.Response(200, json=[{"image_key": "ws/a.pages/2-shared.png"}])  # another document's
    )
    page = PageImageRow(DOC, 0, "ws/a.pages/1-new.png", "image/png", 1758, 2275)
    assert supabase.replace_page_images(supabase_document(), [page]) == ["ws/a.pages/1-old.png"]
    assert delete.calls.last.request.url.params["document_id"] == f"eq.{DOC}"
    assert json.loads(insert.calls.last.request.content) == [
        {"document_id": DOC, "page_idx": 0, "image_key": "ws/a.pages/1-new.png", "mime": "image/png",
         "width": 1758, "height": 2275, "workspace_id": WS}
    ]  # fmt: skip
    asked = still_used.calls.last.request.url.params["image_key"]
    assert asked == "in.(ws/a.pages/1-old.png,ws/a.pages/2-shared.png)"


def test_the_last_answer_of_a_workspace_is_asked_through_its_conversations(store) -> None:
    supabase, mock = store
    found = mock.get(f"{URL}/rest/v1/messages").mock(return_value=httpx.Response(200, json=[]))
    assert supabase.last_answer(WS) is None
    params = found.calls.last.request.url.params
    assert params["conversations.workspace_id"] == f"eq.{WS}"
    assert (params["role"], params["status"], params["order"], params["limit"]) == (
        "eq.assistant",
        "eq.done",
        "updated_at.desc",
        "1",
    )
    assert params["select"] == "id,conversations!inner(workspace_id)"


def test_workspaces_are_grouped_from_every_page_of_documents_and_conversations(store) -> None:
    """PostgREST does not group: the store reads the rows a page at a time (in id order) and counts them itself."""
    supabase, mock = store
    other = str(uuid.uuid4())
    first_page = [
        {"workspace_id": WS, "status": "ingested", "segment_count": 4, "updated_at": "2025-03-01T12:00:00+00:00"}
    ] * 1000
    last_page = [
        {"workspace_id": WS, "status": "deleted", "segment_count": 0, "updated_at": "2025-03-02T12:00:00+00:00"},
        {"workspace_id": other, "status": "failed", "segment_count": None, "updated_at": "2025-01-01T00:00:00+00:00"},
    ]
    documents = mock.get(f"{URL}/rest/v1/documents").mock(
        side_effect=[httpx.Response(200, json=first_page), httpx.Response(200, json=last_page)]
    )
    talks = mock.get(f"{URL}/rest/v1/conversations").mock(
        return_value=httpx.Response(200, json=[{"workspace_id": other, "updated_at": "2025-04-01T08:00:00+00:00"}])
    )
    stats = supabase.workspaces()
    assert [(s.workspace_id, s.documents, s.segments, s.last_activity.isoformat()) for s in stats] == [
        (other, 1, 0, "2025-04-01T08:00:00+00:00"),  # a question asked there last
        (WS, 1000, 4000, "2025-03-02T12:00:00+00:00"),  # a deleted document: not counted, but it was activity
    ]
    pages = [(call.request.url.params["offset"], call.request.url.params["limit"]) for call in documents.calls]
    assert pages == [("0", "1000"), ("1000", "1000")]
    assert documents.calls.last.request.url.params["order"] == "id.asc"
    assert talks.calls.last.request.url.params["select"] == "workspace_id,updated_at:created_at"
