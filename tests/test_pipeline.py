"""Upload event -> ingested segments and chunks; chat message -> published answer. Real Redis, a real Celery
worker process, real PostgreSQL; events received with LISTEN."""

from __future__ import annotations

import uuid
from pathlib import Path

import orjson
import psycopg
import pytest
from conftest import Listener
from conftest import wait_for as wait_until
from docai_synth import PageSpec, build_document

from worker.app_actions import DOCUMENT_DONE, MESSAGE_DONE, ask, upload, wait_for, workspace_id
from worker.objects import LocalFolderStore
from worker.rag import workspace_name

REPORT = [
    PageSpec(["Harbor Point solar farm covers 42 hectares near Eastwick.", "It joined the grid in March 2021."]),
    PageSpec(
        ["In 2025 the farm generated 61.4 gigawatt hours of electricity for 17,000 homes."],
        table=[["Quarter", "GWh"], ["Q1", "9.8"], ["Q2", "19.6"]],
        table_at=1,
    ),
    PageSpec(["A 12 megawatt hour battery will be installed in 2026."]),
]


@pytest.fixture(scope="module")
def objects(service_home: Path) -> LocalFolderStore:
    return LocalFolderStore(service_home / "objects")  # the worker's SEGCITE_HOME/objects


def write_json(tmp_path: Path, name: str, document: dict) -> Path:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(document))
    return path


def chunk_count(database_url: str, workspace: str, document_id: str) -> int:
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "select count(*) from lightrag_doc_chunks where workspace = %s and full_doc_id = %s",
            (workspace_name(workspace), document_id),
        ).fetchone()[0]


def test_upload_to_cited_answer_end_to_end(celery_worker, store, objects, migrated, tmp_path) -> None:
    workspace = workspace_id(f"e2e-{uuid.uuid4()}")
    document, _ = build_document(REPORT)
    documents_topic = Listener(migrated, f"workspace:{workspace}")
    try:
        item = upload(store, objects, workspace, write_json(tmp_path, "report.json", document))
        row = wait_for(
            lambda: store.get_document(item.document.id),
            lambda r: r.status in DOCUMENT_DONE,
            timeout=120,
            what="the ingest",
        )
        assert row.status == "ingested", row.error
        assert (row.page_count, row.segment_count, row.progress, row.error) == (3, 4, 1.0, None)
        segments = store.segments_by_ids(workspace, [f"{row.id}:{i}" for i in range(4)])
        assert [segments[f"{row.id}:{i}"].page_idx for i in range(4)] == [0, 1, 1, 2]
        assert segments[f"{row.id}:2"].kind == "table"
        assert chunk_count(migrated, workspace, row.id) == 4  # one chunk per segment
        wait_until(
            lambda: any(e["payload"]["status"] == "ingested" for e in documents_topic.events),
            timeout=10,
            what="the ingested event",
        )
        statuses = [e["payload"]["status"] for e in documents_topic.events]
        assert statuses[0] == "ingesting" and "parsed" in statuses and statuses[-1] == "ingested"
        assert all(e["event"] == "document.status_updated" for e in documents_topic.events)
        assert documents_topic.events[-1]["payload"]["segment_count"] == 4
    finally:
        documents_topic.close()

    # A redelivered ingest of an ingested document does nothing.
    result = celery_worker_result("segcite.ingest_document", row.id)
    assert result == {"document_id": row.id, "skipped": "already ingested"}
    assert chunk_count(migrated, workspace, row.id) == 4

    pending = ask(store, workspace, "How much electricity did the farm generate in 2025?")
    conversation_topic = Listener(migrated, f"conversation:{pending.conversation_id}")
    try:
        message = wait_for(
            lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout=60, what="the answer"
        )
        assert message.status == "done", message.error
        assert "61.4 gigawatt hours" in message.content and "[1]" in message.content
        citations = message.metadata["citations"]
        assert citations[0]["document_id"] == row.id and citations[0]["page_idx"] == 1
        assert citations[0]["method"] == "source_id" and citations[0]["citation_status"] == "cited"
        assert message.metadata["stats"]["cited"] >= 1
        # the segments sharing a word with the question ("farm", "electricity", "2025"): not the quarters' table
        # nor the battery's page, which no search has a reason to bring
        assert set(message.metadata["context_ids"]) == {f"{row.id}:{i}" for i in (0, 1)}
        wait_until(
            lambda: any(e["payload"].get("status") == "done" for e in conversation_topic.events),
            timeout=10,
            what="the done event",
        )
        events = conversation_topic.events
        done_at = next(i for i, e in enumerate(events) if e["payload"].get("status") == "done")
        assert events[done_at]["event"] == "message.status_updated"
        assert events[done_at]["payload"]["message_id"] == pending.id
        # The extractive answerer streams too (design §6): deltas, in order, then the final event.
        deltas = [e["payload"] for e in events if e["event"] == "message.delta"]
        assert deltas and all(events.index(e) < done_at for e in events if e["event"] == "message.delta")
        assert [d["seq"] for d in deltas] == list(range(len(deltas)))
        assert all(d["message_id"] == pending.id and "restart" not in d for d in deltas)
        final_sections = message.content.split("\n\n")
        assert [s["content"] for s in deltas[-1]["sections"]] == final_sections
        assert deltas[-1]["sections"][0]["citations"][0]["number"] == 1
    finally:
        conversation_topic.close()

    # A redelivered answer of a done message does nothing.
    assert celery_worker_result("segcite.answer_message", pending.id) == {
        "message_id": pending.id,
        "skipped": "not pending",
    }

    # Delete: segments and chunks go, the row says deleted.
    assert celery_worker_result("segcite.delete_document", row.id) == {"document_id": row.id, "deleted": True}
    assert chunk_count(migrated, workspace, row.id) == 0
    assert store.segments_by_ids(workspace, [f"{row.id}:0"]) == {}
    assert store.get_document(row.id).status == "deleted"


