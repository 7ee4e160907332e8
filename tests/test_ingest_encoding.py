"""What an ingest computes per segment, computed in bulk (issue 44): the same values as each one's definition, item
by item, so vectors and token counts stored before compare alike with those computed now."""

from __future__ import annotations

import hashlib

import numpy as np
from pgvector import SparseVector

from query.language.terms import embedding_features
from worker.embeddings import hash_embed
from worker.rag import OfflineTokenizer
from worker.vector_search import sparse

TEXTS = [
    "Invoice INV-2024-001 from Company ABC: total $2,140.00, tax $140.00, due 2024-03-01.",
    "税金 receipt レシート 12.50 € — Größe: straße, naïve café",
    "what is it and how much of the",  # function words only: the zero vector
    "total total total 2140 " * 40,  # a repeated feature, and buckets shared at a small dimension
    "",
]


def one_by_one(text: str, dim: int) -> np.ndarray:
    """The hash embedder's definition: each feature's signed weight added at its hashed position, in order, in
    float32; then L2-normalized."""
    vector = np.zeros(dim, dtype=np.float32)
    for feature, weight in embedding_features(text).items():
        digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
        vector[digest % dim] += weight if digest >> 63 else -weight
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def test_hash_vectors_are_the_definition_s_to_the_bit():
    for dim in (8, 1024):
        vectors = hash_embed(TEXTS, dim)
        for text, vector in zip(TEXTS, vectors, strict=True):
            assert vector.tobytes() == one_by_one(text, dim).tobytes(), (dim, text)


def test_sparse_vectors_hold_the_nonzero_elements():
    for vector in hash_embed(TEXTS, 1024):
        nonzero = np.flatnonzero(vector)
        expected = SparseVector(dict(zip(nonzero.tolist(), vector[nonzero].tolist(), strict=True)), 1024)
        assert sparse(vector) == expected
        assert sparse(vector).to_text() == expected.to_text()


def test_the_offline_tokenizer_reads_back_what_it_encodes():
    tokenizer = OfflineTokenizer()
    for text in TEXTS:
        tokens = tokenizer.encode(text)
        assert tokenizer.decode(tokens) == text
        assert tokenizer.encode(text) == tokens  # the second time from its memo: the same ids
    # About four characters a token: a word of nine letters is three pieces, each its own id.
    assert len(tokenizer.encode("abcdefghi")) == 3
    assert len(set(tokenizer.encode("aaaa aaab"))) == 3  # "aaaa", " ", "aaab"
