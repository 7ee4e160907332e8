"""LLM providers (design §8): `extractive` (offline, deterministic) and `openai` (any OpenAI-compatible API).

The worker calls `Answerer.answer(question, context, history) -> str`: the model's raw reply, which
`query.build_answer` parses and checks. Errors leave here as TransientError or PermanentError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ingest import Segment
from query.extractive import extractive_answer
from query.prompt import build_messages
from worker.errors import TransientError
from worker.openai_client import classified, openai_client
from worker.settings import Settings


class Answerer(Protocol):
    def answer(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> str: ...


class ExtractiveAnswerer:
    def answer(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> str:
        return extractive_answer(question, context)


class OpenAIAnswerer:
    """Chat completions with JSON mode where the server supports it (the prompt asks for JSON either way)."""

    def __init__(self, settings: Settings):
        import openai

        self._openai = openai
        self._client = openai_client(settings, max_retries=1)
        self._model = settings.segcite_llm_model
        self._json_mode = True

    def answer(self, question: str, context: list[Segment], history: Sequence[Mapping[str, str]]) -> str:
        messages = build_messages(question, context, history)
        try:
            output = self._complete_in_json_mode_if_supported(messages)
        except self._openai.OpenAIError as exc:
            raise classified(exc, "LLM") from exc
        if not output.strip():
            raise TransientError("the LLM returned an empty answer")
        return output

    def _complete_in_json_mode_if_supported(self, messages: list[dict[str, str]]) -> str:
        try:
            return self._complete(messages)
        except self._openai.BadRequestError as exc:
            if not (self._json_mode and "response_format" in str(exc)):
                raise
        self._json_mode = False  # a server without JSON mode; outside the `except`, so its errors are classified
        return self._complete(messages)

    def _complete(self, messages: list[dict[str, str]]) -> str:
        extra = {"response_format": {"type": "json_object"}} if self._json_mode else {}
        response = self._client.chat.completions.create(model=self._model, messages=messages, temperature=0, **extra)
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""


def make_answerer(settings: Settings) -> Answerer:
    return OpenAIAnswerer(settings) if settings.segcite_llm_provider == "openai" else ExtractiveAnswerer()
