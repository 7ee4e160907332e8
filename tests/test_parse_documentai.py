"""The `documentai` parser (design §3a, issue 33): the real google-cloud-documentai client (REST transport,
anonymous credentials) against a fake Document AI endpoint on loopback (bench/docai_fake.py), driven by a real
worker through the row path. The fake checks each request's page selection (a split PDF of at most 15 pages),
answers 429 and 503 before succeeding, and refuses a file once with a permanent 400."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import psycopg
import pytest
from conftest import WorkerProcess, pings, service_env, shared_path
from conftest import wait_for as wait_until
from docai_fake import FakeDocumentAI, make_pdf
from test_parse_worker import page_png

from worker.app import make_celery
from worker.app_actions import DOCUMENT_DONE, upload, wait_for, workspace_id
from worker.embedded import Services, start_redis, stop_redis
from worker.objects import LocalFolderStore
from worker.settings import Settings
from worker.stores.postgres import PostgresStore

MAX_PAGES = 40  # the worker's SEGCITE_MAX_PAGES here


@dataclass
class Setup:
    fake: FakeDocumentAI
    store: PostgresStore
    objects: LocalFolderStore
    database_url: str


@pytest.fixture(scope="module")
def migrated(database_without_worker: str) -> str:
    """This module's documentai worker serves its rows: a database the session's worker does not serve."""
    return database_without_worker


@pytest.fixture(scope="module")
def setup(migrated: str) -> Iterator[Setup]:
    fake = FakeDocumentAI()
    home = Path(tempfile.mkdtemp(prefix="sc-docai-", dir="/tmp"))
    redis_url = start_redis(home)  # its own broker: the session's worker never takes these tasks
    env = service_env(
        Services(redis_url, migrated),
        home,
        DOCUMENTAI_PROJECT_ID="fake-project",
        DOCUMENTAI_LOCATION="eu",
        DOCUMENTAI_PROCESSOR_ID="ocr-processor",
        DOCUMENTAI_ENDPOINT=fake.url,
        DOCUMENTAI_TRANSPORT="rest",
        SEGCITE_MAX_PAGES=str(MAX_PAGES),
        SEGCITE_MAX_RETRIES="4",
    )
    worker = WorkerProcess(env, home / "worker.log", concurrency=4)
    app = make_celery(Settings(redis_url=redis_url, segcite_home=home))
    store = PostgresStore(migrated, max_size=2)
    try:
        wait_until(lambda: pings(app), timeout=60, what=f"the documentai worker (log: {home})", interval=0.5)
        yield Setup(fake, store, LocalFolderStore(home / "objects"), migrated)
    finally:
        worker.stop()
        store.close()
        fake.close()
        stop_redis(home)
        shutil.rmtree(home, ignore_errors=True)


def numbered_pdf(path: Path, pages: int, marker: str = "") -> Path:
    return make_pdf([f"Page {n} of the tide tables {marker}\nHigh water at dock {n} is at {n}:15." for n in
                     range(1, pages + 1)], path)  # fmt: skip


def ingest(setup: Setup, path: Path, workspace: str | None = None):
    item = upload(setup.store, setup.objects, workspace or workspace_id(f"docai-{uuid.uuid4()}"), path)
    return wait_for(
        lambda: setup.store.get_document(item.document.id), lambda r: r.status in DOCUMENT_DONE, 180, what="ingest"
    )


def segment_pages(database_url: str, document_id: str) -> dict[str, int]:
    """`Page N` -> the page_idx of the segment holding it."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("select page_idx, text from document_segments where document_id = %s", (document_id,))
        found: dict[str, int] = {}
        for page_idx, text in rows:
            for word in text.split("Page ")[1:]:
                found[f"Page {word.split()[0]}"] = page_idx
        return found


