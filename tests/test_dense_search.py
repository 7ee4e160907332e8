"""Vector search for a real embedding model (the `openai` provider, worker/vector_search.py, design §4 "Scale"): its
SQL on LightRAG's chunk table, through the HNSW index (half precision) with iterative scans, returns what an
exact search does on a workspace of a few thousand segments, and a scoped question gets only its documents'
segments, K of them, through segcite's `(workspace, full_doc_id)` index. The model is a local OpenAI-compatible
server giving clustered vectors (bench/scale_corpus.py): each document's text names its topic."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest
from scale_corpus import ClusteredEmbeddings, Clusters

from ingest import Segment, tagged_text
from worker.embeddings import OpenAIEmbedder
from worker.rag import RagStore, workspace_name
from worker.settings import Settings
from worker.vector_search import scope_index_name

DIM = 64
K = 10
DOCUMENTS = 60
PER_DOCUMENT = 50  # 3,000 segments


class TopicEmbeddings(ClusteredEmbeddings):
    """A text naming "topicN" is near topic N; a question is embedded like any text."""

    def vector_of(self, text: str) -> np.ndarray:
        found = re.search(r"topic(\d+)", text)
        return self.clusters.of_topic(int(found.group(1)), text) if found else self.clusters.of_text(text)


@pytest.fixture(scope="module")
def server() -> Iterator[TopicEmbeddings]:
    server = TopicEmbeddings(Clusters(DIM))
    yield server
    server.server.shutdown()


@pytest.fixture(scope="module")
def rag(database_without_worker: str, services, service_home: Path, server) -> Iterator[RagStore]:
    settings = Settings(
        segcite_home=service_home,
        segcite_embedding_provider="openai",
        segcite_embedding_model="test-clustered",
        segcite_embedding_dim=DIM,
        openai_base_url=server.url,
        openai_api_key="stub-key",
    )
    store = RagStore(settings, database_without_worker, OpenAIEmbedder(settings))
    yield store
    store.close()


@pytest.fixture(scope="module")
def workspace(rag: RagStore, database_without_worker: str) -> tuple[str, list[list[Segment]]]:
    """60 documents of 50 segments; document N's segments are about topic N % 12 (5 documents a topic)."""
    workspace = str(uuid.uuid4())
    documents = []
    for number in range(DOCUMENTS):
        document = str(uuid.uuid4())
        texts = [f"Paragraph {i} of report {number} on topic{number % 12}." for i in range(PER_DOCUMENT)]
        segments = [Segment(document, i, 0, "paragraph", t, None, None, None) for i, t in enumerate(texts)]
        assert rag.replace_document(workspace, document, segments) == PER_DOCUMENT
        documents.append(segments)
    with psycopg.connect(database_without_worker, autocommit=True) as conn:
        conn.execute(f"analyze {_table(rag, workspace)}")
    return workspace, documents


def _table(rag: RagStore, workspace: str) -> str:
    async def name() -> str:
        return (await rag._instance(workspace)).chunks_vdb.table_name.lower()

    return rag._run(name(), 60)


def exact_top(server: TopicEmbeddings, question: str, segments: list[Segment], k: int) -> tuple[list[str], float]:
    """The exact top K by cosine distance, and the K-th distance."""
    vectors = np.array([server.vector_of(tagged_text(s)) for s in segments])
    distances = 1 - vectors @ server.vector_of(question)
    order = np.argsort(distances)[:k]
    return [segments[i].segment_id for i in order], float(distances[order[-1]])


def plan_of(conn: psycopg.Connection, rag: RagStore, workspace: str, vector: np.ndarray, scope: list[str] | None):
    """The plan the dense search's query gets (worker/vector_search.py's SQL, its settings, this workspace)."""
    from worker.vector_search import _DENSE

    table = _table(rag, workspace)
    sql = _DENSE.format(kind="halfvec", table=table, scope="" if scope is None else " and full_doc_id = any(%s)")
    sql = sql.replace("$1", "%s").replace("$2", "%s").replace("$3", "%s")
    literal = "[" + ",".join(map(str, vector.tolist())) + "]"
    if scope is not None:  # placeholders in order of appearance: vector, workspace, scope, vector, k
        params = [literal, workspace_name(workspace), scope, literal, K]
    else:
        params = [literal, workspace_name(workspace), literal, K]
    with conn.transaction():
        conn.execute("set local hnsw.iterative_scan = relaxed_order")
        conn.execute("set local hnsw.ef_search = 100")
        rows = conn.execute("explain (format json) " + sql, params).fetchone()[0]
    return rows[0]["Plan"]


def _nodes(plan: dict) -> list[dict]:
    return [plan, *(n for child in plan.get("Plans", []) for n in _nodes(child))]


def test_the_approximate_search_returns_the_exact_top_k(rag: RagStore, server, workspace) -> None:
    workspace_id, documents = workspace
    segments = [s for document in documents for s in document]
    recalls = []
    for topic in range(12):
        question = f"What does the report say about topic{topic}?"
        found = rag.retrieve(workspace_id, question, K)
        exact, kth = exact_top(server, question, segments, K)
        distances = {s.segment_id: d for s, d in zip(segments, _distances(server, question, segments), strict=True)}
        assert len(found) == K
        # Found no farther than the exact K-th (half precision: a tie may swap), in order.
        recalls.append(sum(distances[i] <= kth + 2e-3 for i in found) / K)
        assert [round(distances[i], 2) for i in found] == sorted(round(distances[i], 2) for i in found)
    assert np.mean(recalls) >= 0.95, recalls


def _distances(server: TopicEmbeddings, question: str, segments: list[Segment]) -> np.ndarray:
    vectors = np.array([server.vector_of(tagged_text(s)) for s in segments])
    return 1 - vectors @ server.vector_of(question)


def test_the_workspace_s_search_runs_on_the_hnsw_index(rag: RagStore, server, workspace, database_without_worker):
    workspace_id, _ = workspace
    vector = server.vector_of("What does the report say about topic3?")
    with psycopg.connect(database_without_worker) as conn:
        conn.execute("set enable_seqscan = off")  # a table this small is cheaper to read whole; at scale it is not
        nodes = _nodes(plan_of(conn, rag, workspace_id, vector, None))
    assert any("hnsw" in n.get("Index Name", "") for n in nodes), [n.get("Index Name") for n in nodes]


def test_a_scoped_question_gets_its_documents_only_through_the_scope_index(
    rag: RagStore, server, workspace, database_without_worker
) -> None:
    workspace_id, documents = workspace
    scope = [documents[7][0].document_id, documents[30][0].document_id]
    question = "What does the report say about topic7?"  # document 7 is about topic 7, document 30 about topic 6
    found = rag.retrieve(workspace_id, question, K, scope=set(scope))
    assert len(found) == K and {i.rsplit(":", 1)[0] for i in found} == {scope[0]}
    # The scope holds 100 segments: asked for 150, all 100 of them and no other.
    found = rag.retrieve(workspace_id, question, 150, scope=set(scope))
    assert len(found) == 2 * PER_DOCUMENT and {i.rsplit(":", 1)[0] for i in found} == set(scope)
    assert rag.retrieve(workspace_id, question, K, scope={str(uuid.uuid4())}) == []
    with psycopg.connect(database_without_worker) as conn:
        nodes = _nodes(plan_of(conn, rag, workspace_id, server.vector_of(question), scope))
    table = _table(rag, workspace_id)
    assert scope_index_name(table) in {n.get("Index Name") for n in nodes}, [n.get("Index Name") for n in nodes]
