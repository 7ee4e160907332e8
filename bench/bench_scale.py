"""Retrieval and ingest at scale (design §4 "Scale", issue 26), on one database of N segments:

- builds N segments (default 200,000) across workspaces of 50%, 10%, 5%, 2% and 1% of N and hundreds of 0.1%,
  from generated text with a Zipf word distribution and planted facts ("The <code word> of <name> is <number>.")
  written with COPY through segcite's own tables (`documents`, `document_segments`, and `segcite_hash_vectors`
  with the hash embedder) and LightRAG's vector table, embedded by the configured embedder (an HNSW index there
  is rebuilt once after the load, not row by row);
- questions: the planted facts', then "What about <six words>?" drawn from the corpus's own word distribution;
- per workspace size: retrieval p50/p95 (vector, full text, fused, as `worker.retrieval` runs them), vector
  recall@10 against an exact scan, and how many planted facts are in the fused context;
- ingest throughput through the real ingest task body (`worker.documents.ingest_document`, one process, a batch
  of documents), with the hash embedder and, with `--embedding-delay`, against a local OpenAI-compatible
  server that takes that long per request.

    python bench/bench_scale.py [--n 200000] [--queries 30] [--embedding-delay 0.2] [--json out.json]
                                [--database-url URL --redis-url URL]   # default: embedded servers in /tmp

Without URLs it starts the embedded servers in a new directory under /tmp, and stops them at the end.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import psycopg

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]
from docai_synth import PageSpec, build_document  # noqa: E402
from openai_stub import FakeOpenAI  # noqa: E402

from ingest import Segment, tagged_text  # noqa: E402
from query import search_terms  # noqa: E402
from worker import documents  # noqa: E402
from worker.embedded import start_postgres, start_redis, stop_postgres, stop_redis  # noqa: E402
from worker.migrate import apply_migrations  # noqa: E402
from worker.rag import OfflineTokenizer, segment_ids_of, sparse, workspace_name  # noqa: E402
from worker.retrieval import CANDIDATES_PER_SLOT, retrieve_context  # noqa: E402
from worker.runtime import Runtime, make_runtime  # noqa: E402
from worker.settings import Settings  # noqa: E402
from worker.stores import WorkspaceSegments  # noqa: E402

SHARES = (("50%", 0.5), ("10%", 0.1), ("5%", 0.05), ("2%", 0.02), ("1%", 0.01))
SMALL_SHARE = 0.001  # the hundreds of small workspaces
SEGMENTS_PER_DOCUMENT = 50
VOCABULARY = 40_000
ZIPF_S = 1.1
RECALL_K = 10
LOAD_BATCH = 10_000  # segments per COPY


@dataclass
class Fact:
    question: str
    segment_id: str


@dataclass
class Workspace:
    label: str
    id: str
    size: int
    facts: list[Fact] = field(default_factory=list)


def plan(n: int) -> list[Workspace]:
    """One workspace per share of N, then workspaces of 0.1% of N (at least 20 segments) for the rest."""
    spaces = [Workspace(label, str(uuid.uuid4()), int(n * share)) for label, share in SHARES]
    small = max(20, int(n * SMALL_SHARE))
    spaces += [Workspace("0.1%", str(uuid.uuid4()), small) for _ in range((n - sum(w.size for w in spaces)) // small)]
    return spaces


class Text:
    """Generated prose: words drawn from a Zipf distribution over a made-up vocabulary. The vocabulary is always
    the same (its own seed), so questions drawn with another `seed` use the corpus's words."""

    def __init__(self, seed: int):
        vocabulary_rng = np.random.default_rng(7)
        syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
        words: dict[str, None] = {}
        while len(words) < VOCABULARY:
            picks = vocabulary_rng.integers(0, len(syllables), size=int(vocabulary_rng.integers(1, 5)))
            words.setdefault("".join(syllables[i] for i in picks), None)
        self.words = list(words)
        self.rng = np.random.default_rng(seed) if seed != 7 else vocabulary_rng

    def sentences(self, count: int, length: int = 12) -> list[str]:
        ranks = np.minimum(self.rng.zipf(ZIPF_S, size=(count, length)), VOCABULARY) - 1
        return [" ".join(self.words[r] for r in row).capitalize() + "." for row in ranks]

    def segment(self) -> str:
        return " ".join(self.sentences(int(self.rng.integers(4, 9))))


