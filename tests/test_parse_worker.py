"""The parse stage through the row path (design §3a, issue 33) with the offline `local` parser: a PDF or an image
registered as the app registers JSON goes uploaded -> parsing -> parsed -> ingesting -> ingested, its shards
stored beside it, its segments on the right pages; files the limits refuse fail with an `error` naming the user's
file, nothing stored for them, and the worker keeps serving. Real Redis, a real Celery worker, real PostgreSQL."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import orjson
import psycopg
import pypdfium2 as pdfium
import pytest
from conftest import Listener, segcite, service_env
from docai_fake import encrypted_pdf, make_pdf
from docai_synth import PageSpec, build_document
from PIL import Image

from parse import tesseract_available
from worker.app_actions import DOCUMENT_DONE, upload, wait_for, workspace_id
from worker.objects import LocalFolderStore

needs_tesseract = pytest.mark.skipif(
    not tesseract_available(), reason="Tesseract is not installed (Debian: tesseract-ocr; .ci/run installs it)"
)
PAGES = [
    "Harbor report\nThe Eastwick harbor handled 4,200 ships in 2025.",
    "Second page\nThe lighthouse on Gull Rock was rebuilt in 1911.",
    "Third page\nFerries to Marlow leave every forty minutes.",
]


@pytest.fixture(scope="module")
def objects(service_home: Path) -> LocalFolderStore:
    return LocalFolderStore(service_home / "objects")  # the worker's SEGCITE_HOME/objects


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pdf(PAGES, tmp_path_factory.mktemp("pdf") / "report.pdf")


def locked_pdf() -> bytes:
    return encrypted_pdf(b"user-secret", b"owner-secret")  # a password opens it, none is given


def page_png(pdf: Path, page: int, path: Path) -> Path:
    """A page of a PDF rendered as a PNG (what a phone photo of a printed page would be, minus the blur)."""
    document = pdfium.PdfDocument(pdf.read_bytes())
    document[page].render(scale=2).to_pil().convert("L").save(path)
    document.close()
    return path


def ingest(store, objects, workspace: str, path: Path):
    item = upload(store, objects, workspace, path)
    return wait_for(
        lambda: store.get_document(item.document.id), lambda r: r.status in DOCUMENT_DONE, 180, what="the ingest"
    )


def statuses(listener: Listener, document_id: str) -> list[str]:
    return [e["payload"]["status"] for e in listener.events if e["payload"].get("document_id") == document_id]


def segments(database_url: str, document_id: str) -> list[tuple[int, str]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "select page_idx, text from document_segments where document_id = %s order by segment_index",
            (document_id,),
        ).fetchall()


def test_a_pdf_is_parsed_then_ingested_with_page_correct_segments(
    celery_worker, store, objects, migrated, report_pdf
) -> None:
    workspace = workspace_id(f"parse-{uuid.uuid4()}")
    listener = Listener(migrated, f"workspace:{workspace}")
    try:
        row = ingest(store, objects, workspace, report_pdf)
    finally:
        listener.close()
    assert row.status == "ingested", row.error
    assert row.source_r2_key == f"docai/{row.id}.pdf"
    assert row.docai_raw_r2_key == f"docai/{row.id}.pdf.docai/"
    assert objects.keys(row.docai_raw_r2_key) == [f"docai/{row.id}.pdf.docai/0001.json"]
    assert row.page_count == 3
    seen = statuses(listener, row.id)
    assert seen.index("parsing") < seen.index("parsed") < seen.index("ingested"), seen
    by_page = {page: " ".join(text for p, text in segments(migrated, row.id) if p == page) for page in range(3)}
    assert "4,200 ships" in by_page[0] and "Gull Rock" in by_page[1] and "forty minutes" in by_page[2], by_page
    assert "Gull Rock" not in by_page[0] + by_page[2]


@needs_tesseract
@pytest.mark.parametrize("turn", [0, 180], ids=["upright", "upside-down"])
def test_an_image_is_read_by_ocr_and_ingested(
    celery_worker, store, objects, migrated, report_pdf, tmp_path, turn
) -> None:
    workspace = workspace_id(f"parse-{uuid.uuid4()}")
    photo = page_png(report_pdf, 1, tmp_path / "photo.png")
    with Image.open(photo) as picture:
        picture.rotate(turn).save(photo)  # issue 43: an upside-down photo failed ("the document holds no text")
    row = ingest(store, objects, workspace, photo)
    assert row.status == "ingested", row.error
    assert row.source_r2_key == f"docai/{row.id}.png"
    text = " ".join(t for _, t in segments(migrated, row.id))
    assert "Gull Rock" in text and "1911" in text, text
    assert {page for page, _ in segments(migrated, row.id)} == {0}


def _blank_pages(count: int) -> bytes:
    document = pdfium.PdfDocument.new()
    for _ in range(count):
        document.new_page(612, 792)
    buffer = io.BytesIO()
    document.save(buffer)
    document.close()
    return buffer.getvalue()


def _huge_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (8000, 6000), 255).save(buffer, format="PNG")  # 48 megapixels
    return buffer.getvalue()


def _blank_png() -> bytes:
    """A photo of a blank sheet: before issue 43 it failed as "invalid Document AI JSON: … holds no text"."""
    if not tesseract_available():
        pytest.skip("Tesseract is not installed (Debian: tesseract-ocr; .ci/run installs it)")
    buffer = io.BytesIO()
    Image.new("RGB", (1200, 1600), (250, 250, 245)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "make", "says"),
    [
        ("locked.pdf", locked_pdf, "encrypted"),
        ("broken.pdf", lambda: b"%PDF-1.7\n1 0 obj << /Type /Catalog", "corrupt"),
        ("empty.pdf", lambda: _blank_pages(0), "PDF"),
        ("poster.png", _huge_png, "megapixels"),
        ("blank.png", _blank_png, "no text could be read on page 1: OCR found no words"),
    ],
)
def test_a_file_the_limits_refuse_fails_with_a_reason_and_leaves_nothing(
    celery_worker, celery_app, store, objects, report_pdf, tmp_path, name, make, says
) -> None:
    workspace = workspace_id(f"parse-{uuid.uuid4()}")
    path = tmp_path / name
    path.write_bytes(make())
    row = ingest(store, objects, workspace, path)
    assert row.status == "failed"
    assert row.error.startswith(f"{name}: ") and says in row.error, row.error
    assert "\n" not in row.error and "objects" not in row.error  # one line, no internal path
    assert objects.keys(f"{row.source_r2_key or row.docai_raw_r2_key}.docai/") == []  # no shard written
    # A second copy of its task after the failure (the inbox's and a direct send) keeps the reason: the file is
    # judged as a PDF or an image again, never read as JSON ("not valid JSON").
    celery_app.send_task("segcite.ingest_document", args=[row.id]).get(timeout=120, propagate=False)
    again = store.get_document(row.id)
    assert (again.status, again.error) == ("failed", row.error)
    # The worker keeps serving: a good PDF after it is ingested.
    assert ingest(store, objects, workspace, report_pdf).status == "ingested"


@needs_tesseract
def test_the_cli_ingests_a_folder_and_names_what_it_skipped(
    services, service_home, celery_worker, report_pdf, tmp_path
) -> None:
    env = service_env(services, service_home)
    folder = tmp_path / "mixed"
    folder.mkdir()
    # Long enough to be seen parsing by a poll every 0.3 s (the local parser reads text pages at 20+ a second).
    make_pdf([f"Page {n}\nThe ledger for week {n} balances." for n in range(1, 121)], folder / "report.pdf")
    (folder / "notes.txt").write_text("just some notes\n")
    page_png(report_pdf, 2, folder / "scan.png")
    (folder / "sub").mkdir()
    memo, _ = build_document([PageSpec(["The memo says the pier reopens in May."])])
    (folder / "memo.json").write_bytes(orjson.dumps(memo))
    workspace = f"parse-cli-{uuid.uuid4()}"
    result = segcite(env, "ingest", str(folder), "--workspace", workspace)
    assert result.returncode == 0, result.stderr
    err = result.stderr.splitlines()
    assert f"skipped {folder / 'notes.txt'}: not Document AI JSON, a PDF or an image" in err
    assert f"skipped {folder / 'sub'}: a folder inside a folder (pass it by name)" in err
    assert any(line.startswith("report.pdf: parsing page ") for line in err), err
    ingested = sorted(line.split(":")[0] for line in result.stdout.splitlines() if "ingested" in line)
    assert ingested == ["memo.json", "report.pdf", "scan.png"], result.stdout  # the JSON among them: its own name


def test_a_process_response_is_ingested_as_its_document(services, service_home, celery_worker, docai_real_dir):
    """What Document AI's online `process` returns (`{"document": …}`) is Document AI JSON for `segcite ingest`
    and for the row it writes (issue 33 point 1)."""
    path = docai_real_dir / "WRAPPED_processresponse_invoice_parser.json"
    workspace = f"wrapped-{uuid.uuid4()}"
    result = segcite(service_env(services, service_home), "ingest", str(path), "--workspace", workspace)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith(f"{path.name}: ingested, 1 page(s), ") and "segment(s), document " in line, line
    document_id = line.rsplit(" ", 1)[1]
    from worker.stores.postgres import PostgresStore

    store = PostgresStore(services.database_url, max_size=1)
    try:
        with psycopg.connect(services.database_url) as conn:
            texts = [t for (t,) in conn.execute("select text from document_segments where document_id = %s",
                                                (document_id,))]  # fmt: skip
        assert store.get_document(document_id).source_r2_key is None  # JSON: nothing to parse
    finally:
        store.close()
    assert any("Invoice" in text for text in texts), texts