def celery_worker_result(task: str, object_id: str):
    from worker.app import app

    return app.send_task(task, args=[object_id]).get(timeout=60)


def test_reingest_replaces_segments_and_chunks(celery_worker, store, objects, migrated, tmp_path) -> None:
    workspace = workspace_id(f"re-{uuid.uuid4()}")
    first, _ = build_document(REPORT)
    item = upload(store, objects, workspace, write_json(tmp_path, "v1.json", first))
    wait_for(
        lambda: store.get_document(item.document.id),
        lambda r: r.status == "ingested",
        timeout=120,
        what="the first ingest",
    )
    second, _ = build_document([PageSpec(["Only one short page now."])])
    again = upload(store, objects, workspace, write_json(tmp_path, "v2.json", second), item.document.id)
    row = wait_for(
        lambda: store.get_document(again.document.id),
        lambda r: r.status in DOCUMENT_DONE,
        timeout=120,
        what="the re-ingest",
    )
    assert (row.status, row.segment_count, row.page_count) == ("ingested", 1, 1)
    assert chunk_count(migrated, workspace, row.id) == 1
    assert store.segments_by_ids(workspace, [f"{row.id}:1"]) == {}


def test_sharded_document_from_a_prefix(celery_worker, store, objects, migrated, docai_dir) -> None:
    workspace = workspace_id(f"shards-{uuid.uuid4()}")
    item = upload(store, objects, workspace, docai_dir / "invoice_sharded_48p_noimages")
    row = wait_for(
        lambda: store.get_document(item.document.id),
        lambda r: r.status in DOCUMENT_DONE,
        timeout=180,
        what="the sharded ingest",
    )
    # 3 segments a page, then the invoice's 24 distinct fields (form fields and entities; design §3 "Fields")
    assert (row.status, row.page_count, row.segment_count) == ("ingested", 48, 144 + 24)
    assert chunk_count(migrated, workspace, row.id) == 144 + 24
    assert item.document.docai_raw_r2_key.endswith("/")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "bad.json: its Document AI JSON is not in the object store"),
        (b"this is not json", "invalid Document AI JSON: bad.json: not valid JSON"),
        (orjson.dumps({"document": {"text": ""}}), "bad.json: its `document` field: the document holds no text"),
    ],
)
def test_bad_input_fails_with_an_actionable_error(celery_worker, celery_app, store, objects, content, expected) -> None:
    workspace = workspace_id("bad-input")
    document_id = str(uuid.uuid4())
    key = f"docai/{document_id}.json"
    if content is not None:
        objects.put(key, content)
    store.create_document(workspace, "bad.json", key, document_id)
    from worker.events import document_uploaded

    document_uploaded(document_id, store)  # again: the row's trigger recorded it already
    row = wait_for(
        lambda: store.get_document(document_id),
        lambda r: r.status in DOCUMENT_DONE,
        timeout=60,
        what="the failed ingest",
    )
    assert row.status == "failed"
    assert expected in row.error
    assert "file://" not in row.error and "/objects/" not in row.error  # the user's file, never where we keep it
    assert celery_app.send_task("segcite.ping").get(timeout=30)["pong"] is True  # still serving


