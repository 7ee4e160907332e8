"""LLM providers (design §8): `extractive` (offline, deterministic) and `openai` (any OpenAI-compatible API).

An answerer streams the model's raw reply piece by piece (`Answerer.stream`); `query` parses and checks it.
Both stream (design §6): the `openai` one as the server sends tokens, the `extractive` one section by section,
so the streaming path runs offline too. Errors leave here as TransientError or PermanentError.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

import httpx
import orjson

from ingest import Segment
from query import build_messages, extractive_sections
from worker.errors import TransientError
from worker.openai_client import classified, openai_client
from worker.settings import Settings


class Answerer(Protocol):
    usage: dict[str, int] | None  # the tokens the provider reported for the last reply, None where it reported none

    def stream(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> Iterator[str]:
        """The model's reply, in the pieces it comes in."""
        ...


class ExtractiveAnswerer:
    usage = None  # no model, no tokens

    def stream(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> Iterator[str]:
        """The same JSON `sections` an LLM writes, one section at a time."""
        yield '{"sections": ['
        for number, section in enumerate(extractive_sections(question, context)):
            yield ("," if number else "") + orjson.dumps(section).decode()
        yield "]}"


class OpenAIAnswerer:
    """Streamed chat completions, in JSON mode where the server supports it (the prompt asks for JSON either
    way). `SEGCITE_LLM_TIMEOUT` bounds the wait for the first token and between tokens, not the whole reply;
    `SEGCITE_LLM_MAX_TOKENS` caps the reply; the SDK does not retry on its own (Celery's retry policy is the
    one retry policy); a reply given up (an error, or the reader stopping) closes its request, so the server
    stops computing it."""

    def __init__(self, settings: Settings):
        import openai

        self._openai = openai
        self._client = openai_client(settings)
        self._model = settings.segcite_llm_model
        self._max_tokens = settings.segcite_llm_max_tokens
        self._json_mode = True
        self._ask_usage = True  # `stream_options.include_usage`: dropped for a server that refuses it
        self.usage: dict[str, int] | None = None

    def stream(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> Iterator[str]:
        messages = build_messages(question, context, history)
        try:
            yield from self._stream_in_json_mode_if_supported(messages)
        except self._openai.OpenAIError as exc:
            raise classified(exc, "LLM") from exc
        except httpx.HTTPError as exc:  # a stream cut or stalled mid-reply surfaces as httpx's own errors
            raise TransientError(f"LLM unavailable ({type(exc).__name__}): {exc}") from exc

    def _stream_in_json_mode_if_supported(self, messages: list[dict[str, str]]) -> Iterator[str]:
        self.usage = None
        response = self._request_what_the_server_supports(messages)
        with response:  # closed on every way out: the server stops computing a reply nobody reads
            for chunk in response:
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
                if chunk.usage is not None:  # the last chunk, where the server was asked for it
                    self.usage = {
                        "prompt_tokens": chunk.usage.prompt_tokens,
                        "completion_tokens": chunk.usage.completion_tokens,
                        "total_tokens": chunk.usage.total_tokens,
                    }

    def _request_what_the_server_supports(self, messages: list[dict[str, str]]):
        """JSON mode and usage reports where the server takes them: each option it refuses is dropped once."""
        while True:
            try:
                return self._request(messages)
            except self._openai.BadRequestError as exc:
                if self._json_mode and "response_format" in str(exc):
                    self._json_mode = False  # a server without JSON mode: the prompt still asks for JSON
                elif self._ask_usage and "stream_options" in str(exc):
                    self._ask_usage = False
                else:
                    raise

    def _request(self, messages: list[dict[str, str]]):
        extra: dict[str, object] = {"response_format": {"type": "json_object"}} if self._json_mode else {}
        if self._ask_usage:
            extra["stream_options"] = {"include_usage": True}
        return self._client.chat.completions.create(
            model=self._model, messages=messages, temperature=0, max_tokens=self._max_tokens, stream=True, **extra
        )


def make_answerer(settings: Settings) -> Answerer:
    return OpenAIAnswerer(settings) if settings.segcite_llm_provider == "openai" else ExtractiveAnswerer()
