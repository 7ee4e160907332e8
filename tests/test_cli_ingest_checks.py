"""`segcite ingest` checks each file on this machine before it stores or queues anything (issue 25, point 7): a
file the worker would refuse is refused with one line naming it, and leaves no row and no object. Each file is a
document of its own (issue 43, points 2, 5, 9): a bad one never stops the good ones, which are ingested (exit 1,
a summary naming both); only when every file is refused is nothing stored (exit 2)."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import orjson
import pytest
from conftest import segcite, service_env
from docai_fake import make_pdf
from docai_synth import PageSpec, build_document, shard_document
from PIL import Image
from test_parse_worker import needs_tesseract, page_png


@pytest.fixture
def env(services, service_home, celery_worker) -> dict[str, str]:
    # A worker runs, as for a user: without the check, these files would become `failed` rows, not hang.
    return service_env(services, service_home)


def stored_objects(service_home: Path) -> set[Path]:
    return set((service_home / "objects").rglob("*"))


def document_rows(env: dict[str, str], workspace: str) -> list[dict]:
    listed = segcite(env, "documents", "--workspace", workspace, "--json", "--all")
    assert listed.returncode == 0, listed.stderr
    return orjson.loads(listed.stdout)


def refused(env: dict[str, str], service_home: Path, *paths: Path) -> list[str]:
    """Ingest `paths` into a new workspace; assert the refusal left nothing behind; the lines it printed."""
    workspace = f"checks-{uuid.uuid4().hex[:8]}"
    before = stored_objects(service_home)
    result = segcite(env, "ingest", *map(str, paths), "--workspace", workspace, "--timeout", "60")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    listed = segcite(env, "documents", "--workspace", workspace, "--json", "--all")
    assert listed.returncode == 2 and "does not exist" in listed.stderr, listed.stderr  # not a row was made
    assert stored_objects(service_home) == before
    return result.stderr.splitlines()


def write_json(path: Path, document: object) -> Path:
    path.write_bytes(orjson.dumps(document))
    return path


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "the file is empty; expected Document AI JSON"),
        (b"  \n", "the file is empty; expected Document AI JSON"),
        (b"%PDF-1.7", "the PDF is corrupt or not a PDF (PDFium cannot read it): export it again"),
        (
            b'{"responses": [], "totalPages": 1}',
            "not a Document AI Document: no `text`, `pages` or `documentLayout` (keys found: responses, totalPages)",
        ),
        (
            b'{"document": {"text": ""}}',
            "its `document` field: the document holds no text: its `text` and `pages` are empty",
        ),
        (b'{"text": "", "pages": []}', "the document holds no text: its `text` and `pages` are empty"),
    ],
    ids=["empty", "blank", "not-json", "not-docai", "wrapper", "no-text"],
)
def test_a_file_the_worker_would_refuse_is_refused_before_anything_is_stored(
    env, service_home, tmp_path, content: bytes, reason: str
) -> None:
    path = tmp_path / "upload.json"
    path.write_bytes(content)
    assert refused(env, service_home, path) == [f"error: {path}: {reason}"]


def ingested_names(stdout: str) -> list[str]:
    return sorted(line.split(": ")[0] for line in stdout.splitlines() if ": ingested, " in line)


def test_bad_files_are_each_named_and_the_good_one_is_ingested(env, service_home, tmp_path) -> None:
    """Before: the first bad file stopped the command (exit 2): nothing was ingested, the good file included."""
    good = write_json(tmp_path / "good.json", build_document([PageSpec(["The dam was built in 1931."])])[0])
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    workspace = f"checks-{uuid.uuid4().hex[:8]}"
    result = segcite(env, "ingest", str(empty), str(good), str(other), "--workspace", workspace, "--timeout", "120")
    assert result.returncode == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [
        f"error: {empty}: the file is empty; expected Document AI JSON",
        f"error: {other}: the JSON is an array; expected one Document object (pass shards as separate files)",
    ]
    assert ingested_names(result.stdout) == ["good.json"]
    assert (
        result.stderr.splitlines()[-1]
        == f"ingested 1 of 3 document(s): {good}; not ingested (see above): {empty}, {other}"
    )
    assert [(r["filename"], r["status"]) for r in document_rows(env, workspace)] == [("good.json", "ingested")]


@needs_tesseract
def test_a_truncated_pdf_in_a_folder_is_named_and_the_other_files_are_each_a_document(env, tmp_path) -> None:
    """Issue 43: `ingest mixed/` with a truncated PDF among a good PDF, a PNG and a Document AI JSON stopped at the
    truncated one (exit 2, nothing ingested), and the JSON was named after the folder; an empty PDF was "skipped:
    not Document AI JSON, a PDF or an image". A blank page passes the checks and fails in the worker: its row is
    `failed`, and the others are ingested all the same."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    good = make_pdf(["Harbor report\nThe Eastwick harbor handled 4,200 ships in 2025."], folder / "report.pdf")
    page_png(good, 0, folder / "scan.png")
    truncated = folder / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    (folder / "empty.pdf").write_bytes(b"")
    memo, _ = build_document([PageSpec(["The memo says the pier reopens in May."])])
    write_json(folder / "memo.json", memo)
    (folder / "notes.txt").write_text("just some notes\n")
    Image.new("L", (850, 1100), 255).save(folder / "blank.png")  # passes the checks; the worker reads no text
    workspace = f"mixed-{uuid.uuid4().hex[:8]}"
    result = segcite(env, "ingest", str(folder), "--workspace", workspace, "--timeout", "180")
    assert result.returncode == 1, result.stderr
    err = result.stderr.splitlines()
    assert [line for line in err if line.startswith(("error: ", "skipped "))] == [
        f"skipped {folder / 'notes.txt'}: not Document AI JSON, a PDF or an image",
        f"error: {folder / 'empty.pdf'}: empty file: nothing to ingest",
        f"error: {truncated}: the PDF is corrupt or not a PDF (PDFium cannot read it): export it again",
    ]
    assert ingested_names(result.stdout) == ["memo.json", "report.pdf", "scan.png"], result.stdout
    assert any(line.startswith("blank.png: failed: ") and "blank.png" in line[19:] for line in err), err
    assert err[-1] == (
        f"ingested 3 of 6 document(s): {folder / 'memo.json'}, {folder / 'report.pdf'}, {folder / 'scan.png'}; "
        f"not ingested (see above): {folder / 'blank.png'}, {folder / 'empty.pdf'}, {truncated}; "
        "1 other file(s) skipped"
    )
    rows = {r["filename"]: r for r in document_rows(env, workspace)}
    assert {name: (r["status"], r["page_count"]) for name, r in rows.items() if name != "blank.png"} == {
        "memo.json": ("ingested", 1),
        "report.pdf": ("ingested", 1),
        "scan.png": ("ingested", 1),
    }
    assert rows["blank.png"]["status"] == "failed" and "blank.png" in rows["blank.png"]["error"]  # its row says why