def fact_of(rng: random.Random, workspace_index: int, number: int) -> tuple[str, str]:
    """A planted fact and its question: a name and a code word unique in the whole database."""
    name = f"Qx{workspace_index}n{number}var"
    value = rng.randint(100_000, 999_999)
    return f"The clearance code of {name} is {value}.", f"What is the clearance code of {name}?"


def build(rt: Runtime, database_url: str, spaces: list[Workspace], facts_per_space: int, say: Callable) -> None:
    """COPY the planned segments, their documents and their LightRAG chunks (with embeddings)."""
    text, rng = Text(7), random.Random(7)
    tokenizer = OfflineTokenizer()
    table = vector_table(rt, spaces[0].id)
    with psycopg.connect(database_url, autocommit=True) as conn:
        index = conn.execute(
            "select indexname, indexdef from pg_indexes where tablename = %s and indexdef ilike '%%hnsw%%'", (table,)
        ).fetchone()
        if index:
            conn.execute(f'drop index "{index[0]}"')
        pending: list[tuple[Workspace, Segment]] = []
        loaded, started = 0, time.perf_counter()
        for number, space in enumerate(spaces):
            planted = {rng.randrange(space.size) for _ in range(facts_per_space)} if space.size else set()
            for document_start in range(0, space.size, SEGMENTS_PER_DOCUMENT):
                document_id = str(uuid.uuid4())
                count = min(SEGMENTS_PER_DOCUMENT, space.size - document_start)
                conn.execute(
                    "insert into documents (id, workspace_id, filename, status, docai_raw_r2_key, page_count, "
                    "segment_count, progress) values (%s, %s, %s, 'ingested', %s, %s, %s, 1)",
                    (document_id, space.id, f"gen-{document_start}.json", f"docai/{document_id}.json", count, count),
                )
                for index_in_doc in range(count):
                    body = text.segment()
                    if document_start + index_in_doc in planted:
                        sentence, question = fact_of(rng, number, len(space.facts))
                        body = f"{body} {sentence} {text.segment()}"
                        space.facts.append(Fact(question, f"{document_id}:{index_in_doc}"))
                    segment = Segment(document_id, index_in_doc, index_in_doc, "paragraph", body, None, None, None)
                    pending.append((space, segment))
                if len(pending) >= LOAD_BATCH:
                    loaded += copy_batch(rt, conn, table, pending, tokenizer)
                    pending = []
                    say(f"  loaded {loaded} segments ({loaded / (time.perf_counter() - started):.0f}/s)")
        loaded += copy_batch(rt, conn, table, pending, tokenizer)
        say(f"  loaded {loaded} segments in {time.perf_counter() - started:.0f} s; building the HNSW index")
        started = time.perf_counter()
        conn.execute("set maintenance_work_mem = '1GB'")
        if index:
            conn.execute(index[1])
        conn.execute("analyze document_segments")
        if rt.rag.exact_hash:
            conn.execute("analyze segcite_hash_vectors")
        conn.execute(f'analyze "{table}"')
        say(f"  index built in {time.perf_counter() - started:.0f} s")


