"""The postgres store on a real PostgreSQL: events with realtime.send where Supabase's schema exists."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from ingest import Segment
from worker.migrate import apply_migrations
from worker.stores import WorkspaceSegments
from worker.stores.postgres import PostgresStore
from worker.stores.rows import DuplicateContent


@pytest.fixture(scope="module")
def migrated(database_without_worker: str) -> str:
    """The rows here keep the statuses the tests give them: a database the session's worker does not serve."""
    return database_without_worker


def test_events_go_through_realtime_send_in_the_same_transaction(fresh_database: str) -> None:
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute(
            """
            create schema realtime;
            create table realtime.sent (payload jsonb, event text, topic text, private boolean);
            create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
            returns void language sql as $$ insert into realtime.sent values (payload, event, topic, private) $$;
            """
        )
    apply_migrations(fresh_database)
    store = PostgresStore(fresh_database, max_size=1)
    try:
        workspace = str(uuid.uuid4())
        document = store.create_document(workspace, "a.json", "docai/a.json")
        store.update_document(document.id, status="ingesting", progress=0.5)
        conversation = store.create_conversation(workspace)
        question = store.create_message(conversation, "user", "q?")
        answer = store.create_message(conversation, "assistant", "", reply_to=question.id)
        store.update_message(answer.id, status="done", content="x" * 300_000, metadata={"k": 1})
        with psycopg.connect(fresh_database) as conn:
            sent = conn.execute("select topic, event, payload, private from realtime.sent order by event").fetchall()
        assert sent[0][:2] == (f"workspace:{workspace}", "document.status_updated")
        assert sent[0][2]["status"] == "ingesting" and sent[0][2]["progress"] == 0.5 and sent[0][3] is True
        # Over 250 KB: only {message_id, status}; the client refetches the row.
        assert sent[1][:3] == (
            f"conversation:{conversation}",
            "message.status_updated",
            {"message_id": answer.id, "status": "done"},
        )
    finally:
        store.close()


