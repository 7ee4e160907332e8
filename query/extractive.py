"""The offline `extractive` answerer: the context sentences that best answer the question, with their ids.

Deterministic, no model: a sentence scores by the idf-weighted question words it contains. It answers in the
same JSON `sections` shape as an LLM, so the rest of the pipeline cannot tell the difference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from ingest import Segment
from query.markers import split_sentences
from query.match import content_words
from query.model import as_segments

NOT_FOUND = "I could not find an answer to this question in your documents."
MAX_SECTIONS = 3
RELATIVE_CUTOFF = 0.75


def extractive_answer(question: str, context: Iterable[Segment | Mapping[str, Any]]) -> str:
    segments = as_segments(context)
    asked = _stems(question)
    document_frequency: dict[str, int] = {}
    for segment in segments:
        for word in _stems(segment.text) & asked:
            document_frequency[word] = document_frequency.get(word, 0) + 1
    total = max(len(segments), 1)
    scored: list[tuple[float, int, str, str]] = []
    for order, segment in enumerate(segments):
        for sentence in _sentences(segment.text):
            shared = _stems(sentence) & asked
            if not shared:
                continue
            score = sum(math.log(1 + total / document_frequency[w]) for w in shared)
            scored.append((score, order, sentence, segment.segment_id))
    unique: dict[str, tuple[float, int, str, str]] = {}
    for item in sorted(scored, key=lambda item: (-item[0], item[1])):
        unique.setdefault(item[2], item)  # the same sentence in two documents is said once
    best = list(unique.values())[:MAX_SECTIONS]
    best = [item for item in best if item[0] >= RELATIVE_CUTOFF * best[0][0]]  # drop weak companions
    if not best:
        return orjson.dumps({"sections": [{"text": NOT_FOUND, "source_ids": []}]}).decode()
    best.sort(key=lambda item: item[1])  # in context order, which reads more naturally
    sections = [{"text": sentence, "source_ids": [segment_id]} for _, _, sentence, segment_id in best]
    return orjson.dumps({"sections": sections}).decode()


def _sentences(text: str) -> list[str]:
    """Sentences; a table's rows (or any line without end punctuation) count as sentences of their own."""
    out: list[str] = []
    for line in text.splitlines() if "|" in text else [text]:
        out.extend(" ".join(line[s:e].split()) for s, e in split_sentences(line))
    return out


def _stems(text: str) -> set[str]:
    """Content words cut to 6 characters: "generate" and "generated" count as the same word."""
    return {w[:6] for w in content_words(text)}