def test_message_that_is_not_an_answer_fails_clearly(celery_worker, store) -> None:
    conversation = store.create_conversation(workspace_id("bad-message"))
    user = store.create_message(conversation, "user", "hello")
    orphan = store.create_message(conversation, "assistant", "")  # replies to nothing
    from worker.events import message_created

    message_created(orphan.id, store)  # again: the row's trigger recorded it already
    message = wait_for(
        lambda: store.get_message(orphan.id), lambda m: m.status in MESSAGE_DONE, timeout=60, what="the failed answer"
    )
    assert message.status == "failed"
    assert "replies to a user message" in message.error
    assert user.status == "done"


PROSE = [
    PageSpec(
        [
            f"On night {n} the observers noted what the telescope had added to the survey of the outer arm: "
            "the faint companion that was seen on the plates was not a star at all but a cloud of gas, and "
            "what the team had taken for noise on the earlier nights was the edge of that cloud.",
            f"The report on night {n} also says how much time was lost to weather, what was done about the "
            "cooling of the camera, and which of the company's instruments were added to the mount.",
        ]
    )
    for n in range(12)
]
INVOICE = [
    PageSpec(
        ["Company ABC", "INVOICE 1047", "Bill to: Harbor Point Cooperative"],
        table=[["Item", "Amount"], ["Subtotal", "$2000.00"], ["Tax", "$140.00"], ["Total", "$2140.00"]],
        table_at=3,
    )
]


def test_a_short_invoice_beside_long_prose_answers_its_amount_question(celery_worker, store, objects, tmp_path) -> None:
    """Hybrid retrieval (vector + full text), the hash embedder without stopwords and the extractive answerer
    together: long prose sharing the question's common words does not crowd out the invoice that answers it."""
    workspace = workspace_id(f"hybrid-{uuid.uuid4()}")
    items = [
        upload(store, objects, workspace, write_json(tmp_path, name, build_document(spec)[0]))
        for name, spec in (("observing-log.json", PROSE), ("invoice.json", INVOICE))
    ]
    for item in items:
        row = wait_for(lambda i=item: store.get_document(i.document.id), lambda r: r.status in DOCUMENT_DONE, 120)
        assert row.status == "ingested", row.error
    prose_id, invoice_id = (item.document.id for item in items)
    assert store.get_document(prose_id).segment_count >= 12

    pending = ask(store, workspace, "How much tax was added on the Company ABC invoice?")
    message = wait_for(lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout=90)
    assert message.status == "done", message.error
    assert "$140.00" in message.content
    citations = message.metadata["citations"]
    assert citations and {c["document_id"] for c in citations} == {invoice_id}
    assert message.metadata["context_ids"][0].startswith(invoice_id)  # the invoice ranks first


def test_embedding_moves_progress_per_batch(celery_worker, store, objects, migrated, tmp_path) -> None:
    """Progress is published while the chunks are embedded (32 at a time, worker/rag.py), not only per status."""
    from worker.documents import EMBEDDED_AT, STORED_AT

    workspace = workspace_id(f"progress-{uuid.uuid4()}")
    pages = [PageSpec([f"Section {n} reports that turbine {n} ran for {100 + n} hours."]) for n in range(60)]
    topic = Listener(migrated, f"workspace:{workspace}")
    try:
        item = upload(store, objects, workspace, write_json(tmp_path, "turbines.json", build_document(pages)[0]))
        row = wait_for(lambda: store.get_document(item.document.id), lambda r: r.status in DOCUMENT_DONE, 120)
        assert (row.status, row.segment_count) == ("ingested", 60)
        wait_until(lambda: any(e["payload"]["status"] == "ingested" for e in topic.events), timeout=10, what="done")
    finally:
        topic.close()
    embedding = [
        e["payload"]["progress"]
        for e in topic.events
        if e["payload"]["status"] == "ingesting" and STORED_AT < e["payload"]["progress"] < EMBEDDED_AT
    ]
    assert embedding, [(e["payload"]["status"], e["payload"]["progress"]) for e in topic.events]
    assert embedding == sorted(embedding)
