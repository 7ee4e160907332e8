"""The inbox (design §11): how long from the app's commit to the task starting, on the embedded servers.

A question is what an app writes (a conversation, the user's message and a pending assistant reply, plain SQL
in one transaction). "Task started" is the moment the answer task moves the reply to `processing`, seen as the
row's `message.status_updated` event (pg_notify on plain PostgreSQL) by a listener of this process: commit ->
trigger -> NOTIFY -> the worker's taker -> Celery -> the task claiming the row -> its event. Measured:

- single rows, one at a time, with an idle worker (each waits for the previous answer);
- a burst of 40 questions committed in one transaction: each one's start, and when all 40 had left the inbox
  (enqueued), which is the taker's part; later starts wait for the worker's processes, not for the taker.

    python bench/bench_inbox.py [--singles 30] [--burst 40] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import orjson
import psycopg

REPO = Path(__file__).resolve().parent.parent
from docai_synth import PageSpec, build_document  # noqa: E402

from worker.embedded import start_postgres, start_redis, stop_postgres, stop_redis  # noqa: E402
from worker.migrate import apply_migrations  # noqa: E402
from worker.objects import LocalFolderStore  # noqa: E402
from worker.processes import worker_argv  # noqa: E402


class Starts:
    """LISTENs on conversation topics; the monotonic time each message's `processing` event arrived."""

    def __init__(self, database_url: str):
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.started: dict[str, float] = {}
        self.done: dict[str, float] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.pending_listens: list[str] = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def listen(self, topic: str) -> None:
        with self.lock:
            self.pending_listens.append(topic)

    def run(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                topics, self.pending_listens = self.pending_listens, []
            for topic in topics:
                self.conn.execute(f'listen "{topic}"')
            for note in self.conn.notifies(timeout=0.005, stop_after=1):
                now = time.monotonic()
                event = orjson.loads(note.payload)
                if event.get("event") != "message.status_updated":
                    continue
                message_id, status = event["payload"]["message_id"], event["payload"]["status"]
                if status == "processing":
                    self.started.setdefault(message_id, now)
                elif status in ("done", "failed"):
                    self.done.setdefault(message_id, now)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.conn.close()


def insert_question(conn: psycopg.Connection, workspace: str, conversation: str, question: str) -> str:
    """The rows an app writes for one question (a conversation, the question, a pending reply); the reply's id."""
    conn.execute("insert into conversations (id, workspace_id) values (%s, %s)", (conversation, workspace))
    user = conn.execute(
        "insert into messages (conversation_id, role, content, status) values (%s, 'user', %s, 'done') returning id",
        (conversation, question),
    ).fetchone()[0]
    reply = conn.execute(
        "insert into messages (conversation_id, role, reply_to) values (%s, 'assistant', %s) returning id",
        (conversation, user),
    ).fetchone()[0]
    return str(reply)


def wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.002)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"| {label:<44} | {len(ms):>3} | {statistics.median(ms):>8.1f} | {pct(ms, 0.95):>8.1f} | {max(ms):>8.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--singles", type=int, default=30)
    parser.add_argument("--burst", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sc-bench-inbox-", dir="/tmp"))
    redis_url, database_url = start_redis(home), start_postgres(home)
    apply_migrations(database_url)
    env = {**os.environ, "REDIS_URL": redis_url, "DATABASE_URL": database_url, "SEGCITE_HOME": str(home)}
    worker = subprocess.Popen(
        worker_argv(concurrency=args.concurrency, loglevel="WARNING"),
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    starts = Starts(database_url)
    try:
        workspace = str(uuid.uuid4())
        key = "docai/lighthouse.json"
        pages = [PageSpec([f"The lighthouse of cape {i} was built in {1850 + i}." for i in range(5)])]
        LocalFolderStore(home / "objects").put(key, orjson.dumps(build_document(pages)[0]))
        with psycopg.connect(database_url, autocommit=True) as conn:
            document = conn.execute(
                "insert into documents (workspace_id, filename, docai_raw_r2_key) values (%s, 'l.json', %s) "
                "returning id",
                (workspace, key),
            ).fetchone()[0]

            def status() -> str:
                return conn.execute("select status from documents where id = %s", (document,)).fetchone()[0]

            wait(lambda: status() == "ingested", 300, "the worker to start and ingest the document")

            # warm-up: the worker's processes load their runtime on their first tasks
            for _ in range(args.concurrency * 2):
                topic = str(uuid.uuid4())
                starts.listen(f"conversation:{topic}")
                time.sleep(0.05)
                reply = insert_question(conn, workspace, topic, "When was the lighthouse built?")
                wait(lambda reply=reply: reply in starts.done, 120, "a warm-up answer")

            singles: list[float] = []
            for n in range(args.singles):
                conversation = str(uuid.uuid4())
                starts.listen(f"conversation:{conversation}")
                time.sleep(0.05)  # the listener subscribed before the event can come
                with conn.transaction():
                    reply = insert_question(conn, workspace, conversation, f"When was lighthouse {n} built?")
                committed = time.monotonic()
                wait(lambda reply=reply: reply in starts.done, 120, "an answer")
                singles.append(starts.started[reply] - committed)

            conversations = [str(uuid.uuid4()) for _ in range(args.burst)]
            for conversation in conversations:
                starts.listen(f"conversation:{conversation}")
            time.sleep(0.2)
            with conn.transaction():
                replies = [
                    insert_question(conn, workspace, conversation, f"When was lighthouse {n} built?")
                    for n, conversation in enumerate(conversations)
                ]
            committed = time.monotonic()
            wait(lambda: conn.execute("select count(*) from segcite_inbox").fetchone()[0] == 0, 60, "the inbox")
            enqueued = time.monotonic() - committed
            wait(lambda: all(r in starts.done for r in replies), 300, "the burst's answers")
            burst = [starts.started[r] - committed for r in replies]
            burst_done = max(starts.done[r] for r in replies) - committed
    finally:
        starts.close()
        worker.terminate()
        worker.wait(60)
        stop_redis(home)
        stop_postgres(home)
        shutil.rmtree(home, ignore_errors=True)

    print(f"commit -> task started (the reply's `processing` event); worker concurrency {args.concurrency}")
    print(f"| {'case':<44} | {'n':>3} | {'p50 ms':>8} | {'p95 ms':>8} | {'max ms':>8} |")
    print(f"|{'-' * 46}|{'-' * 5}|{'-' * 10}|{'-' * 10}|{'-' * 10}|")
    print(row("single row, idle worker", singles))
    print(row(f"burst of {args.burst} in one transaction", burst))
    print(
        f"burst: all {args.burst} enqueued (inbox empty) {enqueued * 1000:.0f} ms after the commit (polled every 2 ms);"
    )
    print(f"       all answered {burst_done * 1000:.0f} ms after it")


if __name__ == "__main__":
    main()