def built(database_url: str) -> list[Workspace]:
    """The workspaces and planted facts of a database this bench built before (`--reuse`)."""
    with psycopg.connect(database_url) as conn:
        sizes = conn.execute(
            "select w.workspace_id, w.segments from segcite_workspace_stats w where exists "
            "(select 1 from documents d where d.workspace_id = w.workspace_id and d.filename like 'gen-%%') "
            "order by w.segments desc"
        ).fetchall()
        n = sum(size for _, size in sizes)
        labels = {int(n * share): label for label, share in SHARES}
        spaces = {str(w): Workspace(labels.get(size, "0.1%"), str(w), size) for w, size in sizes}
        facts = conn.execute(
            "select workspace_id, document_id, segment_index, "
            "substring(text from 'The clearance code of (Qx[0-9]+n[0-9]+var) is') from document_segments "
            "where text ~ 'The clearance code of Qx[0-9]+n[0-9]+var is'"
        ).fetchall()
    for workspace_id, document_id, index, name in facts:
        if str(workspace_id) in spaces:
            question = f"What is the clearance code of {name}?"
            spaces[str(workspace_id)].facts.append(Fact(question, f"{document_id}:{index}"))
    return list(spaces.values())


def vector_table(rt: Runtime, workspace_id: str) -> str:
    """LightRAG's chunk vector table (its name carries the embedding model and dimension); created here."""

    async def name() -> str:
        return (await rt.rag._instance(workspace_id)).chunks_vdb.table_name.lower()

    return rt.rag._run(name(), 120)


def copy_batch(rt: Runtime, conn: psycopg.Connection, table: str, batch: list, tokenizer: OfflineTokenizer) -> int:
    from lightrag.utils import compute_mdhash_id

    if not batch:
        return 0
    contents = [tagged_text(segment) for _, segment in batch]
    vectors = rt.rag._run(rt.rag.embedder(contents), 3600)
    with conn.transaction():
        with conn.cursor().copy(
            "copy document_segments (document_id, segment_index, workspace_id, page_idx, kind, text) from stdin"
        ) as copy:
            for space, s in batch:
                copy.write_row((s.document_id, s.segment_index, space.id, s.page_idx, s.kind, s.text))
        with conn.cursor().copy(
            f'copy "{table}" (id, workspace, full_doc_id, chunk_order_index, tokens, content, content_vector, '
            "file_path) from stdin"
        ) as copy:
            for (space, s), content, vector in zip(batch, contents, vectors, strict=True):
                copy.write_row(
                    (
                        compute_mdhash_id(content, prefix="chunk-"),
                        workspace_name(space.id),
                        s.document_id,
                        s.segment_index,
                        len(tokenizer.encode(content)),
                        content,
                        "[" + ",".join(f"{x:.6g}" for x in vector) + "]",
                        f"{s.document_id}.json",
                    )
                )
        if rt.rag.exact_hash:  # and their sparse copies (migration 012)
            with conn.cursor().copy(
                "copy segcite_hash_vectors (model, workspace_id, document_id, segment_index, embedding) from stdin"
            ) as copy:
                for (space, s), vector in zip(batch, vectors, strict=True):
                    copy.write_row(
                        (rt.rag.hash_model, space.id, s.document_id, s.segment_index, sparse(vector).to_text())
                    )
    return len(batch)


OLD_SEARCH = "segcite_search_segments_005"


def install_old_search(conn: psycopg.Connection) -> None:
    """Migration 005's search (and its aggregate, which later migrations drop) under other names, to time it beside
    the current one on the same data."""
    sql = (REPO / "migrations" / "005_segment_search.sql").read_text()
    body = sql[sql.index("create or replace aggregate") : sql.index("revoke execute")]
    conn.execute(
        body.replace("segcite_tsquery_or(", f"{OLD_SEARCH}_or(").replace("segcite_search_segments(", f"{OLD_SEARCH}(")
    )


def plain_hnsw_ids(conn: psycopg.Connection, table: str, workspace_id: str, vector: np.ndarray, k: int) -> list[str]:
    """LightRAG's query as pgvector runs it without iterative scans, at its default ef_search (the 'before')."""
    with conn.transaction():
        conn.execute("set local hnsw.iterative_scan = off")
        conn.execute("set local hnsw.ef_search = 40")
        rows = conn.execute(
            f'select content from "{table}" where workspace = %s '
            f"order by content_vector <=> %s::{vector_type(conn, table)} limit %s",
            (workspace_name(workspace_id), vector_literal(vector), k),
        ).fetchall()
    return segment_ids_of([{"content": r[0]} for r in rows])


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def vector_literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6g}" for x in vector) + "]"


