"""Retrieval and ingest at scale (design §4 "Scale", issue 44), on one database of N segments (bench/scale_corpus.py
builds it: one workspace of 60% of N, three of 5%, 2% and 1%, and workspaces of 0.032% for the rest):

- per workspace size, p50/p95 of the full-text search, of each vector search (the offline `hash` embedder's and
  the `openai` provider's over synthetic clustered vectors, served by a local OpenAI-compatible server), of the
  fused retrieval (`worker.retrieval.retrieve_context`) for both, and of whole asks (the answer task's body,
  offline answerer); recall@10 of each vector search against an exact scan; how many planted facts are in the
  fused context; the same searches scoped to 10 documents (one holding the planted fact) and to half the
  workspace's documents;
- the build time, the size of each table and index, and the server's memory settings;
- ingest throughput through the real ingest task body (`worker.documents.ingest_document`, one process) into the
  full database, with the hash embedder and, with `--embedding-delay`, against a server that slow.

    python bench/bench_scale.py --home /work/scale-db [--n 1000000] [--reuse] [--queries 30] [--json out.json]

Without `--database-url` it runs the embedded servers in `--home` (default: a new folder under /tmp), leaves their
data there, and stops them at the end; `--reuse` measures the database built there before (its plan is in
`<home>/plan.json`), so a measurement does not wait for its data.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]
from docai_synth import PageSpec, build_document  # noqa: E402
from openai_stub import FakeOpenAI  # noqa: E402
from scale_corpus import (  # noqa: E402
    DENSE_MODEL,
    ClusteredEmbeddings,
    Clusters,
    Tables,
    Text,
    build,
    load_plan,
    plan,
    save_plan,
)
from scale_measure import measure, server_figures  # noqa: E402

from worker import documents  # noqa: E402
from worker.embedded import start_postgres, start_redis, stop_postgres, stop_redis  # noqa: E402
from worker.migrate import apply_migrations  # noqa: E402
from worker.processes import worker_argv  # noqa: E402
from worker.runtime import Runtime, make_runtime  # noqa: E402
from worker.settings import Settings  # noqa: E402

OPERATORS_INDEX_TYPE = os.environ.get("POSTGRES_VECTOR_INDEX_TYPE")


def runtime(home: Path, database_url: str, redis_url: str, **overrides: Any) -> Runtime:
    """A runtime of these settings. LightRAG reads its index type from the environment, where a runtime made before
    in this process may have left its own: it is set back to the operator's (a checkout before issue 44 did not)."""
    os.environ.pop("POSTGRES_VECTOR_INDEX_TYPE", None)
    if OPERATORS_INDEX_TYPE is not None:
        os.environ["POSTGRES_VECTOR_INDEX_TYPE"] = OPERATORS_INDEX_TYPE
    return make_runtime(
        Settings(
            redis_url=redis_url, database_url=database_url, segcite_home=home, segcite_object_store="local", **overrides
        )
    )


class InProcessModel:
    """The synthetic model's vectors computed in this process, in place of the provider's HTTP request: a real
    provider's round trip (50-200 ms) is not the database's, and is not what the bench times."""

    def __init__(self, server: ClusteredEmbeddings):
        self.server = server
        self.dim = server.clusters.dim
        self.model_name = DENSE_MODEL

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray:
        return np.array([self.server.vector_of(t) for t in texts], dtype=np.float32)


def dense_runtime(home: Path, database_url: str, redis_url: str, server: ClusteredEmbeddings, dim: int) -> Runtime:
    """The `openai` embedding provider (its tables, index and search), its model the synthetic one."""
    rt = runtime(
        home,
        database_url,
        redis_url,
        segcite_embedding_provider="openai",
        segcite_embedding_model=DENSE_MODEL,
        segcite_embedding_dim=dim,
        openai_base_url=server.url,
        openai_api_key="stub",
    )
    rt.rag.embedder = InProcessModel(server)
    return rt


def table_of(rt: Runtime, workspace_id: str) -> str:
    """LightRAG's chunk table of the runtime's embedder (created here, with its HNSW index where it has one)."""

    async def name() -> str:
        return (await rt.rag._instance(workspace_id)).chunks_vdb.table_name.lower()

    return rt.rag._run(name(), 300)


