"""What `segcite` says (design §9, issue 17): usage errors in one line, timeouts checked and explained, empty
workspace names and unciteable document ids refused, embedded services shown and announced, progress in words."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

import orjson
import psycopg
import pytest
from click.testing import CliRunner
from conftest import REPO, segcite, service_env
from docai_synth import PageSpec, build_document

from worker.app_actions import workspace_id
from worker.cli import main
from worker.cli.demo import DEMO_DOCUMENT
from worker.cli.text import (
    answer_timeout_line,
    documents_table,
    progress_line,
    started_line,
)
from worker.embedded import Services, start_redis, stop_redis
from worker.stores.postgres import PostgresStore
from worker.stores.rows import DocumentRow

HOME = Path("/srv/segcite-home")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="segcite")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["ingest", "/no/such/file.json"],
            "error: Invalid value for 'FILES...': Path '/no/such/file.json' does not exist. "
            "(see `segcite ingest --help`)",
        ),
        (["ask"], "error: Missing argument 'QUESTION'. (see `segcite ask --help`)"),
        (["bogus"], "error: No such command 'bogus'. (see `segcite --help`)"),
        (["documents", "--color"], "error: No such option '--color'. (see `segcite documents --help`)"),
        (["db", "migrate", "--now"], "error: No such option '--now'. (see `segcite db migrate --help`)"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], line: str) -> None:
    """click's own usage, hint and error lines become one line (issue 13, defect 8; issue 17)."""
    result = invoke(*args)
    assert (result.exit_code, result.stdout, result.stderr.splitlines()) == (2, "", [line])


@pytest.mark.parametrize("command", [["ask", "q?"], ["ingest", str(REPO / "README.md")], ["delete", str(uuid.uuid4())]])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_timeouts_must_be_seconds_above_zero(command: list[str], value: str) -> None:
    result = invoke(*command, "--timeout", value)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: Invalid value for '--timeout': must be a number of seconds above 0, got {value} "
        f"(see `segcite {command[0]} --help`)"
    ]


def test_timeouts_say_what_they_wait_for() -> None:
    for command, text in (("ask", "Seconds to wait for the answer."), ("ingest", "Seconds to wait per document.")):
        assert text in invoke(command, "--help").stdout


@pytest.mark.parametrize("name", ["", "   "])
@pytest.mark.parametrize("command", [["ask", "q?"], ["ingest", str(REPO / "README.md")], ["documents"]])
def test_empty_workspace_names_are_refused(command: list[str], name: str) -> None:
    result = invoke(*command, "--workspace", name)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: Invalid value for '--workspace': the workspace name is empty (see `segcite {command[0]} --help`)"
    ]