def test_a_35_page_pdf_is_three_requests_of_its_own_pages_and_ingests_page_correct(setup: Setup, tmp_path) -> None:
    before = len(setup.fake.requests)
    row = ingest(setup, numbered_pdf(tmp_path / "tides.pdf", 35))
    assert row.status == "ingested", row.error
    asked = sorted(setup.fake.requests[before:], key=lambda r: r["first_lines"][0].split()[1].zfill(3))
    assert [r["pages"] for r in asked] == [15, 15, 5]
    expected = [[f"Page {n} of the tide tables" for n in range(a, b)] for a, b in ((1, 16), (16, 31), (31, 36))]
    assert [r["first_lines"] for r in asked] == expected
    assert {(r["processor"], r["location"], r["imageless"]) for r in asked} == {("ocr-processor", "eu", False)}
    keys = setup.objects.keys(row.docai_raw_r2_key)
    assert keys == [f"{row.source_r2_key}.docai/{n:04d}.json" for n in (1, 2, 3)]
    shards = [orjson.loads(setup.objects.read(key)) for key in keys]
    assert [s["shardInfo"]["shardIndex"] for s in shards] == [0, 1, 2]
    assert [s["shardInfo"]["textOffset"] for s in shards] == [
        0,
        len(shards[0]["text"]),
        sum(len(s["text"]) for s in shards[:2]),
    ]
    assert shards[1]["pages"][0]["pageNumber"] == 16
    pages = segment_pages(setup.database_url, row.id)
    assert {name: pages[name] for name in ("Page 1", "Page 15", "Page 16", "Page 31", "Page 35")} == {
        "Page 1": 0, "Page 15": 14, "Page 16": 15, "Page 31": 30, "Page 35": 34
    }  # fmt: skip
    assert row.page_count == 35

    # The app asks for it again (back to `uploaded`): the stored shards are reused, Document AI is not asked.
    asked_before = len(setup.fake.requests)
    setup.store.update_document(row.id, status="uploaded")
    again = wait_for(lambda: setup.store.get_document(row.id), lambda r: r.status in DOCUMENT_DONE, 120)
    assert again.status == "ingested" and len(setup.fake.requests) == asked_before


def test_429_then_503_are_retried_and_the_document_ingests(setup: Setup, tmp_path) -> None:
    path = numbered_pdf(tmp_path / "busy.pdf", 4)
    before = len(setup.fake.requests)
    setup.fake.failures = [(429, "RESOURCE_EXHAUSTED"), (503, "UNAVAILABLE")]
    row = ingest(setup, path)
    assert row.status == "ingested", row.error
    asked = setup.fake.requests[before:]
    assert len(asked) == 3 and all(r["pages"] == 4 for r in asked)  # retried by the tasks' policy (full jitter)


def test_a_permanent_400_fails_the_document_with_a_reason_and_no_retry(setup: Setup, tmp_path) -> None:
    setup.fake.refuse_marker = "UNREADABLE"
    try:
        before = len(setup.fake.requests)
        row = ingest(setup, numbered_pdf(tmp_path / "scan.pdf", 2, marker="UNREADABLE"))
    finally:
        setup.fake.refuse_marker = None
    assert row.status == "failed"
    assert row.error == (
        "Document AI refused scan.pdf, pages 1-2 (400 INVALID_ARGUMENT): Unsupported input file format."
    ), row.error
    assert len(setup.fake.requests) == before + 1


@pytest.mark.parametrize(
    ("code", "status", "says"),
    [
        (
            403,
            "PERMISSION_DENIED",
            "the service account needs the role roles/documentai.apiUser on project fake-project",
        ),
        (404, "NOT_FOUND", "check DOCUMENTAI_PROJECT_ID, DOCUMENTAI_LOCATION and DOCUMENTAI_PROCESSOR_ID"),
    ],
)
def test_a_denied_or_unknown_processor_says_what_to_fix(setup: Setup, tmp_path, code, status, says) -> None:
    setup.fake.failures = [(code, status)]
    row = ingest(setup, numbered_pdf(tmp_path / "locked-out.pdf", 1))
    assert row.status == "failed"
    assert says in row.error and f"({code} {status})" in row.error, row.error
    assert "projects/fake-project/locations/eu/processors/ocr-processor" in row.error


