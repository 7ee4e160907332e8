"""Vector search with the offline `hash` embedder (worker/rag.py, design §4 "Scale"): a workspace of up to
HASH_EXACT_SEARCH_MAX_CHUNKS chunks is searched exactly; a bigger one by LightRAG's own search, which still
returns K. The exact answer is computed here with numpy from the same embedder."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import worker.rag
from ingest import Segment, tagged_text
from worker.embeddings import HashEmbedder, hash_embed
from worker.rag import RagStore
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


def test_a_workspace_over_the_bound_is_searched_by_lightrag_and_still_returns_k(rag: RagStore, monkeypatch) -> None:
    workspace, segments = workspace_with(rag, 30)
    monkeypatch.setattr(worker.rag, "HASH_EXACT_SEARCH_MAX_CHUNKS", 10)
    asked = []
    exact_search = RagStore._exact_search

    async def spy(self, lightrag, question, top_k):
        asked.append(question)
        return await exact_search(self, lightrag, question, top_k)

    monkeypatch.setattr(RagStore, "_exact_search", spy)
    found = rag.retrieve(workspace, "alpha beta", K)
    assert asked == ["alpha beta"]  # it was asked, and said the workspace is too big for it
    assert len(found) == K and set(found) <= {s.segment_id for s in segments}