@pytest.mark.parametrize("document_id", ["report:2", "a b", "", "[SEG=x]", "-dash-first"])
def test_segments_refuses_document_ids_its_segment_ids_could_not_carry(document_id: str, tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_bytes(orjson.dumps(build_document([PageSpec(["One page."])])[0]))
    result = invoke("segments", str(path), "--document-id", document_id)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: Invalid value for '--document-id': {document_id!r} cannot name a document")
    accepted = invoke("segments", str(path), "--document-id", "report-2025.v2_final")
    assert accepted.exit_code == 0, accepted.stderr
    assert orjson.loads(accepted.stdout.splitlines()[0])["segment_id"] == "report-2025.v2_final:0"


def test_config_shows_the_embedded_urls_it_would_use(monkeypatch, tmp_path: Path) -> None:
    for variable in ("REDIS_URL", "DATABASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("SEGCITE_HOME", str(tmp_path))
    result = invoke("config")
    assert result.exit_code == 0, result.stderr
    shown = dict(line.split("=", 1) for line in result.stdout.splitlines())
    not_started = "  # embedded, not started yet (the first command that needs it starts it)"
    assert shown["REDIS_URL"] == f"redis+socket://{tmp_path}/redis/redis.sock{not_started}"
    assert shown["DATABASE_URL"] == f"postgresql://postgres:@/postgres?host={tmp_path.resolve()}/pg{not_started}"
    assert list(tmp_path.iterdir()) == []  # nothing was started, or even made


def test_config_shows_the_running_embedded_urls(services: Services, service_home: Path, monkeypatch) -> None:
    if os.environ.get("REDIS_URL") or os.environ.get("DATABASE_URL"):
        pytest.skip("the test services are not the embedded ones")
    for variable in ("REDIS_URL", "DATABASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("SEGCITE_HOME", str(service_home))
    shown = dict(line.split("=", 1) for line in invoke("config").stdout.splitlines())
    assert shown["REDIS_URL"] == f"{services.redis_url}  # embedded, running"
    assert shown["DATABASE_URL"] == f"{services.database_url}  # embedded, running"


def test_ask_that_times_out_says_what_it_waited_for(services: Services, database_without_worker: str) -> None:
    """A broker and a database no worker serves: the question stays queued, and the message says so."""
    home = Path(tempfile.mkdtemp(prefix="segcite-noworker-", dir="/tmp"))
    try:
        env = service_env(Services(start_redis(home), database_without_worker), home)
        # A workspace with a document (there is something to ask) that is already ingested: the only work
        # waiting is the question.
        store = PostgresStore(database_without_worker, max_size=1)
        document = store.create_document(workspace_id("lonely"), "unread.json", "docai/unread.json")
        store.update_document(document.id, status="ingested")
        store.close()
        with psycopg.connect(database_without_worker, autocommit=True) as conn:
            conn.execute("delete from segcite_inbox where target = %s", (document.id,))
        result = segcite(env, "ask", "Anyone there?", "--workspace", "lonely", "--timeout", "0.5")
    finally:
        stop_redis(home)
        shutil.rmtree(home, ignore_errors=True)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        "error: no answer after 0.5 s: the question is recorded in the inbox; no worker has taken it yet "
        "(1 waiting); no worker answered a ping (start one with `segcite up` or `segcite worker`)"
    ]


def test_a_fresh_home_says_what_it_starts_and_its_worker_log_stays_quiet() -> None:
    """`documents` starts the embedded PostgreSQL, `ingest` the rest and a worker; each says so once, on stderr.
    The worker's log holds none of the lines LightRAG writes about each new workspace's empty tables."""
    home = Path(tempfile.mkdtemp(prefix="segcite-fresh-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")} | {"SEGCITE_HOME": str(home)}
    try:
        listing = segcite(env, "documents")
        assert listing.stderr.splitlines() == [
            "started the embedded PostgreSQL; it keeps running: `segcite down` stops it",
            "no documents in workspace default",
        ]
        ingested = segcite(env, "ingest", str(DEMO_DOCUMENT), "--workspace", "first")
        assert ingested.returncode == 0, ingested.stderr
        assert ingested.stderr.splitlines()[0] == (
            f"started the embedded Redis and a worker (log: {home / 'worker.log'}); they keep running: "
            "`segcite down` stops them"
        )
        again = segcite(env, "ingest", str(DEMO_DOCUMENT), "--workspace", "second")
        assert again.returncode == 0, again.stderr
        assert "started" not in again.stderr
        log = (home / "worker.log").read_text()
    finally:
        down = segcite(env, "down")
        shutil.rmtree(home, ignore_errors=True)
    assert down.stdout.splitlines()[1:] == ["redis stopped", "postgres stopped"]
    assert "workspace data in table" not in log and 'relation "lightrag_' not in log
    assert "ingest_document" in log  # the worker did log its tasks


# What the commands print, as functions of rows --------------------------------------------------------------


def document(status: str, progress: float, **over) -> DocumentRow:
    values = {"page_count": 3, "segment_count": 40, "error": None}
    return DocumentRow("d1", "w1", "report.json", status, "docai/d1.json", progress=progress, **{**values, **over})


@pytest.mark.parametrize(
    ("status", "progress", "over", "line"),
    [
        ("uploaded", 0.0, {"page_count": None, "segment_count": None}, "waiting for a worker"),
        ("ingesting", 0.05, {"page_count": None, "segment_count": None}, "reading the Document AI JSON"),
        ("parsed", 0.3, {}, "read 3 pages, 40 segments"),
        ("parsed", 0.3, {"page_count": 1, "segment_count": 1}, "read 1 page, 1 segment"),
        ("ingesting", 0.5, {}, "embedding 40 segments: 0%"),
        ("ingesting", 0.6, {}, "embedding 40 segments: 20%"),
        ("ingesting", 0.76, {}, "embedding 40 segments: 50%"),
        ("ingesting", 0.95, {}, "embedding 40 segments: 100%"),
    ],
)
def test_progress_reads_as_words(status: str, progress: float, over: dict, line: str) -> None:
    assert progress_line(document(status, progress, **over)) == line


def test_the_documents_table_is_aligned_and_shows_why_one_failed() -> None:
    when = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    rows = [
        document("ingested", 1.0, updated_at=when),
        DocumentRow("d22", "w1", "b.json", "failed", None, None, None, "invalid Document AI JSON in b.json", 0.05),
        DocumentRow("d333", "w1", "c.json", "ingesting", "k", 2, 9, None, 0.62),
    ]
    local = when.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    assert documents_table(rows) == [
        "ID    FILE         STATUS         PAGES  SEGMENTS  UPDATED",
        f"d1    report.json  ingested           3        40  {local}",
        "d22   b.json       failed             -         -  -",
        "  error: invalid Document AI JSON in b.json",
        "d333  c.json       ingesting 62%      2         9  -",
    ]


def test_started_and_timeout_lines() -> None:
    assert started_line(["Redis", "PostgreSQL", "a worker"], HOME, 42) == (
        f"started the embedded Redis and PostgreSQL, and a worker (log: {HOME / 'worker.log'}); "
        "they keep running: `segcite down` stops them"
    )
    assert started_line(["a worker"], HOME, 42) == (
        f"started a worker (log: {HOME / 'worker.log'}); it keeps running: `segcite down` stops it"
    )
    assert answer_timeout_line("processing", 2.5, "") == "no answer after 2.5 s: a worker is still writing it"
    where = "taken from the inbox and queued; no worker has started it yet; the workers are busy with other work"
    assert answer_timeout_line("pending", 300.0, where) == f"no answer after 300 s: the question is {where}"
