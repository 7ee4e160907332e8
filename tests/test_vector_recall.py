"""Vector search with the offline `hash` embedder (worker/rag.py, design §4 "Scale"): its vectors are kept sparse
in segcite_hash_vectors (migration 012) and searched exactly there, whatever the workspace's size; LightRAG's
chunk table then has no HNSW index. The exact answer is computed here with numpy from the same embedder."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

from ingest import Segment, tagged_text
from worker.embeddings import HashEmbedder, hash_embed
from worker.rag import RagStore, workspace_name
from worker.settings import Settings

WORDS = "alpha beta gamma delta omega sigma kappa lambda theta zeta rho tau".split()
K = 8


@pytest.fixture(scope="module")
def rag(database_without_worker: str, services, service_home: Path) -> Iterator[RagStore]:
    settings = Settings(segcite_home=service_home)
    store = RagStore(settings, database_without_worker, HashEmbedder(settings.segcite_embedding_dim))
    yield store
    store.close()


def workspace_with(rag: RagStore, count: int) -> tuple[str, list[Segment]]:
    rng = random.Random(5)
    workspace, document = str(uuid.uuid4()), str(uuid.uuid4())
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(3, 12))) + f" item{i}." for i in range(count)]
    segments = [Segment(document, i, 0, "paragraph", text, None, None, None) for i, text in enumerate(texts)]
    assert rag.replace_document(workspace, document, segments) == count
    return workspace, segments


def exact_distances(rag: RagStore, question: str, segments: list[Segment]) -> dict[str, float]:
    vectors = hash_embed([question, *(tagged_text(s) for s in segments)], rag.embedder.dim)
    return {s.segment_id: 1.0 - float(np.dot(vectors[0], v)) for s, v in zip(segments, vectors[1:], strict=True)}


def test_a_workspace_within_the_bound_gets_the_exact_top_k_in_order(rag: RagStore) -> None:
    workspace, segments = workspace_with(rag, 60)
    for question in ("gamma delta omega", "kappa kappa theta", "What about rho and beta?"):
        distances = exact_distances(rag, question, segments)
        kth = sorted(distances.values())[K - 1]
        found = rag.retrieve(workspace, question, K)
        assert len(found) == K, question
        # Every one found is within the exact top K (half-precision vectors: equal distances may swap).
        assert all(distances[i] <= kth + 1e-3 for i in found), (question, found)
        assert [round(distances[i], 2) for i in found] == sorted(round(distances[i], 2) for i in found)


def test_a_question_without_content_words_is_near_nothing(rag: RagStore) -> None:
    workspace, _ = workspace_with(rag, 12)
    assert not np.any(asyncio.run(rag.embedder(["what is the"]))[0])
    assert rag.retrieve(workspace, "what is the", K) == []


def hash_vector_rows(database: str, workspace: str) -> dict[str, int]:
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "select document_id::text, count(*) from segcite_hash_vectors where workspace_id = %s group by 1",
            (workspace,),
        ).fetchall()
    return dict(rows)


def test_each_chunk_has_its_sparse_vector_and_lightrag_has_no_hnsw_index(
    rag: RagStore, database_without_worker
) -> None:
    workspace, segments = workspace_with(rag, 25)
    document = segments[0].document_id
    assert hash_vector_rows(database_without_worker, workspace) == {document: 25}
    with psycopg.connect(database_without_worker) as conn:
        stored = conn.execute(
            "select segment_index, embedding::text from segcite_hash_vectors where document_id = %s order by 1",
            (document,),
        ).fetchall()
        table = asyncio.run_coroutine_threadsafe(_table(rag, workspace), rag._loop).result(60)
        hnsw = conn.execute(
            "select indexdef from pg_indexes where tablename = %s and indexdef ilike '%%hnsw%%'", (table,)
        )
        assert hnsw.fetchall() == []
    # The stored vector is the embedder's, non-zero dimensions only (pgvector counts them from 1).
    expected = hash_embed([tagged_text(segments[3])], rag.embedder.dim)[0]
    index, text = stored[3]
    dims = {int(k) - 1: float(v) for k, v in (p.split(":") for p in text.split("}")[0].lstrip("{").split(","))}
    assert index == 3 and sorted(dims) == list(np.flatnonzero(expected))
    assert all(abs(dims[d] - expected[d]) < 1e-6 for d in dims)


async def _table(rag: RagStore, workspace: str) -> str:
    return (await rag._instance(workspace)).chunks_vdb.table_name.lower()


def test_a_replaced_or_deleted_document_leaves_no_old_vectors(rag: RagStore, database_without_worker) -> None:
    workspace, segments = workspace_with(rag, 10)
    document = segments[0].document_id
    assert rag.replace_document(workspace, document, segments[:4]) == 4
    assert hash_vector_rows(database_without_worker, workspace) == {document: 4}
    assert set(rag.retrieve(workspace, "alpha beta gamma", K)) <= {s.segment_id for s in segments[:4]}
    rag.delete_document(workspace, document)
    assert hash_vector_rows(database_without_worker, workspace) == {}
    assert rag.retrieve(workspace, "alpha beta gamma", K) == []


def test_chunks_stored_before_migration_012_get_their_vectors_at_first_use(
    rag: RagStore, database_without_worker
) -> None:
    """A workspace ingested before segcite_hash_vectors existed: its vectors come from LightRAG's own table when
    the workspace is first used (here: its LightRAG instance made again), so its documents are found again."""
    workspace, segments = workspace_with(rag, 20)
    with psycopg.connect(database_without_worker) as conn:
        conn.execute("delete from segcite_hash_vectors where workspace_id = %s", (workspace,))
    # One RagStore a process (LightRAG's connection pool is the process's): the workspace's instance is dropped
    # instead, and finalized once the new one holds the pool.
    first_use = rag._instances.pop(workspace_name(workspace))
    found = rag.retrieve(workspace, "kappa theta", K)
    rag._run(first_use.finalize_storages(), 60)
    assert hash_vector_rows(database_without_worker, workspace) == {segments[0].document_id: 20}
    distances = exact_distances(rag, "kappa theta", segments)
    kth = sorted(distances.values())[K - 1]
    assert len(found) == K and all(distances[i] <= kth + 1e-3 for i in found)


def test_only_segments_sharing_a_word_with_the_question_are_found_in_the_same_order_in_every_workspace(
    rag: RagStore,
) -> None:
    """The rest score 0: returned, they came in the table's physical order, different in two workspaces of the same
    files, and fusion counted them as hits (a receipt's total pushed out of the context now and then)."""
    texts = ["alpha beta invoice total.", "gamma delta.", "omega sigma receipt.", "kappa lambda.", "theta total."]
    rankings = []
    for _ in range(2):
        workspace, document = str(uuid.uuid4()), str(uuid.uuid4())
        segments = [Segment(document, i, 0, "paragraph", t, None, None, None) for i, t in enumerate(texts)]
        assert rag.replace_document(workspace, document, segments) == len(texts)
        found = rag.retrieve(workspace, "What is the receipt total?", K)
        rankings.append([int(i.rsplit(":", 1)[1]) for i in found])
    assert rankings[0] == rankings[1]
    assert sorted(rankings[0]) == [0, 2, 4]  # "total", "receipt", "total": not "gamma delta" nor "kappa lambda"
