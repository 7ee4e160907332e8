"""Questions a model writes over sampled segments (`segcite eval --generate-with-model N`): the prompt, and the
reading of the model's reply. A question is kept only when its answer is in the segment it was written over, so a
model's slip never becomes an expected answer. Pure: the call to the model is the caller's."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from evaluation.normalize import holds
from evaluation.questions import Question, SegmentRef, Source

KINDS_SAMPLED = ("field", "table", "paragraph", "text", "list")
MIN_CHARS = 40  # a segment shorter than this (a lone heading) gives no question worth asking
SYSTEM = (
    "You write evaluation questions for a document question-answering system. Given one passage of a document, "
    "write ONE question that the passage answers with a short fact (a name, number, date, amount or a few words), "
    'and that fact copied exactly from the passage. Reply with JSON only: {"question": "...", "answer": "..."}. '
    "Name the document in the question when the fact could belong to another document."
)


def sample_segments(segments: Sequence[SegmentRef], count: int, seed: int = 0) -> list[SegmentRef]:
    """Up to `count` segments worth a question, spread over the documents."""
    rng = random.Random(seed)
    by_document: dict[str, list[SegmentRef]] = {}
    for s in segments:
        if (s.kind in KINDS_SAMPLED and len(s.text) >= MIN_CHARS) or s.kind == "field":
            by_document.setdefault(s.document, []).append(s)
    pools = {d: rng.sample(refs, len(refs)) for d, refs in sorted(by_document.items())}
    out: list[SegmentRef] = []
    while len(out) < count and any(pools.values()):
        for document in sorted(pools):
            if pools[document] and len(out) < count:
                out.append(pools[document].pop())
    return out


def messages_for(segment: SegmentRef) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Document: {segment.document}\nPage: {segment.page_idx + 1}\n\n{segment.text}"},
    ]


def question_from_reply(reply: str, segment: SegmentRef, model: str) -> Question | None:
    """The model's question, or None when the reply is not one, or its answer is not in the passage."""
    import orjson

    text = reply.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        data: Any = orjson.loads(text[text.find("{") : text.rfind("}") + 1] if "{" in text else text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    question, answer = data.get("question"), data.get("answer")
    if not (isinstance(question, str) and question.strip() and isinstance(answer, str | int | float)):
        return None
    answer = str(answer).strip()
    if not answer or not holds(segment.text, answer):
        return None
    origin = {"from": "model", "model": model, "segment_id": segment.segment_id, "document": segment.document}
    origin["page"] = segment.page_idx + 1
    sources = (Source(segment.document, frozenset({segment.page_idx})),)
    return Question(f"model:{segment.segment_id}", question.strip(), "model", ((answer,),), sources, origin)
