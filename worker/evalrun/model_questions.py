"""`--generate-with-model N`: the configured OpenAI-compatible model writes questions over sampled segments
(evaluation.model_written holds the prompt and the checks; this is the call)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evaluation import Question, SegmentRef
from evaluation.model_written import messages_for, question_from_reply, sample_segments
from worker.errors import PermanentError
from worker.openai_client import classified, openai_client
from worker.settings import Settings


@dataclass
class Written:
    questions: list[Question]
    discarded: int  # replies that were not a question, or whose answer is not in the passage
    tokens: int | None  # what the provider reported for the writing, None where it reported nothing


def write_questions(
    settings: Settings,
    segments: Sequence[SegmentRef],
    count: int,
    seed: int = 0,
    on_each: Callable[[], None] = lambda: None,
) -> Written:
    if settings.segcite_llm_provider != "openai":
        raise PermanentError(
            "--generate-with-model needs a model: set SEGCITE_LLM_PROVIDER=openai (and OPENAI_BASE_URL, "
            "SEGCITE_LLM_MODEL; docs/settings.md)"
        )
    import openai

    client = openai_client(settings)
    out = Written([], 0, None)
    # Twice the segments asked for: some replies are discarded, and the model is not asked forever.
    for segment in sample_segments(segments, 2 * count, seed):
        if len(out.questions) >= count:
            break
        try:
            response = client.chat.completions.create(
                model=settings.segcite_llm_model, messages=messages_for(segment), temperature=0, max_tokens=300
            )
        except openai.OpenAIError as exc:
            raise classified(exc, "LLM") from exc
        if response.usage is not None:
            out.tokens = (out.tokens or 0) + response.usage.total_tokens
        reply = response.choices[0].message.content if response.choices else None
        question = question_from_reply(reply or "", segment, settings.segcite_llm_model)
        if question is None:
            out.discarded += 1
        else:
            out.questions.append(question)
            on_each()  # one more question written
    return out
