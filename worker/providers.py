"""LLM and embedding providers: `openai` (any OpenAI-compatible API) and the offline defaults."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from ingest import Segment
from query.extractive import extractive_answer
from query.prompt import build_messages
from query.terms import embedding_features
from worker.settings import Settings


class TransientError(RuntimeError):
    """Worth retrying: a network error, a 5xx, a timeout, a busy lock."""


class PermanentError(RuntimeError):
    """Retrying will not help; the message says what to fix."""


class Answerer(Protocol):
    def answer(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> str: ...


class ExtractiveAnswerer:
    def answer(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> str:
        return extractive_answer(question, context)


class OpenAIAnswerer:
    """Chat completions with JSON mode where the server supports it."""

    def __init__(self, settings: Settings):
        import openai

        self._openai = openai
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed",
            timeout=settings.segcite_llm_timeout,
            max_retries=1,
        )
        self._model = settings.segcite_llm_model
        self._json_mode = True

    def answer(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> str:
        messages = build_messages(question, context, history)
        openai = self._openai
        try:
            output = self._complete(messages)
            if not output.strip():
                raise TransientError("the LLM returned an empty answer")
            return output
        except openai.BadRequestError as exc:
            if self._json_mode and "response_format" in str(exc):
                self._json_mode = False  # a server without JSON mode: the prompt still asks for JSON
                return self._complete(messages)
            raise PermanentError(f"the LLM rejected the request: {exc}") from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
            raise PermanentError(f"LLM configuration error ({type(exc).__name__}): {exc}") from exc
        except (
            openai.APIConnectionError,
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.InternalServerError,
        ) as exc:
            raise TransientError(f"LLM unavailable ({type(exc).__name__}): {exc}") from exc

    def _complete(self, messages: list[dict[str, str]]) -> str:
        extra = {"response_format": {"type": "json_object"}} if self._json_mode else {}
        response = self._client.chat.completions.create(model=self._model, messages=messages, temperature=0, **extra)
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""


def make_answerer(settings: Settings) -> Answerer:
    return OpenAIAnswerer(settings) if settings.segcite_llm_provider == "openai" else ExtractiveAnswerer()


def hash_embed(texts: Sequence[str], dim: int) -> np.ndarray:
    """Offline, deterministic embeddings: signed hashes of weighted content words and word pairs
    (`query.terms.embedding_features`: no stopwords, rarer features weigh more), L2-normalized."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        for feature, weight in embedding_features(text).items():
            digest = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
            out[row, digest % dim] += weight if digest >> 63 else -weight
        norm = float(np.linalg.norm(out[row]))
        if norm:
            out[row] /= norm
    return out


class Embedder(Protocol):
    dim: int
    model_name: str

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray: ...


class HashEmbedder:
    def __init__(self, dim: int):
        self.dim = dim
        self.model_name = f"segcite-hash-{dim}"

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray:
        return hash_embed(texts, self.dim)


class OpenAIEmbedder:
    def __init__(self, settings: Settings):
        import openai

        self._client = openai.AsyncOpenAI(
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed",
            timeout=settings.segcite_llm_timeout,
        )
        self.dim = settings.segcite_embedding_dim
        self.model_name = settings.segcite_embedding_model

    async def __call__(self, texts: list[str], **_: object) -> np.ndarray:
        response = await self._client.embeddings.create(model=self.model_name, input=texts)
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
