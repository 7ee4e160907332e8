"""The pipeline on the embedded servers, in one run:

- ingest time of a 48-page document (the sharded fixture when ../shared is there, else a generated one),
  through Celery and in-process;
- answer latency through Celery vs the same pipeline called in-process (overhead in %);
- answers per second through Celery with the extractive provider;
- streaming (design §6), with the `openai` provider against a local server that streams a 6-section reply at
  a fixed rate (50 tokens a second, a token being 4 characters): time to the first `message.delta` and to
  `done`, and how long after the model closes a section that section is on the wire (resolved, in a delta);
  then the same lag for a model that pauses a second after each section it closes (issue 24: a pause must not
  hold a finished section back).

    python bench/bench_pipeline.py [--answers 30] [--streams 10] [--streaming-only]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import orjson
import psycopg
from openai_stub import FakeOpenAI, Streamed

REPO = Path(__file__).resolve().parent.parent
from docai_synth import PageSpec, build_document  # noqa: E402

from worker import answers, documents  # noqa: E402
from worker.embedded import start_postgres, start_redis, stop_postgres, stop_redis  # noqa: E402
from worker.migrate import apply_migrations  # noqa: E402
from worker.processes import worker_argv  # noqa: E402
from worker.settings import Settings  # noqa: E402

SHARDS = REPO.parent / "shared" / "fixtures" / "docai" / "invoice_sharded_48p_noimages"
QUESTIONS = [
    "What is the total amount due?",
    "Who is the invoice from?",
    "What does Service B cost?",
    "When is payment due?",
    "What are the contract terms?",
]


def document_48_pages() -> tuple[str, list[bytes]]:
    if SHARDS.is_dir():
        return "invoice_sharded_48p_noimages (5 shards)", [p.read_bytes() for p in sorted(SHARDS.glob("*.json"))]
    pages = [
        PageSpec(
            [
                f"Invoice page {i}. Total amount due is {100 + i} dollars for Service B.",
                "Payment is due within 30 days of the invoice date.",
            ]
        )
        for i in range(48)
    ]
    return "generated 48 pages", [orjson.dumps(build_document(pages)[0])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=30)
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--streaming-only", action="store_true", help="ingest once, then only the streaming part")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sc-bench-", dir="/tmp"))
    redis_url, database_url = start_redis(home), start_postgres(home)
    apply_migrations(database_url)
    os.environ.update(REDIS_URL=redis_url, DATABASE_URL=database_url, SEGCITE_HOME=str(home))
    from worker.app import app
    from worker.runtime import make_runtime

    worker = subprocess.Popen(
        worker_argv(concurrency=2, loglevel="WARNING"), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    rt = make_runtime(Settings(redis_url=redis_url, database_url=database_url, segcite_home=home))
    try:
        while True:
            try:
                app.send_task("segcite.ping").get(timeout=2)
                break
            except Exception:
                time.sleep(0.5)
        label, blobs = document_48_pages()
        workspace = str(uuid.uuid4())
        document_id = str(uuid.uuid4())
        for i, blob in enumerate(blobs):
            rt.objects.put(f"docai/{document_id}/part-{i}.json", blob)
        rt.store.create_document(workspace, label, f"docai/{document_id}/", document_id)
        if args.streaming_only:
            documents.ingest_document(rt, document_id)
            worker.terminate()
            worker.wait(60)
            streaming(rt, app, database_url, workspace, args.streams)
            streaming(rt, app, database_url, workspace, max(1, args.streams // 2), pause=PAUSE_AFTER_SECTION)
            return

        celery_ingest, local_ingest = [], []
        for _ in range(3):
            rt.store.update_document(document_id, status="uploaded")
            start = time.perf_counter()
            app.send_task("segcite.ingest_document", args=[document_id]).get(timeout=600)
            celery_ingest.append(time.perf_counter() - start)
            rt.store.update_document(document_id, status="uploaded")
            start = time.perf_counter()
            documents.ingest_document(rt, document_id)
            local_ingest.append(time.perf_counter() - start)
        row = rt.store.get_document(document_id)
        print(f"document: {label}: {row.page_count} pages, {row.segment_count} segments")
        print(
            f"ingest through Celery: median {statistics.median(celery_ingest):.2f} s; "
            f"in-process: {statistics.median(local_ingest):.2f} s"
        )

        conversation = rt.store.create_conversation(workspace)

        def new_message(n: int) -> str:
            question = rt.store.create_message(conversation, "user", QUESTIONS[n % len(QUESTIONS)])
            return rt.store.create_message(conversation, "assistant", "", reply_to=question.id).id

        celery_times, local_times = [], []
        for n in range(args.answers):
            message_id = new_message(n)
            start = time.perf_counter()
            app.send_task("segcite.answer_message", args=[message_id]).get(timeout=120)
            celery_times.append(time.perf_counter() - start)
            message_id = new_message(n)
            start = time.perf_counter()
            answers.answer_message(rt, message_id)
            local_times.append(time.perf_counter() - start)
        celery_median, local_median = statistics.median(celery_times), statistics.median(local_times)
        print(
            f"answer latency through Celery: median {celery_median * 1000:.0f} ms; in-process "
            f"{local_median * 1000:.0f} ms; Celery overhead {100 * (celery_median / local_median - 1):.0f}%"
        )

        batch = [new_message(n) for n in range(args.answers * 2)]
        start = time.perf_counter()
        results = [app.send_task("segcite.answer_message", args=[m]) for m in batch]
        for result in results:
            result.get(timeout=300)
        elapsed = time.perf_counter() - start
        done = sum(rt.store.get_message(m).status == "done" for m in batch)
        print(
            f"throughput: {len(batch)} answers in {elapsed:.2f} s = {len(batch) / elapsed:.1f} answers/s "
            f"(2 worker processes, extractive provider; {done}/{len(batch)} done)"
        )
        worker.terminate()
        worker.wait(60)
        streaming(rt, app, database_url, workspace, args.streams)
        streaming(rt, app, database_url, workspace, max(1, args.streams // 2), pause=PAUSE_AFTER_SECTION)
    finally:
        worker.terminate()
        worker.wait(60)
        rt.close()
        stop_redis(home)
        stop_postgres(home)


TOKENS_PER_SECOND = 50
PAUSE_AFTER_SECTION = 1.0  # seconds a "thinking" model waits after closing each section
STREAMED_REPLY = orjson.dumps(
    {
        "sections": [
            {"text": f"Service {name} costs what the invoice of page {n} says, with tax.", "source_ids": []}
            for n, name in enumerate("ABCDEF", start=1)
        ]
    }
).decode()


def section_ends(reply: str) -> list[int]:
    """Where each section object of the reply ends (the index after its closing brace)."""
    ends, depth = [], 0
    for i, char in enumerate(reply):  # the reply is ours and holds no braces inside strings
        depth += (char == "{") - (char == "}")
        if char == "}" and depth == 1:
            ends.append(i + 1)
    return ends


def streaming(rt, app, database_url: str, workspace: str, count: int, pause: float = 0.0) -> None:
    """Time to first delta and to done, and the lag from a section's close to its delta, through Celery. With
    `pause`, the model waits that long after each piece that closes a section."""
    model = FakeOpenAI()
    pieces = [STREAMED_REPLY[i : i + 4] for i in range(0, len(STREAMED_REPLY), 4)]
    closing = {-(-end // 4) for end in section_ends(STREAMED_REPLY)}  # the index of the piece after each close
    pauses = {index: pause for index in closing if pause and index < len(pieces)}
    env = {**os.environ, "SEGCITE_LLM_PROVIDER": "openai", "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-bench"}
    worker = subprocess.Popen(
        worker_argv("query", concurrency=1, loglevel="WARNING"),
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    first_delta, done, lags = [], [], []
    try:
        app.send_task("segcite.ping").get(timeout=60)
        conversation = rt.store.create_conversation(workspace)
        with psycopg.connect(database_url, autocommit=True) as listen:
            listen.execute(f'listen "conversation:{conversation}"')
            for n in range(count):
                model.sent.clear()
                model.replies.append((200, Streamed(pieces, gap=1 / TOKENS_PER_SECOND, pauses=pauses)))
                question = rt.store.create_message(conversation, "user", QUESTIONS[n % len(QUESTIONS)])
                message = rt.store.create_message(conversation, "assistant", "", reply_to=question.id).id
                start = time.monotonic()
                app.send_task("segcite.answer_message", args=[message])
                arrivals = receive(listen, message)  # (time, number of sections) of each delta, then done
                first_delta.append(arrivals[0][0] - start)
                done.append(arrivals[-1][0] - start)
                lags.extend(section_lags(model.sent, arrivals[:-1]))
    finally:
        worker.terminate()
        worker.wait(60)
        model.server.shutdown()
    reply_seconds = len(pieces) / TOKENS_PER_SECOND + pause * len(pauses)
    paused = f", pausing {pause:.1f} s after each section" if pause else ""
    print(
        f"streaming ({count} answers, a {len(pieces)}-token reply at {TOKENS_PER_SECOND} tokens/s{paused} = "
        f"{reply_seconds:.1f} s): first delta after median {statistics.median(first_delta) * 1000:.0f} ms, "
        f"done after {statistics.median(done):.2f} s"
    )
    lags.sort()
    print(
        f"a section on the wire after the model closed it: median {statistics.median(lags) * 1000:.0f} ms, "
        f"p90 {lags[int(len(lags) * 0.9)] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms ({len(lags)} sections)"
    )


def receive(listen: psycopg.Connection, message_id: str) -> list[tuple[float, int]]:
    arrivals: list[tuple[float, int]] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for note in listen.notifies(timeout=0.5, stop_after=1):
            event = orjson.loads(note.payload)
            payload = event["payload"]
            if payload.get("message_id") != message_id:
                continue
            if event["event"] == "message.delta":
                arrivals.append((time.monotonic(), len(payload.get("sections", []))))
            elif payload.get("status") in ("done", "failed"):
                arrivals.append((time.monotonic(), -1))
                return arrivals
    raise TimeoutError(f"no final event for {message_id}")


def section_lags(sent: list[tuple[float, str]], deltas: list[tuple[float, int]]) -> list[float]:
    """For each section: when the first delta holding it arrived, minus when the model sent its closing brace."""
    closes, position, ends = [], 0, section_ends(STREAMED_REPLY)
    for at, piece in sent:
        position += len(piece)
        while len(closes) < len(ends) and position >= ends[len(closes)]:
            closes.append(at)
    lags = []
    for k, closed in enumerate(closes):
        shown = next((at for at, sections in deltas if sections > k), None)
        if shown is not None:
            lags.append(shown - closed)
    return lags


if __name__ == "__main__":
    main()
