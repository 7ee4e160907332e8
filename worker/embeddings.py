"""Embedding providers (design §8): `hash` (offline, deterministic) and `openai`. LightRAG calls them with a
batch of texts (segments at ingest, the question at query time)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ingest import without_leading_tag
from query import embedding_features
from worker.errors import PermanentError
from worker.openai_client import classified, openai_client
from worker.settings import Settings


class Embedder(Protocol):
    dim: int
    model_name: str

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray: ...


def hash_embed(texts: Sequence[str], dim: int) -> np.ndarray:
    """Offline, deterministic embeddings: signed hashes of weighted content words and word pairs
    (`query.embedding_features`: no stopwords, rarer features weigh more), L2-normalized. A chunk's SEG tag
    is not read: its document id, a random UUID, gave a short segment (a field) more features than its text, so
    two ingests of one file got different vectors and every question met each segment through hash collisions."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        features = embedding_features(without_leading_tag(text))
        if not features:
            continue
        digests = np.fromiter(map(_digest, features), dtype=np.uint64, count=len(features))
        weights = np.fromiter(features.values(), dtype=np.float32, count=len(features))
        # One call for the row, not an item update a feature: np.add.at adds in order, in float32, as those did,
        # so the vectors are the same to the bit (a question and the segments stored before compare alike).
        signed = np.where(digests >> np.uint64(63), weights, -weights)
        np.add.at(out[row], (digests % np.uint64(dim)).astype(np.intp), signed)
        norm = float(np.linalg.norm(out[row]))
        if norm:
            out[row] /= norm
    return out


def _digest(feature: str) -> int:
    return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")


class HashEmbedder:
    def __init__(self, dim: int):
        self.dim = dim
        self.model_name = f"segcite-hash2-{dim}"  # "2": stopwords out (issue 14); old vectors differ

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray:
        return hash_embed(texts, self.dim)


class OpenAIEmbedder:
    def __init__(self, settings: Settings):
        self._client = openai_client(settings, asynchronous=True)
        self.dim = settings.segcite_embedding_dim
        self.model_name = settings.segcite_embedding_model

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray:
        import openai

        try:
            response = await self._client.embeddings.create(model=self.model_name, input=texts)
        except openai.OpenAIError as exc:
            raise classified(exc, "embedding model") from exc
        vectors = np.array([item.embedding for item in response.data], dtype=np.float32)
        if vectors.shape[1] != self.dim:
            raise PermanentError(
                f"the embedding model returns {vectors.shape[1]} dimensions; "
                f"set SEGCITE_EMBEDDING_DIM={vectors.shape[1]}"
            )
        return vectors


def make_embedder(settings: Settings) -> Embedder:
    if settings.segcite_embedding_provider == "openai":
        return OpenAIEmbedder(settings)
    return HashEmbedder(settings.segcite_embedding_dim)