def test_a_folder_of_json_alone_is_one_document_named_after_it_and_json_among_other_files_is_its_own(
    env, tmp_path
) -> None:
    document, _ = build_document([PageSpec([f"Page {n} of the annual report."]) for n in range(1, 5)])
    folder = tmp_path / "report"
    folder.mkdir()
    for number, shard in enumerate(shard_document(document, 2)):
        write_json(folder / f"report-{number}.json", shard)
    workspace = f"shards-{uuid.uuid4().hex[:8]}"
    result = segcite(env, "ingest", str(folder), "--workspace", workspace, "--timeout", "120")
    assert result.returncode == 0, result.stderr
    assert ingested_names(result.stdout) == ["report"]

    single = tmp_path / "with-a-pdf"
    single.mkdir()
    write_json(single / "memo.json", build_document([PageSpec(["The memo says the pier reopens in May."])])[0])
    make_pdf(["Tide table\nHigh water at 4:15."], single / "tides.pdf")
    result = segcite(env, "ingest", str(single), "--workspace", workspace, "--timeout", "120")
    assert result.returncode == 0, result.stderr
    assert ingested_names(result.stdout) == ["memo.json", "tides.pdf"]
    assert sorted(r["filename"] for r in document_rows(env, workspace)) == ["memo.json", "report", "tides.pdf"]

    shutil.copy(folder / "report-1.json", single / "report-1.json")  # a shard among other files: its own document
    result = segcite(env, "ingest", str(single), "--workspace", workspace, "--timeout", "120")
    assert result.returncode == 1, result.stderr
    assert f"error: {single / 'report-1.json'}: shard(s) 0 of 2 missing; pass every shard of the document " in (
        result.stderr
    )
    assert "(put its shards in a folder of their own: `segcite ingest FOLDER` reads them as one document)" in (
        result.stderr
    )


@pytest.mark.parametrize("name", ["empty.pdf", "photo.jpg"])
def test_an_empty_pdf_or_image_is_refused_as_an_empty_file(env, service_home, tmp_path, name: str) -> None:
    """Before: `error: …empty.pdf: not Document AI JSON, a PDF or an image` (in a folder: skipped as such)."""
    path = tmp_path / name
    path.write_bytes(b"")
    assert refused(env, service_home, path) == [f"error: {path}: empty file: nothing to ingest"]


def test_a_folder_of_separate_documents_says_to_pass_them_as_files(env, service_home, tmp_path) -> None:
    """Before: `shard 0 appears twice; pass each shard once` and a `failed` row per try."""
    folder = tmp_path / "invoices"
    folder.mkdir()
    write_json(folder / "march.json", build_document([PageSpec(["March invoice: total $120.00."])])[0])
    write_json(folder / "april.json", build_document([PageSpec(["April invoice: total $95.00."])])[0])
    assert refused(env, service_home, folder) == [
        f"error: {folder}: its files look like separate documents, not the shards of one; "
        f"pass them as files: `segcite ingest {folder}/*.json`"
    ]


def test_a_folder_of_layout_parser_documents_says_to_pass_them_as_files(env, service_home, tmp_path, docai_dir) -> None:
    """Before: `Layout Parser output (documentLayout) comes as one file; got several` and a `failed` row."""
    folder = tmp_path / "layouts"
    folder.mkdir()
    for name in ("one.json", "two.json"):
        shutil.copy(docai_dir / "SYNTHETIC_layout_parser_table_list.json", folder / name)
    assert refused(env, service_home, folder) == [
        f"error: {folder}: its files look like separate documents, not the shards of one; "
        f"pass them as files: `segcite ingest {folder}/*.json`"
    ]


def test_a_folder_missing_a_shard_says_so_and_a_whole_one_ingests(env, service_home, tmp_path) -> None:
    document, _ = build_document([PageSpec([f"Page {n} of the annual report."]) for n in range(1, 5)])
    folder = tmp_path / "report"
    folder.mkdir()
    shards = shard_document(document, 2)
    write_json(folder / "report-0.json", shards[0])
    assert refused(env, service_home, folder) == [
        f"error: {folder}: shard(s) 1 of 2 missing; pass every shard of the document"
    ]

    write_json(folder / "report-1.json", shards[1])  # the real shards of one document pass the check
    workspace = f"checks-{uuid.uuid4().hex[:8]}"
    result = segcite(env, "ingest", str(folder), "--workspace", workspace)
    assert result.returncode == 0, result.stderr
    [row] = document_rows(env, workspace)
    assert (row["filename"], row["status"], row["page_count"]) == ("report", "ingested", 4)
