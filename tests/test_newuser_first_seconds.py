"""Issue 34, a new user's first seconds on a fresh SEGCITE_HOME with no URL set: `config` before anything runs,
`up` returning once its worker answers, `status` right after, and `documents` run over and over while an ingest
writes (once, a `deadlock detected` came from a command migrating under an ingest)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import orjson
from conftest import REPO, segcite
from docai_synth import PageSpec, build_document

from worker.cli.status import workers_line
from worker.settings import Settings

NOT_STARTED = "embedded, not started yet (the first command that needs it starts it)"


def config(env: dict[str, str]) -> dict[str, str]:
    result = segcite(env, "config")
    assert result.returncode == 0, result.stderr
    return dict(line.split("=", 1) for line in result.stdout.splitlines())


def big_document(path: Path, pages: int) -> Path:
    """A document whose ingest takes several seconds: `pages` pages of six sentences each."""
    specs = [
        PageSpec([f"Shipment {page}-{line} left dock {line} carrying {page * 7 + line} crates." for line in range(6)])
        for page in range(pages)
    ]
    path.write_bytes(orjson.dumps(build_document(specs)[0]))
    return path


def test_config_up_status_and_documents_during_an_ingest_on_a_fresh_home(tmp_path: Path) -> None:
    home = Path(tempfile.mkdtemp(prefix="segcite-new-", dir="/tmp"))
    env = {
        k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL") and not k.startswith("SEGCITE_")
    }
    env["SEGCITE_HOME"] = str(home)
    try:
        before = config(env)
        planned = f"postgresql://postgres:@/postgres?host={home.resolve() / 'pg'}"
        assert before["DATABASE_URL"] == f"{planned}  # {NOT_STARTED}"
        assert before["REDIS_URL"] == f"redis+socket://{home / 'redis' / 'redis.sock'}  # {NOT_STARTED}"

        up = segcite(env, "up", timeout=180)
        assert up.returncode == 0, up.stderr
        lines = up.stdout.splitlines()
        assert lines[:2] == [f"redis:    redis+socket://{home / 'redis' / 'redis.sock'}", f"postgres: {planned}"]
        assert lines[2].startswith("worker:   pid ") and lines[2].endswith(
            f", answering a ping, log {home / 'worker.log'}"
        )
        status = segcite(env, "status")  # right after `up`: its worker answers already
        assert status.returncode == 0, status.stderr
        assert status.stdout.splitlines()[-1] == "workers: 1 answering a ping"
        after = config(env)
        assert after["DATABASE_URL"] == f"{planned}  # embedded, running"  # the URL `config` said it would be

        workspace = f"busy-{uuid.uuid4().hex[:6]}"
        # 5,000 pages, 15 s or more: each listing is a command of its own (2-3 s, more on a loaded machine), and 1,200
        # pages took 3 s once ingest ran 370 segments/s
        document = big_document(tmp_path / "manifest.json", 5000)
        ingest = subprocess.Popen(
            [sys.executable, "-m", "worker.cli", "ingest", str(document), "--workspace", workspace],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen: list[str] = []
        try:
            while ingest.poll() is None:
                listed = segcite(env, "documents", "--workspace", workspace, "--json", timeout=60)
                if not seen and listed.returncode == 2 and "does not exist" in listed.stderr:
                    continue  # the ingest has not made its row yet, so the workspace does not exist yet
                assert listed.returncode == 0, listed.stderr
                assert "deadlock" not in listed.stderr
                seen.extend(row["status"] for row in orjson.loads(listed.stdout))
        finally:
            out, err = ingest.communicate(timeout=300)
        assert ingest.returncode == 0, err
        assert out.startswith("manifest.json: ingested, 5000 page(s), 5000 segment(s)")
        # A listing ran while the ingest wrote (not only before or after it), and said so. (How many did depends on
        # the machine's load: under two busy loops, one did.)
        assert any(status in ("parsed", "ingesting") for status in seen), seen
    finally:
        down = segcite(env, "down", timeout=120)
        shutil.rmtree(home, ignore_errors=True)
    assert down.stdout.splitlines()[1:] == ["redis stopped", "postgres stopped"]


def test_status_says_the_background_worker_is_starting(tmp_path: Path) -> None:
    settings = Settings(segcite_home=tmp_path)
    assert workers_line(settings, 0) == "workers: 0 answering a ping"
    (tmp_path / "worker.pid").write_text(str(os.getpid()))  # a process that runs, as `up`'s worker does
    assert workers_line(settings, 0) == (
        f"workers: 0 answering a ping; starting (pid {os.getpid()}, log {tmp_path / 'worker.log'})"
    )
    assert workers_line(settings, 1) == "workers: 1 answering a ping"
