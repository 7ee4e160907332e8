"""The standalone question of a follow-up (design §5.10), before retrieval: by rules offline (`query.conversation`),
and with the `openai` provider by one short model call (at most REWRITE_MAX_TOKENS tokens, SEGCITE_REWRITE_TIMEOUT
seconds), made only when the conversation has earlier turns. A rewrite the model does not give (an error, a timeout,
an empty or overlong reply) falls back on the rules' one: the answer is never lost to a failed rewrite."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from query import REWRITE_MAX_TOKENS, read_rewrite, rewrite_messages, standalone_question
from worker.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rewrite:
    """The question retrieval and the answer read (`question`), who wrote it (`by`: "rules" or "model"; None where
    there were no earlier turns, so nothing was rewritten), why the model's rewrite was not used (`error`), and the
    tokens the model's call took."""

    question: str
    by: str | None = None
    error: str | None = None
    usage: dict[str, int] | None = None

    def metadata(self) -> dict[str, Any]:
        """`standalone_question` and `rewrite` of the answer's metadata (docs/answer-payload.md)."""
        rewrite = None if self.by is None else {"by": self.by, "error": self.error}
        return {"standalone_question": self.question, "rewrite": rewrite}


class Rewriter(Protocol):
    def rewrite(self, question: str, history: Sequence[Mapping[str, str]]) -> Rewrite: ...


def _has_earlier_turns(history: Sequence[Mapping[str, str]]) -> bool:
    return any(turn.get("role") == "user" for turn in history)


class RulesRewriter:
    """Offline: the rules of `query.conversation`."""

    def rewrite(self, question: str, history: Sequence[Mapping[str, str]]) -> Rewrite:
        if not _has_earlier_turns(history):
            return Rewrite(question)
        try:
            return Rewrite(standalone_question(question, history).question, "rules")
        except Exception as exc:  # a fault of the rules must not cost the answer: the question is asked as written
            log.exception("the rules could not read a follow-up; it is asked as written")
            return Rewrite(question, "rules", f"the rules could not read the follow-up ({type(exc).__name__})")


class OpenAIRewriter:
    """One chat completion, not streamed, with the answerer's endpoint and model; the rules' rewrite where it fails."""

    def __init__(self, settings: Settings):
        from worker.openai_client import openai_client

        self._client = openai_client(settings).with_options(timeout=settings.segcite_rewrite_timeout)
        self._model = settings.segcite_llm_model
        self._rules = RulesRewriter()

    def rewrite(self, question: str, history: Sequence[Mapping[str, str]]) -> Rewrite:
        if not _has_earlier_turns(history):
            return Rewrite(question)  # a first question is asked as it is: no call
        fallback = self._rules.rewrite(question, history)
        try:
            response = self._client.chat.completions.create(
                model=self._model,
                messages=rewrite_messages(question, history),
                temperature=0,
                max_tokens=REWRITE_MAX_TOKENS,
            )
            reply = response.choices[0].message.content if response.choices else None
        # Whatever goes wrong (the SDK's errors, a timeout: APITimeoutError, a reply of another shape), the rewrite
        # is optional: the rules' one is used and the answer goes on.
        except Exception as exc:
            return Rewrite(fallback.question, "rules", f"the model's rewrite failed ({type(exc).__name__})")
        usage = _usage(response)
        rewritten = read_rewrite(reply, question)
        if rewritten is None:
            return Rewrite(fallback.question, "rules", "the model gave no question", usage)
        return Rewrite(rewritten, "model", None, usage)


def _usage(response: Any) -> dict[str, int] | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


def make_rewriter(settings: Settings) -> Rewriter:
    return OpenAIRewriter(settings) if settings.segcite_llm_provider == "openai" else RulesRewriter()
