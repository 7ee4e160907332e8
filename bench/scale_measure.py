"""bench/bench_scale.py's measurements: per workspace size and vector path, p50/p95 of each search, of the fused
retrieval and of whole asks; recall@10 against exact; planted facts in the context; scoped searches. Written
against the retrieval API (`retrieve_context`, `RagStore.retrieve`, `WorkspaceSegments.search`); where that API has
no `scope` (a checkout before issue 44), the scoped columns are left out."""

from __future__ import annotations

import inspect
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import psycopg
from scale_corpus import QUESTION_NOISE, SMALL_LABEL, ClusteredEmbeddings, Tables, Text, Workspace

from ingest import leading_tag_id
from query import search_terms
from worker import answers
from worker.rag import sparse, workspace_name
from worker.retrieval import CANDIDATES_PER_SLOT, retrieve_context
from worker.runtime import Runtime
from worker.stores import WorkspaceSegments
from worker.stores.rows import Role

RECALL_K = 10
SCOPE_DOCUMENTS = 10
SMALL_SAMPLE = 10  # small workspaces asked, questions spread over them
SCOPED = "scope" in inspect.signature(retrieve_context).parameters


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def questions_for(space: Workspace, text: Text, count: int) -> list[str]:
    """Planted-fact questions and "What about <six words>?" drawn like the corpus, in turns (while facts last)."""
    facts = [f.question for f in space.facts]
    questions = []
    while len(questions) < count:
        if facts and len(questions) % 2 == 0:
            questions.append(facts.pop(0))
        else:
            questions.append("What about " + text.sentences(1, 6)[0].rstrip(".").lower() + "?")
    return questions


def teach(server: ClusteredEmbeddings, conn: psycopg.Connection, tables: Tables, space: Workspace, question: str):
    """The synthetic model's vector of a question: near its planted segment's vector, else near a topic."""
    fact = next((f for f in space.facts if f.question == question), None)
    if fact is None:
        server.known[question] = server.clusters.of_text(question)
        return
    document, index = fact.segment_id.rsplit(":", 1)
    row = conn.execute(
        f'select content_vector::text from "{tables.dense}" where workspace = %s and full_doc_id = %s '
        "and chunk_order_index = %s",
        (workspace_name(space.id), document, int(index)),
    ).fetchone()
    base = np.array([float(x) for x in row[0].strip("[]").split(",")], dtype=np.float32)
    server.known[question] = server.clusters.near(base, question, QUESTION_NOISE)


def exact_ids(conn: psycopg.Connection, tables: Tables, path: str, space: Workspace, vector: Any, k: int) -> list:
    """The exact top K by a scan of the workspace's rows (no index), with each one's distance."""
    with conn.transaction():
        conn.execute("set local enable_indexscan = off")
        conn.execute("set local enable_bitmapscan = off")
        if path == "hash":
            return conn.execute(
                "select document_id::text || ':' || segment_index, d from (select document_id, segment_index, "
                "embedding <#> %s::sparsevec as d from segcite_hash_vectors where workspace_id = %s and model = %s) s "
                "where d < 0 order by d limit %s",
                (vector.to_text(), space.id, tables.hash_model, k),
            ).fetchall()
        return conn.execute(
            f'select left(content, 100), content_vector <=> %s::halfvec from "{tables.dense}" where workspace = %s '
            "order by 2 limit %s",
            ("[" + ",".join(map(str, vector.tolist())) + "]", workspace_name(space.id), k),
        ).fetchall()


def recall(exact: list, found: list[str], distances: dict[str, float]) -> float | None:
    """Share of the exact top K found; a segment found no farther than the exact K-th counts (ties)."""
    if not exact:
        return None
    cutoff = exact[-1][1]
    hits = sum(1 for i in found[:RECALL_K] if distances.get(i, 9.0) <= cutoff + 1e-3)
    return min(hits, len(exact)) / len(exact)


def distances_of(conn, tables: Tables, path: str, space: Workspace, vector: Any, ids: list[str]) -> dict[str, float]:
    pairs = [i.rsplit(":", 1) for i in ids]
    docs, idx = [d for d, _ in pairs], [int(i) for _, i in pairs]
    if path == "hash":
        rows = conn.execute(
            "select document_id::text || ':' || segment_index, embedding <#> %s::sparsevec from segcite_hash_vectors "
            "where workspace_id = %s and model = %s and (document_id, segment_index) in "
            "(select * from unnest(%s::uuid[], %s::int[]))",
            (vector.to_text(), space.id, tables.hash_model, docs, idx),
        ).fetchall()
    else:
        rows = conn.execute(
            f"select full_doc_id || ':' || chunk_order_index, content_vector <=> %s::halfvec "
            f'from "{tables.dense}" where workspace = %s '
            "and (full_doc_id, chunk_order_index) in (select * from unnest(%s::text[], %s::int[]))",
            ("[" + ",".join(map(str, vector.tolist())) + "]", workspace_name(space.id), docs, idx),
        ).fetchall()
    return dict(rows)