def vector_type(conn: psycopg.Connection, table: str) -> str:
    """`vector` or `halfvec`: what LightRAG made the column (POSTGRES_VECTOR_INDEX_TYPE)."""
    row = conn.execute(
        "select t.typname from pg_attribute a join pg_type t on t.oid = a.atttypid "
        "where a.attrelid = %s::regclass and a.attname = 'content_vector'",
        (table,),
    ).fetchone()
    return row[0]


def exact_cutoff(conn: psycopg.Connection, table: str, workspace_id: str, vector: np.ndarray, k: int) -> float | None:
    """The K-th smallest cosine distance in the workspace, by a sequential scan (no index): the exact answer."""
    with conn.transaction():
        conn.execute("set local enable_indexscan = off")
        conn.execute("set local enable_bitmapscan = off")
        rows = conn.execute(
            f'select content_vector <=> %s::{vector_type(conn, table)} from "{table}" '
            "where workspace = %s order by 1 limit %s",
            (vector_literal(vector), workspace_name(workspace_id), k),
        ).fetchall()
    return rows[-1][0] if len(rows) == k else None


def recall(
    conn: psycopg.Connection, table: str, workspace_id: str, vector: np.ndarray, found: list[str], cutoff: float
) -> float:
    """Share of the exact top K that was found. Hash vectors tie often (a question sharing no feature with a
    segment is at distance 1 from it), so "among" means: no farther than the exact K-th; and the exact top K holds
    only segments nearer than 1, as the hash search returns only those (worker/rag.py)."""
    pairs = [(d, int(i)) for d, _, i in (f.rpartition(":") for f in found)]
    cast = vector_type(conn, table)
    rows = conn.execute(
        f'select content_vector <=> %s::{cast} from "{table}" where workspace = %s '
        "and (full_doc_id, chunk_order_index) in (select * from unnest(%s::text[], %s::int[]))",
        (vector_literal(vector), workspace_name(workspace_id), [d for d, _ in pairs], [i for _, i in pairs]),
    ).fetchall()
    expected = RECALL_K
    if cutoff >= 1 - 1e-6:  # fewer than K share a feature with the question: all of those
        expected = conn.execute(
            f'select count(*) from "{table}" where workspace = %s and content_vector <=> %s::{cast} < %s',
            (workspace_name(workspace_id), vector_literal(vector), 1 - 1e-6),
        ).fetchone()[0]
    return min(expected, sum(r[0] <= cutoff + 1e-6 for r in rows)) / expected if expected else 1.0


def questions_for(space: Workspace, text: Text, count: int) -> list[str]:
    """Planted-fact questions first, then questions of common and rarer generated words."""
    questions = [f.question for f in space.facts][:count]
    while len(questions) < count:
        questions.append("What about " + text.sentences(1, 6)[0].rstrip(".").lower() + "?")
    return questions


