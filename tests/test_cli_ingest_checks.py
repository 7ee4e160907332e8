"""`segcite ingest` checks each file on this machine before it stores or queues anything (issue 25, point 7): a
file the worker would refuse is refused with exit 2 and one line naming it, and leaves no row and no object."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import orjson
import pytest
from conftest import segcite, service_env
from docai_synth import PageSpec, build_document, shard_document


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
    assert document_rows(env, workspace) == []
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


def test_one_bad_file_stops_the_whole_command_and_each_bad_one_is_named(env, service_home, tmp_path) -> None:
    good = write_json(tmp_path / "good.json", build_document([PageSpec(["The dam was built in 1931."])])[0])
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    assert refused(env, service_home, empty, good, other) == [
        f"error: {empty}: the file is empty; expected Document AI JSON",
        f"error: {other}: the JSON is an array; expected one Document object (pass shards as separate files)",
    ]


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