def ingest_batch(rt: Runtime, documents_count: int, pages: int) -> dict[str, Any]:
    """Documents created like uploads, then ingested one after another by the task body, in this process."""
    text = Text(23)
    workspace = str(uuid.uuid4())
    ids = []
    for _ in range(documents_count):
        document_id = str(uuid.uuid4())
        specs = [PageSpec([text.segment() for _ in range(4)]) for _ in range(pages)]
        rt.objects.put(f"docai/{document_id}.json", orjson.dumps(build_document(specs)[0]))
        rt.store.create_document(workspace, f"{document_id}.json", f"docai/{document_id}.json", document_id)
        ids.append(document_id)
    documents.ingest_document(rt, ids.pop())  # first use of the workspace: LightRAG's setup, not measured
    start = time.perf_counter()
    segments = sum(documents.ingest_document(rt, document_id)["segments"] for document_id in ids)
    elapsed = time.perf_counter() - start
    return {"documents": len(ids), "segments": segments, "seconds": elapsed, "per_second": segments / elapsed}


def ingest_end_to_end(home: Path, database_url: str, redis_url: str, documents_count: int, pages: int) -> dict:
    """`segcite ingest` of a batch of Document AI JSON files into a new workspace, timed from the command's start to
    its exit (every document `ingested`), with a background worker already running (started, and warmed by one
    file, before the clock starts): the command, the inbox or Celery, the worker's task, the database."""
    text = Text(29)
    folder = home / "e2e"
    folder.mkdir(exist_ok=True)
    files = []
    for number in range(documents_count + 1):
        specs = [PageSpec([text.segment() for _ in range(4)]) for _ in range(pages)]
        path = folder / f"e2e-{uuid.uuid4().hex[:8]}-{number}.json"
        path.write_bytes(orjson.dumps(build_document(specs)[0]))
        files.append(str(path))
    env = {
        **os.environ,
        "SEGCITE_HOME": str(home),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SEGCITE_OBJECT_STORE": "local",
    }
    command = [sys.executable, "-m", "worker.cli", "ingest", "--workspace", f"e2e-{uuid.uuid4().hex[:8]}"]
    log = (home / "e2e-worker.log").open("ab")
    worker = subprocess.Popen(worker_argv(), env=env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
    try:
        subprocess.run([*command, files[0]], env=env, cwd=REPO, check=True, capture_output=True, timeout=600)
        start = time.perf_counter()
        run = subprocess.run([*command, *files[1:]], env=env, cwd=REPO, capture_output=True, text=True, timeout=1800)
        elapsed = time.perf_counter() - start
    finally:
        worker.terminate()
        worker.wait(120)
        log.close()
    if run.returncode != 0:
        raise RuntimeError(f"segcite ingest failed: {run.stderr[-2000:]}")
    segments = sum(int(m.group(1)) for m in re.finditer(r"(\d+) segment\(s\)", run.stdout))
    return {"documents": documents_count, "segments": segments, "seconds": elapsed, "per_second": segments / elapsed}


def print_table(rows: list[dict[str, Any]]) -> None:
    """One line per workspace size and path: p50 / p95 in ms; recall@10; planted facts in the context."""
    columns = [
        ("text", "text"),
        ("vector", "vector"),
        ("fused", "fused"),
        ("ask", "ask"),
        ("fused@10docs", "scoped_fused"),
        ("fused@half", "half_fused"),
    ]
    header = f"{'workspace':>9} {'segments':>8} {'n':>4} {'path':>6} | " + " | ".join(f"{c:>15}" for c, _ in columns)
    print(header + " | recall@10 | facts")
    print("-" * (len(header) + 20))
    for r in rows:
        cells = []
        for _, key in columns:
            p50, p95 = r.get(f"{key}_p50_ms"), r.get(f"{key}_p95_ms")
            cells.append("-".rjust(15) if p50 is None else f"{p50:>6.1f} / {p95:>6.1f}")
        recall = "-" if r.get("recall_at_10") is None else f"{r['recall_at_10']:.3f}"
        print(
            f"{r['workspace']:>9} {r['segments']:>8} {r['workspaces']:>4} {r['path']:>6} | "
            + " | ".join(cells)
            + f" | {recall:>9} | {r['facts_in_context']}/{r['facts_asked']}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="segments in the database (up to 2,000,000)")
    parser.add_argument("--dim", type=int, default=768, help="dimension of the synthetic clustered vectors")
    parser.add_argument("--queries", type=int, default=30, help="questions per workspace size")
    parser.add_argument("--facts", type=int, default=10, help="planted facts per workspace")
    parser.add_argument("--ingest-documents", type=int, default=20, help="documents in the ingest batch (0: none)")
    parser.add_argument("--embedding-delay", type=float, default=None, help="also ingest against a server this slow")
    parser.add_argument("--home", type=Path, help="the embedded servers' folder (kept; default: new under /tmp)")
    parser.add_argument("--reuse", action="store_true", help="measure the database built in --home before")
    parser.add_argument("--build-only", action="store_true", help="build the database, measure nothing")
    parser.add_argument("--database-url")
    parser.add_argument("--redis-url")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 1_000 <= args.n <= 2_000_000:
        parser.error("--n must be between 1,000 and 2,000,000")
    if args.reuse and not args.home:
        parser.error("--reuse needs --home, the folder of the database built before")

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    home = args.home or Path(tempfile.mkdtemp(prefix="sc-scale-", dir="/tmp"))
    home.mkdir(parents=True, exist_ok=True)
    database_url = args.database_url or start_postgres(home)
    redis_url = args.redis_url or start_redis(home)
    apply_migrations(database_url)
    server = None
    report: dict[str, Any] = {}
    try:
        if args.reuse:
            tables, spaces, figures = load_plan(home / "plan.json")
            server = ClusteredEmbeddings(Clusters(tables.dim))
        else:
            spaces = plan(args.n)
            server = ClusteredEmbeddings(Clusters(args.dim))
            dense = dense_runtime(home, database_url, redis_url, server, args.dim)  # first: LightRAG's HNSW index
            table = table_of(dense, spaces[0].id)
            dense.close()
            hash_rt = runtime(home, database_url, redis_url)
            tables = Tables(table, hash_rt.rag.embedder.model_name, args.dim)
            hash_rt.close()
            say(
                f"building {args.n} segments in {len(spaces)} workspaces (vectors: {tables.dense}, {tables.hash_model})"
            )
            started = time.perf_counter()
            figures = build(database_url, tables, spaces, args.facts, say)
            figures["build_seconds"] = time.perf_counter() - started
            save_plan(home / "plan.json", tables, spaces, figures)
        report["n"] = sum(space.size for space in spaces)
        report["build"] = figures
        report["server"] = server_figures(database_url, tables)
        if not args.build_only:
            rts = {
                "openai": lambda: dense_runtime(home, database_url, redis_url, server, tables.dim),
                "hash": lambda: runtime(home, database_url, redis_url),
            }
            report["retrieval"] = measure(rts, database_url, tables, spaces, args.queries, server, say)
        report["ingest"] = {}
        if args.ingest_documents and not args.build_only:
            rt = runtime(home, database_url, redis_url)
            try:
                report["ingest"]["hash"] = ingest_batch(rt, args.ingest_documents, 40)
            finally:
                rt.close()
            report["ingest"]["hash, segcite ingest"] = ingest_end_to_end(
                home, database_url, redis_url, args.ingest_documents, 40
            )
            if args.embedding_delay is not None:
                slow_server = FakeOpenAI()
                slow_server.delay = args.embedding_delay
                slow = runtime(
                    home,
                    database_url,
                    redis_url,
                    segcite_embedding_provider="openai",
                    openai_base_url=slow_server.url,
                    openai_api_key="stub",
                    segcite_embedding_dim=16,
                )
                try:
                    report["ingest"][f"server {args.embedding_delay:g} s"] = ingest_batch(
                        slow, args.ingest_documents, 40
                    )
                finally:
                    slow.close()
                    slow_server.server.shutdown()
    finally:
        if server is not None:
            server.server.shutdown()
        if not args.redis_url:
            stop_redis(home)
        if not args.database_url:
            stop_postgres(home)
    print_report(report)
    if args.json:
        args.json.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))


def print_report(report: dict[str, Any]) -> None:
    build_figures = report["build"]
    print(f"N = {report['n']} segments, built in {build_figures.get('build_seconds', 0):.0f} s")
    if "retrieval" in report:
        print_table(report["retrieval"])
    for name, size in report["server"]["sizes"].items():
        print(f"size {name}: {size / 2**20:.0f} MB")
    print("server: " + ", ".join(f"{k} {v}" for k, v in report["server"]["settings"].items()))
    for name, figures in report["ingest"].items():
        print(
            f"ingest ({name} embedder): {figures['segments']} segments in {figures['documents']} documents, "
            f"{figures['seconds']:.1f} s, {figures['per_second']:.0f} segments/s"
        )


if __name__ == "__main__":
    main()