def test_segments_are_replaced_never_appended_and_searchable(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    store = PostgresStore(fresh_database, max_size=1)
    try:
        workspace = str(uuid.uuid4())
        document = store.create_document(workspace, "a.json", "docai/a.json")
        first = [
            Segment(document.id, i, i, "paragraph", f"Revenue grew to {i}00 euros in 2024.", None, None, None)
            for i in range(3)
        ]
        store.replace_segments(document, first)
        store.replace_segments(document, first[:2])
        source = WorkspaceSegments(store, workspace)
        assert sorted(source.lookup([f"{document.id}:{i}" for i in range(3)])) == [
            f"{document.id}:0",
            f"{document.id}:1",
        ]
        assert source.lookup(["not-a-uuid:1", f"{uuid.uuid4()}:0"]) == {}
        assert source.lookup([f"{document.id}:0"])[f"{document.id}:0"].page_idx == 0
        found = source.candidates("How much revenue in 2024?", 5)
        assert {s.segment_id for s in found} == {f"{document.id}:0", f"{document.id}:1"}
        assert WorkspaceSegments(store, str(uuid.uuid4())).candidates("revenue 2024", 5) == []  # other workspace
    finally:
        store.close()


def test_full_text_search_ranks_a_rare_word_over_common_ones(migrated: str) -> None:
    """The search keeps a query's rarest terms and scores segments by the rarity of what they hold: one rare
    word ("tax") outranks two common ones, however many segments hold those."""
    store = PostgresStore(migrated, max_size=1)
    try:
        workspace = str(uuid.uuid4())
        document = store.create_document(workspace, "a.json", "docai/a.json")
        prose = "The company added a new line to the report, and the company added it again the next day."
        segments = [Segment(document.id, i, 0, "paragraph", prose, None, None, None) for i in range(8)]
        segments.append(Segment(document.id, 8, 1, "table", "Item | Amount\nTax | $140.00", None, None, None))
        store.replace_segments(document, segments)
        found = store.search_segments(workspace, ["tax", "added", "company", "unknownword"], 3)
        assert [s.segment_index for s in found] == [8, 0, 1]
        assert store.search_segments(workspace, ["unknownword"], 3) == []
        assert store.search_segments(workspace, [], 3) == []
        # Terms are parsed as the indexed text was: punctuation inside a token keeps it whole.
        assert [s.segment_index for s in store.search_segments(workspace, ["$140.00"], 3)] == [8]
    finally:
        store.close()


def test_a_workspace_lists_its_documents_and_holds_one_live_document_per_content(migrated: str) -> None:
    store = PostgresStore(migrated, max_size=1)
    try:
        workspace, other = str(uuid.uuid4()), str(uuid.uuid4())
        first = store.create_document(workspace, "a.json", "docai/a.json", content_hash="h-a")
        second = store.create_document(workspace, "b.json", "docai/b.json", content_hash="h-b")
        unhashed = store.create_document(workspace, "c.json", "docai/c.json")  # written before 006, or by an app
        assert first.content_hash == "h-a" and unhashed.content_hash is None
        assert [d.id for d in store.documents(workspace)] == [first.id, second.id, unhashed.id]
        assert store.documents(other) == []
        assert store.document_with_content(workspace, "h-b") == second
        assert store.document_with_content(other, "h-b") is None

        with pytest.raises(DuplicateContent) as same:
            store.create_document(workspace, "a-copy.json", "docai/a-copy.json", content_hash="h-a")
        assert same.value.existing == first
        assert [d.id for d in store.documents(workspace)] == [first.id, second.id, unhashed.id]  # no second copy
        assert store.create_document(other, "a.json", "docai/o.json", content_hash="h-a").workspace_id == other

        store.update_document(first.id, status="deleted")
        assert [d.id for d in store.documents(workspace)] == [second.id, unhashed.id]
        assert [d.id for d in store.documents(workspace, include_deleted=True)] == [first.id, second.id, unhashed.id]
        assert store.document_with_content(workspace, "h-a") is None  # a deleted document holds nothing
        again = store.create_document(workspace, "a.json", "docai/a2.json", content_hash="h-a")
        assert store.document_with_content(workspace, "h-a") == again
        assert again.updated_at is not None
    finally:
        store.close()


def test_stale_work_is_unfinished_rows_that_have_not_moved_or_only_started_ones(migrated: str) -> None:
    store = PostgresStore(migrated, max_size=1)
    workspace = str(uuid.uuid4())
    queued = store.create_document(workspace, "q.json", "docai/q.json")
    started = store.create_document(workspace, "s.json", "docai/s.json")
    done = store.create_document(workspace, "d.json", "docai/d.json")
    recent = store.create_document(workspace, "r.json", "docai/r.json")
    conversation = store.create_conversation(workspace)
    question = store.create_message(conversation, "user", "Anything?")
    pending = store.create_message(conversation, "assistant", "", reply_to=question.id)
    processing = store.create_message(conversation, "assistant", "", reply_to=question.id)
    try:
        with psycopg.connect(migrated, autocommit=True) as conn:
            conn.execute("set session_replication_role = replica")  # keep the updated_at trigger out of it
            for table, row_id, status in [
                ("documents", queued.id, "uploaded"),
                ("documents", started.id, "ingesting"),
                ("documents", done.id, "ingested"),
                ("messages", question.id, "done"),
                ("messages", pending.id, "pending"),
                ("messages", processing.id, "processing"),
            ]:
                conn.execute(
                    f"update {table} set status = %s, updated_at = now() - interval '2 hours' where id = %s",
                    (status, row_id),
                )
        store.update_document(recent.id, status="ingesting")  # moved just now: its task may still run
        documents, messages = store.stale(3600)
        assert (set(documents), set(messages)) == ({queued.id, started.id}, {pending.id, processing.id})
        assert store.stale(3600, started_only=True) == ([started.id], [processing.id])
    finally:
        # The session's worker shares this database: leave it nothing to reconcile.
        for document in (queued, started, recent):
            store.update_document(document.id, status="failed", error="test row")
        for message in (pending, processing):
            store.update_message(message.id, status="failed", error="test row")
        store.close()
