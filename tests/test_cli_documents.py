"""`segcite documents`, `segcite delete`, and what `segcite ingest` does with content the workspace already holds
(design §9), as a user runs them: subprocesses against the test services and worker."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import orjson
import psycopg
import pytest
import redis
from conftest import REPO, segcite, service_env, wait_for
from docai_synth import PageSpec, build_document

from worker.app_actions import workspace_id
from worker.cli.documents import _rate
from worker.embedded import redis_client_url
from worker.redis_state import workspace_lock_key
from worker.stores.rows import DocumentRow

INGESTED = re.compile(r"^(?P<name>.+?): ingested, \d+ page\(s\), \d+ segment\(s\), document (?P<id>[0-9a-f-]{36})$")


def write_document(folder: Path, name: str, sentences: list[str]) -> Path:
    document, _ = build_document([PageSpec([sentence]) for sentence in sentences])
    path = folder / name
    path.write_bytes(orjson.dumps(document))
    return path


def ingested_id(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    [line] = result.stdout.splitlines()
    match = INGESTED.match(line)
    assert match, line
    return match["id"]


def listed(env: dict[str, str], workspace: str, *flags: str) -> list[dict]:
    result = segcite(env, "documents", "--workspace", workspace, "--json", *flags)
    assert result.returncode == 0, result.stderr
    return orjson.loads(result.stdout)


@pytest.fixture
def env(services, service_home, celery_worker) -> dict[str, str]:
    return service_env(services, service_home)


def test_an_ingest_of_several_files_ends_with_its_rate(env, tmp_path) -> None:
    workspace = f"rate-{uuid.uuid4().hex[:8]}"
    museum = write_document(tmp_path, "museum.json", ["The museum opened in 1932.", "It holds 4,500 paintings."])
    harbor = write_document(tmp_path, "harbor.json", ["The harbor was dredged in 1990."])
    result = segcite(env, "ingest", str(museum), str(harbor), "--workspace", workspace)
    assert result.returncode == 0, result.stderr
    *_, rate, summary = result.stderr.strip().splitlines()  # the rate, then which files were ingested
    found = re.fullmatch(r"ingested 2 documents, 3 segments in ([0-9.]+) s \(([0-9]+) segments/s\)", rate)
    assert found and float(found[1]) > 0, rate  # the seconds from the command's start, and segments over them
    assert summary.startswith("ingested 2 of 2 document(s): "), summary
    # The second file's progress, if it was still going when the first was done, says the rate so far.
    progress = [line for line in result.stderr.splitlines() if line.startswith("harbor.json: ")]
    assert all(re.search(r" \([0-9]+ segments/s so far\)$", line) for line in progress), progress


def test_the_rate_so_far_counts_the_documents_ingested_before() -> None:
    rows = [DocumentRow("d1", "w", "a.json", "ingested", None, 1, 300, None, 1.0), None]  # None: not ingested
    assert _rate(rows, time.monotonic() - 2.0) == " (150 segments/s so far)"
    assert _rate([None], time.monotonic()) == ""


def test_documents_lists_a_workspace_and_delete_removes_one(env, tmp_path) -> None:
    workspace = f"docs-{uuid.uuid4().hex[:8]}"
    museum = write_document(tmp_path, "museum.json", ["The museum opened in 1932.", "It holds 4,500 paintings."])
    harbor = write_document(tmp_path, "harbor.json", ["The harbor was dredged in 1990."])
    first = ingested_id(segcite(env, "ingest", str(museum), "--workspace", workspace))
    second = ingested_id(segcite(env, "ingest", str(harbor), "--workspace", workspace))

    table = segcite(env, "documents", "--workspace", workspace)
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["ID", "FILE", "STATUS", "PAGES", "SEGMENTS", "UPDATED"]
    assert [row.split()[:5] for row in rows] == [
        [first, "museum.json", "ingested", "2", "2"],
        [second, "harbor.json", "ingested", "1", "1"],
    ]
    rows_json = listed(env, workspace)
    assert [(d["id"], d["filename"], d["status"], d["page_count"], d["segment_count"]) for d in rows_json] == [
        (first, "museum.json", "ingested", 2, 2),
        (second, "harbor.json", "ingested", 1, 1),
    ]
    assert {d["workspace_id"] for d in rows_json} == {workspace_id(workspace)}
    assert all(d["progress"] == 1.0 and d["error"] is None and len(d["content_hash"]) == 64 for d in rows_json)

    deleted = segcite(env, "delete", first)
    assert (deleted.returncode, deleted.stdout, deleted.stderr) == (0, f"museum.json: deleted (document {first})\n", "")
    assert [d["id"] for d in listed(env, workspace)] == [second]
    everything = listed(env, workspace, "--all")
    assert [(d["id"], d["status"]) for d in everything] == [(first, "deleted"), (second, "ingested")]
    again = segcite(env, "delete", first)
    assert (again.returncode, again.stdout) == (0, f"museum.json: already deleted (document {first})\n")

    unknown = str(uuid.uuid4())
    missing = segcite(env, "delete", unknown)
    assert (missing.returncode, missing.stderr.splitlines()) == (
        2,
        [f"error: no document {unknown} (`segcite documents` lists them)"],
    )
    nothing = f"nothing-{uuid.uuid4().hex[:8]}"
    unknown = segcite(env, "documents", "--workspace", nothing)  # issue 43: a name no workspace has is an error
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr.startswith(f"error: workspace {nothing!r} does not exist"), unknown.stderr


def test_the_same_content_in_a_workspace_is_one_document(env, tmp_path) -> None:
    workspace = f"same-{uuid.uuid4().hex[:8]}"
    original = write_document(tmp_path, "report.json", ["The farm produced 61.4 GWh in 2025."])
    copy = tmp_path / "copy-of-report.json"
    shutil.copy(original, copy)
    document = ingested_id(segcite(env, "ingest", str(original), "--workspace", workspace))
    before = listed(env, workspace)

    reused = segcite(env, "ingest", str(copy), "--workspace", workspace)
    assert ingested_id(reused) == document
    assert reused.stderr.splitlines() == [
        f"copy-of-report.json: same content as document {document} (report.json), already ingested: "
        "reused it (--force ingests it again)"
    ]
    assert listed(env, workspace) == before  # nothing was ingested again

    forced = segcite(env, "ingest", str(copy), "--workspace", workspace, "--force")
    assert ingested_id(forced) == document
    assert forced.stderr.splitlines()[0] == (
        f"copy-of-report.json: same content as document {document} (report.json): ingesting it again (--force)"
    )
    [after] = listed(env, workspace)
    assert (after["id"], after["status"], after["segment_count"]) == (document, "ingested", 1)
    assert after["updated_at"] > before[0]["updated_at"]

    elsewhere = ingested_id(segcite(env, "ingest", str(copy), "--workspace", f"{workspace}-b"))
    assert elsewhere != document  # another workspace is another set of documents


def test_a_document_that_failed_is_ingested_again_by_the_same_bytes(env, services, tmp_path) -> None:
    """A `failed` document (marked so here as a worker that gave up on it leaves it) is no dead end: ingesting
    the same bytes tries it again, same id. A file whose content the worker would refuse never gets a row at
    all (tests/test_cli_ingest_checks.py)."""
    workspace = f"retried-{uuid.uuid4().hex[:8]}"
    path = write_document(tmp_path, "report.json", ["The farm produced 61.4 GWh in 2025."])
    document = ingested_id(segcite(env, "ingest", str(path), "--workspace", workspace))
    with psycopg.connect(services.database_url, autocommit=True) as conn:
        conn.execute("update documents set status = 'failed', error = 'gave up' where id = %s", (document,))

    again = segcite(env, "ingest", str(path), "--workspace", workspace)
    assert ingested_id(again) == document
    assert again.stderr.splitlines()[0] == (
        f"report.json: same content as document {document} (report.json), which had failed: ingesting it again"
    )
    assert [(d["id"], d["status"], d["error"]) for d in listed(env, workspace)] == [(document, "ingested", None)]


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_waiting_says_the_ingest_goes_on(env, services, tmp_path) -> None:
    workspace = f"interrupted-{uuid.uuid4().hex[:8]}"
    path = write_document(tmp_path, "slow.json", ["Held back by a busy workspace."])
    lock = redis.Redis.from_url(redis_client_url(services.redis_url))
    key = workspace_lock_key(workspace_id(workspace))
    lock.set(key, "held by the test", ex=120)  # the worker waits for the workspace: the ingest stays queued
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "worker.cli", "ingest", str(path), "--workspace", workspace],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # Ctrl-C must reach the CLI even when pytest runs in the background (`&`, `nohup`), where SIGINT
            # is ignored and a child inherits that: Python then never turns it into KeyboardInterrupt.
            preexec_fn=_sigint_default,
        )
        first = proc.stderr.readline()
        assert first == "slow.json: waiting for a worker\n"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        lock.delete(key)
    assert proc.returncode == 130
    assert out == ""
    assert err.strip().splitlines() == [
        "stopped waiting; the ingest goes on in the background: "
        f"`segcite documents --workspace {workspace}` shows where it stands"
    ]
    wait_for(
        lambda: [d["status"] for d in listed(env, workspace)] == ["ingested"],
        timeout=90,
        what="the ingest to finish in the background",
        interval=1,
    )


def test_ingest_of_a_folder_without_json_is_one_line(env, tmp_path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = segcite(env, "ingest", str(empty))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [f"error: {empty}: no Document AI JSON, PDF or image in this folder"]