def measure_retrieval(rt: Runtime, database_url: str, spaces: list[Workspace], queries: int) -> list[dict[str, Any]]:
    text = Text(11)
    table = vector_table(rt, spaces[0].id)
    top_k = rt.settings.segcite_top_k
    pool = top_k * CANDIDATES_PER_SLOT
    rows = []
    by_label: dict[str, list[Workspace]] = {}
    for space in spaces:
        by_label.setdefault(space.label, []).append(space)
    with psycopg.connect(database_url, autocommit=True) as conn:
        install_old_search(conn)
        # LightRAG's plain HNSW search (the 'before' of issue 26), where its table has the index: with the hash
        # embedder in naive mode it has none (searched exactly in segcite_hash_vectors instead).
        hnsw = conn.execute(
            "select 1 from pg_indexes where tablename = %s and indexdef ilike '%%hnsw%%'", (table,)
        ).fetchone()
        for label, group in by_label.items():
            chosen = group[: max(1, min(len(group), 10))]  # small workspaces: ten of them, queries spread
            for space in chosen:  # untimed: LightRAG's instance for the workspace, and the caches, warm up
                retrieve_context(rt.rag, WorkspaceSegments(rt.store, space.id), "warm up", top_k)
            vector_t, text_t, old_text_t, fused_t, recalls, plain_recalls = [], [], [], [], [], []
            facts_found = facts_asked = 0
            for round_number in range(queries):
                space = chosen[round_number % len(chosen)]
                question = questions_for(space, text, queries)[round_number // len(chosen)]
                source = WorkspaceSegments(rt.store, space.id)
                start = time.perf_counter()
                rt.rag.retrieve(space.id, question, pool)
                vector_t.append(time.perf_counter() - start)
                start = time.perf_counter()
                source.search(search_terms(question), pool)
                text_t.append(time.perf_counter() - start)
                start = time.perf_counter()
                conn.execute(
                    f"select document_id from {OLD_SEARCH}(%s, %s, %s)", (space.id, search_terms(question), pool)
                ).fetchall()
                old_text_t.append(time.perf_counter() - start)
                start = time.perf_counter()
                context = retrieve_context(rt.rag, source, question, top_k)
                fused_t.append(time.perf_counter() - start)
                fact = next((f for f in space.facts if f.question == question), None)
                if fact is not None:
                    facts_asked += 1
                    facts_found += fact.segment_id in {s.segment_id for s in context}
                approximate = rt.rag.retrieve(space.id, question, RECALL_K)
                vector = rt.rag._run(rt.rag.embedder([question]), 60)[0]
                cutoff = exact_cutoff(conn, table, space.id, vector, RECALL_K)
                if cutoff is not None:
                    recalls.append(recall(conn, table, space.id, vector, approximate, cutoff))
                if cutoff is not None and hnsw:
                    plain = plain_hnsw_ids(conn, table, space.id, vector, RECALL_K)
                    plain_recalls.append(recall(conn, table, space.id, vector, plain, cutoff))
            rows.append(
                {
                    "workspace": label,
                    "segments": group[0].size,
                    "workspaces": len(group),
                    "queries": queries,
                    "vector_p50_ms": 1000 * statistics.median(vector_t),
                    "vector_p95_ms": 1000 * percentile(vector_t, 95),
                    "text_p50_ms": 1000 * statistics.median(text_t),
                    "text_p95_ms": 1000 * percentile(text_t, 95),
                    "text_005_p50_ms": 1000 * statistics.median(old_text_t),
                    "text_005_p95_ms": 1000 * percentile(old_text_t, 95),
                    "fused_p50_ms": 1000 * statistics.median(fused_t),
                    "fused_p95_ms": 1000 * percentile(fused_t, 95),
                    "recall_at_10": statistics.mean(recalls) if recalls else None,
                    "recall_min": min(recalls) if recalls else None,
                    "recall_plain_hnsw": statistics.mean(plain_recalls) if plain_recalls else None,
                    "facts_asked": facts_asked,
                    "facts_in_context": facts_found,
                }
            )
        conn.execute(f"drop function {OLD_SEARCH}(uuid, text[], integer)")
        conn.execute(f"drop aggregate {OLD_SEARCH}_or(tsquery)")
    return rows


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


def runtime(home: Path, database_url: str, redis_url: str, **overrides: Any) -> Runtime:
    return make_runtime(
        Settings(
            redis_url=redis_url, database_url=database_url, segcite_home=home, segcite_object_store="local", **overrides
        )
    )


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'workspace':>9} {'segments':>8} {'n':>4} | {'vector p50/p95 ms':>17} | {'text p50/p95 ms':>15} | "
        f"{'005 text p50/p95':>17} | {'fused p50/p95 ms':>16} | {'recall@10 mean/min':>18} | "
        f"{'plain HNSW':>10} | facts in context"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        plain = "-" if r["recall_plain_hnsw"] is None else f"{r['recall_plain_hnsw']:.3f}"
        recall = "-" if r["recall_at_10"] is None else f"{r['recall_at_10']:.3f} / {r['recall_min']:.2f}"
        print(
            f"{r['workspace']:>9} {r['segments']:>8} {r['workspaces']:>4} | "
            f"{r['vector_p50_ms']:>7.1f} / {r['vector_p95_ms']:>7.1f} | "
            f"{r['text_p50_ms']:>6.1f} / {r['text_p95_ms']:>6.1f} | "
            f"{r['text_005_p50_ms']:>7.1f} / {r['text_005_p95_ms']:>7.1f} | "
            f"{r['fused_p50_ms']:>7.1f} / {r['fused_p95_ms']:>6.1f} | {recall:>18} | {plain:>10} | "
            f"{r['facts_in_context']}/{r['facts_asked']}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="segments in the database (up to 1,000,000)")
    parser.add_argument("--queries", type=int, default=30, help="questions per workspace size")
    parser.add_argument("--facts", type=int, default=10, help="planted facts per workspace")
    parser.add_argument("--ingest-documents", type=int, default=20, help="documents in the ingest batch")
    parser.add_argument(
        "--embedding-delay", type=float, default=None, help="also ingest against a server this slow (s)"
    )
    parser.add_argument("--reuse", action="store_true", help="measure the database a run built before")
    parser.add_argument("--ingest-only", action="store_true", help="only the ingest batches (into the given database)")
    parser.add_argument("--database-url")
    parser.add_argument("--redis-url")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 1_000 <= args.n <= 1_000_000:
        parser.error("--n must be between 1,000 and 1,000,000")

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    home = Path(tempfile.mkdtemp(prefix="sc-scale-", dir="/tmp"))
    database_url = args.database_url or start_postgres(home)
    redis_url = args.redis_url or start_redis(home)
    apply_migrations(database_url)
    rt = runtime(home, database_url, redis_url)
    report: dict[str, Any] = {"n": args.n}
    try:
        if args.reuse:
            spaces = built(database_url)
            report["n"] = sum(space.size for space in spaces)
            report["build_seconds"] = 0.0
            report["retrieval"] = measure_retrieval(rt, database_url, spaces, args.queries)
        elif not args.ingest_only:
            spaces = plan(args.n)
            say(f"building {args.n} segments in {len(spaces)} workspaces (embedder {rt.rag.embedder.model_name})")
            started = time.perf_counter()
            build(rt, database_url, spaces, args.facts, say)
            report["build_seconds"] = time.perf_counter() - started
            report["retrieval"] = measure_retrieval(rt, database_url, spaces, args.queries)
        pages = 40
        report["ingest"] = {"hash": ingest_batch(rt, args.ingest_documents, pages)}
        rt.close()  # LightRAG shares one connection pool per process: one runtime at a time
        rt = None
        if args.embedding_delay is not None:
            server = FakeOpenAI()
            server.delay = args.embedding_delay
            slow = runtime(
                home,
                database_url,
                redis_url,
                segcite_embedding_provider="openai",
                openai_base_url=server.url,
                openai_api_key="stub",
                segcite_embedding_dim=16,
            )
            try:
                report["ingest"][f"server {args.embedding_delay:g} s"] = ingest_batch(
                    slow, args.ingest_documents, pages
                )
            finally:
                slow.close()
                server.server.shutdown()
    finally:
        if rt is not None:
            rt.close()
        if not args.redis_url:
            stop_redis(home)
        if not args.database_url:
            stop_postgres(home)
    if not args.ingest_only:
        print(f"N = {report['n']} segments, built in {report['build_seconds']:.0f} s")
        print_table(report["retrieval"])
    for name, figures in report["ingest"].items():
        print(
            f"ingest ({name} embedder): {figures['segments']} segments in {figures['documents']} documents, "
            f"{figures['seconds']:.1f} s, {figures['per_second']:.0f} segments/s"
        )
    if args.json:
        args.json.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