def test_more_pages_than_the_limit_fail_before_any_request(setup: Setup, tmp_path) -> None:
    before = len(setup.fake.requests)
    row = ingest(setup, numbered_pdf(tmp_path / "almanac.pdf", MAX_PAGES + 1))
    assert row.status == "failed"
    assert row.error == f"almanac.pdf: {MAX_PAGES + 1} pages, more than the {MAX_PAGES} a document may have " + (
        "(SEGCITE_MAX_PAGES)"
    )
    assert len(setup.fake.requests) == before
    assert setup.objects.keys(f"{row.source_r2_key}.docai/") == []
    assert ingest(setup, numbered_pdf(tmp_path / "short.pdf", 1)).status == "ingested"  # the worker still serves


def test_an_image_is_one_request_and_ingests_document_ais_answer(setup: Setup, tmp_path) -> None:
    # The fake answers an image with a real Document AI output (a PDF, it reads itself): only this test needs it.
    setup.fake.canned = shared_path("fixtures", "docai-real", "WRAPPED_processresponse_ocr.json").read_bytes()
    before = len(setup.fake.requests)
    photo = page_png(numbered_pdf(tmp_path / "one.pdf", 1), 0, tmp_path / "invoice.png")
    row = ingest(setup, photo)
    assert row.status == "ingested", row.error
    assert [r["mime"] for r in setup.fake.requests[before:]] == ["image/png"]
    with psycopg.connect(setup.database_url) as conn:
        text = " ".join(t for (t,) in conn.execute("select text from document_segments where document_id = %s",
                                                   (row.id,)))  # fmt: skip
    assert "Invoice no: 1001" in text and "Google Singapore" in text  # the canned real Document AI output


def test_segcite_parse_uses_document_ai_when_a_processor_is_configured(setup: Setup, services, tmp_path) -> None:
    from conftest import segcite

    pdf = numbered_pdf(tmp_path / "tides.pdf", 20)
    env = service_env(
        services,
        tmp_path,
        DOCUMENTAI_PROJECT_ID="fake-project",
        DOCUMENTAI_PROCESSOR_ID="ocr-processor",
        DOCUMENTAI_ENDPOINT=setup.fake.url,
        DOCUMENTAI_TRANSPORT="rest",
    )
    before = len(setup.fake.requests)
    setup.fake.failures = [(503, "UNAVAILABLE")]  # retried
    result = segcite(env, "parse", str(pdf), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    asked = [r["pages"] for r in setup.fake.requests[before:]]
    assert len(asked) == 3 and sorted(set(asked)) == [5, 15]  # each range once, and the one the 503 refused again
    shards = [orjson.loads((tmp_path / "out" / f"{n:04d}.json").read_bytes()) for n in (1, 2)]
    assert shards[1]["shardInfo"] == {"shardIndex": 1, "shardCount": 2, "textOffset": len(shards[0]["text"])}
    assert [p["pageNumber"] for p in shards[1]["pages"]] == list(range(16, 21))
    assert f"{pdf}: pages 16-20 read by Document AI (2 of 2)" in result.stderr.splitlines()


def test_imageless_mode_sends_30_pages_a_request_and_the_limit_is_documents_ai(setup: Setup, tmp_path) -> None:
    """The adapter alone, on the fake: with DOCUMENTAI_IMAGELESS a 30-page range is one request; without it,
    Document AI's own 15-page limit refuses it (a permanent error naming the file and its pages)."""
    import parse
    from worker.errors import PermanentError
    from worker.parsing import documentai

    thirty = parse.pdf_pages(numbered_pdf(tmp_path / "long.pdf", 30).read_bytes(), 0, 30)
    settings = Settings(
        _env_file=None,
        documentai_project_id="fake-project",
        documentai_processor_id="ocr-processor",
        documentai_endpoint=setup.fake.url,
        documentai_transport="rest",
        documentai_imageless=True,
    )
    document = documentai.process(settings, thirty, "pdf", what="long.pdf, pages 1-30")
    assert len(document["pages"]) == 30 and setup.fake.requests[-1]["imageless"] is True
    with pytest.raises(PermanentError) as refused:
        documentai.process(settings.model_copy(update={"documentai_imageless": False}), thirty, "pdf",
                           what="long.pdf, pages 1-30")  # fmt: skip
    assert str(refused.value) == (
        "Document AI refused long.pdf, pages 1-30 (400 INVALID_ARGUMENT): Document pages exceed the limit: 15 got 30"
    )