class Timings:
    def __init__(self) -> None:
        self.values: dict[str, list[float]] = {}

    def time(self, name: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        result = call(*args, **kwargs)
        self.values.setdefault(name, []).append(time.perf_counter() - start)
        return result

    def row(self) -> dict[str, float]:
        out = {}
        for name, values in self.values.items():
            out[f"{name}_p50_ms"] = 1000 * statistics.median(values)
            out[f"{name}_p95_ms"] = 1000 * percentile(values, 95)
        return out


def ask(rt: Runtime, space: Workspace, question: str) -> dict[str, Any]:
    """A whole ask: the user's message and the assistant's, answered by the answer task's body."""
    conversation = rt.store.create_conversation(space.id)
    user = rt.store.create_message(conversation, Role.USER, question)
    assistant = rt.store.create_message(conversation, Role.ASSISTANT, "", reply_to=user.id)
    return answers.answer_message(rt, assistant.id)


def measure(
    runtimes: dict[str, Callable[[], Runtime]],
    database_url: str,
    tables: Tables,
    spaces: list[Workspace],
    queries: int,
    server: ClusteredEmbeddings,
    say: Callable[[str], None],
) -> list[dict[str, Any]]:
    rows = []
    by_label: dict[str, list[Workspace]] = {}
    for space in spaces:
        by_label.setdefault(space.label, []).append(space)
    with psycopg.connect(database_url, autocommit=True) as conn:
        for path, make in runtimes.items():
            rt = make()
            try:
                for label, group in by_label.items():
                    say(f"  measuring {path} in the {label} workspace(s)")
                    rows.append(_measure_size(rt, conn, tables, path, label, group, queries, server))
            finally:
                rt.close()
    return rows


def _measure_size(rt, conn, tables: Tables, path: str, label: str, group, queries: int, server) -> dict[str, Any]:
    text, rng = Text(11), random.Random(3)
    top_k = rt.settings.segcite_top_k
    pool = top_k * CANDIDATES_PER_SLOT
    chosen = group[:SMALL_SAMPLE] if label == SMALL_LABEL else group[:1]
    asked = {space.id: questions_for(space, text, queries) for space in chosen}
    for space in chosen:
        for question in asked[space.id]:
            teach(server, conn, tables, space, question)
        retrieve_context(rt.rag, WorkspaceSegments(rt.store, space.id), "warm up", top_k)  # LightRAG's instance
    timings, recalls = Timings(), []
    facts_asked = facts_found = scoped_facts = scoped_outside = 0
    for number in range(queries):
        space = chosen[number % len(chosen)]
        question = asked[space.id][number // len(chosen)]
        source = WorkspaceSegments(rt.store, space.id)
        terms = search_terms(question)
        timings.time("text", source.search, terms, pool)
        found = timings.time("vector", rt.rag.retrieve, space.id, question, pool)
        context = timings.time("fused", retrieve_context, rt.rag, source, question, top_k)
        fact = next((f for f in space.facts if f.question == question), None)
        if fact is not None:
            facts_asked += 1
            facts_found += fact.segment_id in {s.segment_id for s in context}
        if path == "hash":
            timings.time("ask", ask, rt, space, question)
        recalls.append(_recall(rt, conn, tables, path, space, question, found))
        if SCOPED:
            scope = _scope(rng, space, fact, SCOPE_DOCUMENTS)
            scoped = timings.time("scoped_fused", retrieve_context, rt.rag, source, question, top_k, scope=scope)
            scoped_outside += sum(s.document_id not in scope for s in scoped)
            scoped_facts += fact is not None and fact.segment_id in {s.segment_id for s in scoped}
            timings.time("scoped_text", source.search, terms, pool, scope=scope)
            timings.time("scoped_vector", rt.rag.retrieve, space.id, question, pool, scope=scope)
            half = _scope(rng, space, fact, max(1, len(space.documents) // 2))
            timings.time("half_fused", retrieve_context, rt.rag, source, question, top_k, scope=half)
    measured = [r for r in recalls if r is not None]
    return {
        "workspace": label,
        "path": path,
        "segments": group[0].size,
        "workspaces": len(group),
        "queries": queries,
        **timings.row(),
        "recall_at_10": statistics.mean(measured) if measured else None,
        "recall_min": min(measured) if measured else None,
        "facts_asked": facts_asked,
        "facts_in_context": facts_found,
        "scoped_facts_in_context": scoped_facts if SCOPED else None,
        "scoped_outside_scope": scoped_outside if SCOPED else None,
    }


def _scope(rng: random.Random, space: Workspace, fact, count: int) -> set[str]:
    """`count` documents of the workspace, the planted fact's among them."""
    scope = set(rng.sample(space.documents, min(count, len(space.documents))))
    if fact is not None:
        scope.add(fact.segment_id.rsplit(":", 1)[0])
    return scope


def _recall(rt, conn, tables: Tables, path: str, space: Workspace, question: str, found: list[str]) -> float | None:
    found = found[:RECALL_K]
    if path == "hash":
        vector = sparse(rt.rag._run(rt.rag.embedder([question]), 60)[0])
        if not vector.indices():
            return None
    else:
        vector = np.asarray(rt.rag._run(rt.rag.embedder([question]), 60)[0])
    exact = exact_ids(conn, tables, path, space, vector, RECALL_K)
    if path != "hash":  # LightRAG's rows: the id is the content's leading tag
        exact = [(leading_tag_id(c), d) for c, d in exact]
    return recall(exact, found, distances_of(conn, tables, path, space, vector, found))


def server_figures(database_url: str, tables: Tables) -> dict[str, Any]:
    """Table and index sizes, and the memory settings of the server."""
    with psycopg.connect(database_url) as conn:
        sizes = dict(
            conn.execute(
                "select c.relname, pg_total_relation_size(c.oid) from pg_class c where c.relname = any(%s) "
                "union all select i.indexrelid::regclass::text, pg_relation_size(i.indexrelid) from pg_index i "
                "where i.indrelid::regclass::text = any(%s)",
                (
                    ["document_segments", "segcite_hash_vectors", "segcite_term_stats", tables.dense],
                    ["document_segments", "segcite_hash_vectors", tables.dense],
                ),
            ).fetchall()
        )
        settings = {
            name: conn.execute(f"show {name}").fetchone()[0]
            for name in ("shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem")
        }
    return {"sizes": sizes, "settings": settings}
