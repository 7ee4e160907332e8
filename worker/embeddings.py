"""Embedding providers (design §8): `hash` (offline, deterministic) and `openai`. LightRAG calls them with a
batch of texts (segments at ingest, the question at query time)."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from worker.errors import PermanentError
from worker.openai_client import classified, openai_client
from worker.settings import Settings


class Embedder(Protocol):
    dim: int
    model_name: str

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray: ...


_WORD = re.compile(r"\w+")


def hash_embed(texts: Sequence[str], dim: int) -> np.ndarray:
    """Offline, deterministic embeddings: signed hashes of words and word bigrams, L2-normalized."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        words = _WORD.findall(text.casefold())
        for feature in [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]:
            digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
            out[row, digest % dim] += 1.0 if digest >> 63 else -1.0
        norm = float(np.linalg.norm(out[row]))
        if norm:
            out[row] /= norm
    return out


class HashEmbedder:
    def __init__(self, dim: int):
        self.dim = dim
        self.model_name = f"segcite-hash-{dim}"

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
