"""A question scoped to chosen documents (issues 41 and 44, design §4 "Scale"): the full-text search
(migrations/016_search_scope.sql), the hash embedder's vector search (worker/vector_search.py) and the fused
retrieval return only segments of the scope, K of them when the scope holds K, and the scope is a condition of
their SQL served by an index (checked with the statistics of the search's own transaction, and with its plan)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ingest import Segment
from worker.embeddings import HashEmbedder
from worker.rag import RagStore
from worker.retrieval import retrieve_context
from worker.settings import Settings
from worker.stores import WorkspaceSegments
from worker.stores.postgres import PostgresStore
from worker.vector_search import _EXACT, sparse

K = 8
DOCUMENTS = 40
PER_DOCUMENT = 150  # 6,000 segments: past the 5,000 a scope is searched exactly in, for the half-workspace scope


@pytest.fixture(scope="module")
def rag(database_without_worker: str, services, service_home: Path) -> Iterator[RagStore]:
    settings = Settings(segcite_home=service_home, segcite_exact_vector_limit=1000)
    store = RagStore(settings, database_without_worker, HashEmbedder(settings.segcite_embedding_dim))
    yield store
    store.close()


@pytest.fixture(scope="module")
def store(database_without_worker: str) -> Iterator[PostgresStore]:
    store = PostgresStore(database_without_worker, max_size=2)
    yield store
    store.close()


@pytest.fixture(scope="module")
def workspace(rag: RagStore, store: PostgresStore, database_without_worker: str) -> tuple[str, list[str]]:
    """One workspace of 40 documents of 150 segments, each segment naming its document ("docN") and sharing the
    words "invoice total" with every other one, ingested into both the segments table and the RAG store."""
    workspace = str(uuid.uuid4())
    ids = []
    for number in range(DOCUMENTS):
        row = store.create_document(workspace, f"d{number}.json", f"docai/d{number}.json")
        texts = [f"Invoice total {i} of doc{number}, line {i % 7} marker{i % 13}." for i in range(PER_DOCUMENT)]
        segments = [Segment(row.id, i, 0, "paragraph", t, None, None, None) for i, t in enumerate(texts)]
        store.replace_segments(row, segments)
        store.update_document(row.id, segment_count=len(segments), status="ingested")
        assert rag.replace_document(workspace, row.id, segments) == PER_DOCUMENT
        ids.append(row.id)
    with psycopg.connect(database_without_worker, autocommit=True) as conn:
        conn.execute("analyze document_segments")
        conn.execute("analyze segcite_hash_vectors")
        conn.execute("analyze documents")
    return workspace, ids


def read_in_one_transaction(database_url: str, sql: str, params: tuple) -> tuple[int, int, int]:
    """Rows the statement fetched from document_segments (by its indexes or its heap), and its sequential scans of
    it, from the statistics of its own transaction; and how many rows it returned."""
    with psycopg.connect(database_url) as conn:
        conn.execute("set max_parallel_workers_per_gather = 0")
        returned = len(conn.execute(sql, params).fetchall())
        fetched, scans = conn.execute(
            "select pg_stat_get_xact_tuples_fetched('document_segments'::regclass)"
            " + coalesce(sum(pg_stat_get_xact_tuples_fetched(indexrelid)), 0),"
            " pg_stat_get_xact_numscans('document_segments'::regclass)"
            " from pg_index where indrelid = 'document_segments'::regclass"
        ).fetchone()
    return fetched, scans, returned


def test_full_text_in_a_scope_returns_its_segments_only_k_of_them(store: PostgresStore, workspace) -> None:
    workspace_id, ids = workspace
    scope = {ids[3], ids[17]}
    found = store.search_segments(workspace_id, ["invoice", "total"], K, scope)
    assert len(found) == K and {s.document_id for s in found} <= scope
    # A rarer word of one document of the scope comes first; "doc5" is not in the scope: nothing of it.
    found = store.search_segments(workspace_id, ["doc17", "marker3"], K, scope)
    assert len(found) == K and all(s.document_id == ids[17] for s in found)
    assert store.search_segments(workspace_id, ["doc5"], K, scope) == []
    assert len(store.search_segments(workspace_id, ["doc17"], 500, {ids[17]})) == PER_DOCUMENT
    # Without a scope, the whole workspace; an empty scope, or ids that name no document: nothing.
    assert {s.document_id for s in store.search_segments(workspace_id, ["doc5"], K)} == {ids[5]}
    assert store.search_segments(workspace_id, ["invoice"], K, set()) == []
    assert store.search_segments(workspace_id, ["invoice"], K, {"not-a-uuid", str(uuid.uuid4())}) == []


def test_a_scoped_full_text_search_reads_its_scope_through_an_index(workspace, database_without_worker) -> None:
    workspace_id, ids = workspace
    sql = "select document_id from segcite_search_segments(%s, %s, %s, %s::uuid[])"
    fetched, scans, returned = read_in_one_transaction(
        database_without_worker, sql, (workspace_id, ["invoice", "total"], K, [ids[3]])
    )
    # One document's 150 segments reached by the primary key (and each candidate's row once more, by key), no scan
    # of the table: not the workspace's 6,000.
    assert returned == K and scans == 0 and fetched <= 4 * PER_DOCUMENT
    # The same for the two documents asked about, of any scope size: the rows read follow the scope, not the
    # workspace.
    fetched_two, scans, returned = read_in_one_transaction(
        database_without_worker, sql, (workspace_id, ["invoice", "total"], K, ids[5:7])
    )
    assert returned == K and scans == 0 and fetched < fetched_two <= 8 * PER_DOCUMENT


def test_the_hash_vector_search_in_a_scope_returns_its_segments_only(rag: RagStore, workspace) -> None:
    workspace_id, ids = workspace
    scope = {ids[8]}
    found = rag.retrieve(workspace_id, "invoice total marker5", K, scope=scope)
    assert len(found) == K and {i.rsplit(":", 1)[0] for i in found} == scope
    # Past SEGCITE_EXACT_VECTOR_LIMIT (1,000 here), the scope's full-text candidates are ranked: still in scope.
    half = set(ids[:20])
    found = rag.retrieve(workspace_id, "invoice total doc12 marker5", K, scope=half)
    assert len(found) == K and {i.rsplit(":", 1)[0] for i in found} == {ids[12]}
    found = rag.retrieve(workspace_id, "doc31 marker5", K)  # the whole workspace (6,000), bounded the same way
    assert len(found) == K and {i.rsplit(":", 1)[0] for i in found} == {ids[31]}
    # A word of another document: whatever the scope's segments share with it (a hash collision), only them.
    assert {i.rsplit(":", 1)[0] for i in rag.retrieve(workspace_id, "doc31", K, scope={ids[0]})} <= {ids[0]}
    assert rag.retrieve(workspace_id, "invoice", K, scope=set()) == []


def test_the_scoped_exact_hash_search_is_planned_on_the_primary_key(rag: RagStore, workspace, database_without_worker):
    workspace_id, ids = workspace
    vector = sparse(rag._run(rag.embedder(["invoice total"]), 30)[0])
    with psycopg.connect(database_without_worker) as conn:
        statement = _EXACT.format(scope=" and document_id = any($5::uuid[])")
        for number, name in enumerate(("model", "workspace", "vector", "k", "scope"), start=1):
            statement = statement.replace(f"${number}", f"%({name})s")
        conn.execute("set enable_seqscan = off")  # as the search sets it (vector_search._EXACT_PLAN)
        plan = conn.execute(
            "explain (format json) " + statement.replace("%(vector)s", "%(vector)s::sparsevec"),
            {"model": rag.hash_model, "workspace": workspace_id, "vector": vector.to_text(), "k": K, "scope": [ids[2]]},
        ).fetchone()[0]
    # The scope is a condition of the index scan (its key's second column), not a filter applied to what it read.
    conditions = [n.get("Index Cond", "") for n in _nodes(plan[0]["Plan"])]
    assert any("document_id = ANY" in c and "workspace_id =" in c for c in conditions), conditions


def test_the_fused_context_of_a_scoped_question_is_the_scope_s(rag: RagStore, store: PostgresStore, workspace) -> None:
    workspace_id, ids = workspace
    segments = WorkspaceSegments(store, workspace_id)
    context = retrieve_context(rag, segments, "What is the invoice total of doc9?", K, scope={ids[9], ids[10]})
    assert len(context) == K and {s.document_id for s in context} <= {ids[9], ids[10]}
    assert context[0].document_id == ids[9]
    unscoped = retrieve_context(rag, segments, "What is the invoice total of doc9?", K)
    assert len(unscoped) == K and unscoped[0].document_id == ids[9]


def _nodes(plan: dict) -> list[dict]:
    return [plan, *(n for child in plan.get("Plans", []) for n in _nodes(child))]
