"""The Document AI parse path (design §3a, issue 33): a 200-page PDF is 14 shard tasks (15 pages each) in flight
at once under the project's rate limit, and the whole parse takes about as long as its slowest shard.

Against bench/docai_fake.py (the real google-cloud-documentai client, REST transport) answering each request after
`--delay` seconds (1 s), on the embedded Redis and PostgreSQL with a real Celery worker. Three same-run passes
over the same PDF (each a new document, nothing reused):

- parallel: a worker with 16 threads, DOCUMENTAI_RATE=600 (Google's default): all 14 requests at once;
- rate-limited: the same worker, DOCUMENTAI_RATE=60 (a burst of 6, then one a second): the limiter holds them;
- baseline: a worker of 1 process (one shard at a time), DOCUMENTAI_RATE=600.

Each pass starts its worker and warms it with a one-page PDF first. Reported per pass: requests, the most in
flight at once (as the fake saw them), the slowest request, the parse
(upload -> `parsed`) and the whole (upload -> `ingested`); and parallel's parse over the slowest request and over
the baseline's parse.

    python bench/bench_parse_documentai.py [--pages 200] [--delay 1.0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from docai_fake import FakeDocumentAI, make_pdf  # noqa: E402

from worker.app import make_celery  # noqa: E402
from worker.app_actions import upload, workspace_id  # noqa: E402
from worker.embedded import start_postgres, start_redis, stop_postgres, stop_redis  # noqa: E402
from worker.migrate import apply_migrations  # noqa: E402
from worker.objects import LocalFolderStore  # noqa: E402
from worker.settings import Settings  # noqa: E402
from worker.stores.postgres import PostgresStore  # noqa: E402


def start_worker(env: dict[str, str], pool: list[str], log: Path) -> subprocess.Popen:
    argv = [sys.executable, "-m", "celery", "-A", "worker.app", "worker", "-Q", "ingest,query", "-l", "WARNING", *pool]
    return subprocess.Popen(argv, env=env, cwd=REPO, stdout=log.open("ab"), stderr=subprocess.STDOUT)


def wait_ping(app, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if app.send_task("segcite.ping").get(timeout=2):
                return
        except Exception:
            time.sleep(0.5)
    raise SystemExit("the worker did not answer")


def one_pass(name, fake, store, objects, pdf: Path, pool, env, app, log) -> dict[str, float]:
    worker = start_worker(env, pool, log)
    try:
        wait_ping(app)
        # Warm: a one-page PDF first, so the worker's clients (database, Redis, Document AI) exist, as in a worker
        # that has been serving; the pass measures the parse, not a cold start.
        warm = upload(store, objects, workspace_id(f"bench-{uuid.uuid4()}"), pdf.with_name("one.pdf"))
        while store.get_document(warm.document.id).status not in ("ingested", "failed"):
            time.sleep(0.1)
        before = len(fake.requests)
        fake.max_in_flight = 0
        started = time.monotonic()
        item = upload(store, objects, workspace_id(f"bench-{uuid.uuid4()}"), pdf)
        parsed = ingested = None
        while ingested is None:
            row = store.get_document(item.document.id)
            now = time.monotonic()
            if parsed is None and row.status not in ("uploaded", "parsing"):
                parsed = now - started
            if row.status in ("ingested", "failed"):
                if row.status == "failed":
                    raise SystemExit(f"{name}: failed: {row.error}")
                ingested = now - started
            time.sleep(0.05)
        asked = fake.requests[before:]
        slowest = max(r["took"] for r in asked)
        result = {
            "requests": len(asked),
            "in_flight": fake.max_in_flight,
            "slowest": slowest,
            "parse": parsed,
            "whole": ingested,
            "pages": row.page_count,
        }
        print(
            f"{name:>12}: {result['requests']} requests, at most {result['in_flight']} in flight, slowest request "
            f"{slowest:.2f} s, parse {parsed:.2f} s, whole (to ingested) {ingested:.2f} s, {row.page_count} pages",
            flush=True,
        )
        return result
    finally:
        worker.terminate()
        worker.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--delay", type=float, default=1.0)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="sc-bench-parse-", dir="/tmp"))
    fake = FakeDocumentAI(delay=args.delay)
    redis_url, database_url = start_redis(home), start_postgres(home)
    try:
        apply_migrations(database_url)
        store = PostgresStore(database_url, max_size=2)
        objects = LocalFolderStore(home / "objects")
        pdf = make_pdf([f"Page {n}\nThe ledger line for page {n}." for n in range(1, args.pages + 1)], home / "big.pdf")
        make_pdf(["A page to warm the worker."], home / "one.pdf")
        base = {
            **os.environ,
            "REDIS_URL": redis_url,
            "DATABASE_URL": database_url,
            "SEGCITE_HOME": str(home),
            "DOCUMENTAI_PROJECT_ID": "bench",
            "DOCUMENTAI_PROCESSOR_ID": "ocr",
            "DOCUMENTAI_ENDPOINT": fake.url,
            "DOCUMENTAI_TRANSPORT": "rest",
        }
        app = make_celery(Settings(redis_url=redis_url, segcite_home=home))
        log = home / "worker.log"
        threads = ["-P", "threads", "-c", "16"]
        print(f"{args.pages}-page PDF ({pdf.stat().st_size // 1024} KB), {args.delay:g} s a request", flush=True)
        parallel = one_pass("parallel", fake, store, objects, pdf, threads, base, app, log)
        limited = one_pass(
            "rate 60/min", fake, store, objects, pdf, threads, base | {"DOCUMENTAI_RATE": "60"}, app, log
        )
        baseline = one_pass("1 at a time", fake, store, objects, pdf, ["-c", "1"], base, app, log)
        print(
            f"parallel parse / slowest request: {parallel['parse'] / parallel['slowest']:.2f}x; "
            f"1-at-a-time parse / parallel parse: {baseline['parse'] / parallel['parse']:.1f}x; "
            f"rate-limited parse / parallel parse: {limited['parse'] / parallel['parse']:.1f}x"
        )
        store.close()
    finally:
        fake.close()
        stop_redis(home)
        stop_postgres(home)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
