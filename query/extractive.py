"""The offline `extractive` answerer: copies from the context what a careful reader would, with its segment id.

Deterministic, no model. The candidates are a table's rows, `label: value` lines (a label line and the value
line under it count as one), short lines, and the sentences of prose. A candidate can answer a part of the
question (`query.question`) when it holds that part's focus and a value of the kind asked (an amount for "how
much", a date for "when", a name for "who", something the question does not already say otherwise), and
when the question's clues it holds, weighted by how rare they are in the context, clear a confidence bar
(clues elsewhere in its segment or its document count in part). The best candidate of each part becomes a
section; no candidate at all: one uncited section saying the answer was not found. It answers in the JSON
`sections` shape of an LLM, so the rest of the pipeline cannot tell the difference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ingest import Segment
from query.markers import split_sentences
from query.model import as_segments
from query.question import Kind, Part, Question, matches, read_question, stem
from query.terms import STOPWORDS, content_tokens

NOT_FOUND = "I could not find an answer to this question in your documents."
CONFIDENCE_BAR = 0.35  # share of the question's clue weight a candidate must hold; tuned on bench_answers
# Without a kind of value to look for ("what medication…"), only the words can vouch for a candidate.
UNTYPED_BAR = 0.51
MAX_SECTIONS = 3
IN_SEGMENT, IN_DOCUMENT = 0.6, 0.4  # a clue held by the candidate's segment or document, not by the candidate
KIND_BONUS = 0.15
MONEY_BONUS = 0.1  # an amount question prefers "$140.00" or "1.5%" to a bare count
HEAD_BONUS = 0.1  # it holds the thing asked about, not only the closing verb ("the inventor", not "filed")
LONG_CHARS, LENGTH_PENALTY = 60, 0.0015  # per character past LONG_CHARS: the shorter of two equal answers
RANK_PENALTY = 0.002  # per place down the context: retrieval's order breaks ties

_LABEL = re.compile(r"^[^\d|:.!?]{2,60}$")  # "AMOUNT DUE", "Tax", "Date of issue/…": a label with no value
_DATE = re.compile(
    r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b(?:19|20)\d{2}\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|janv|févr|mars|avr|mai|juin|juil|août|sept|déc)[a-zé]*\.?"
    r"\s+\d{1,2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    re.IGNORECASE,
)
_AMOUNT = re.compile(r"[$€£¥]\s?\d|\d\s?(?:€|\$|%|eur\b|usd\b)|\d[.,]\d{2}\b", re.IGNORECASE)
_DURATION = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b\W{0,3}(?:\(\d+\)\s*)?"
    r"(?:years?|months?|weeks?|days?|hours?)\b",
    re.IGNORECASE,
)
_LABELLED = re.compile(r"^[^:]{1,40}:(?:\s|$)")  # "Phone #: (906) …", "Marital Status:": a line with its label
_NUMBER = re.compile(r"\d+(?:[.,/-]\d+)*")
_CAPITALIZED = re.compile(r"\b[A-ZÀ-Ý][\w'’.-]+")


@dataclass(frozen=True)
class Candidate:
    text: str
    segment: Segment
    order: int  # the segment's place in the context
    labels: str = ""  # text that labels it without being copied: a table's header row


@dataclass(frozen=True)
class Scored:
    score: float
    candidate: Candidate


def extractive_answer(question: str, context: Iterable[Segment | Mapping[str, Any]]) -> str:
    return orjson.dumps({"sections": extractive_sections(question, context)}).decode()


def extractive_sections(question: str, context: Iterable[Segment | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The answer's sections, in order: `{"text", "source_ids"}`, one per thing asked that was found, or
    one uncited `NOT_FOUND` section."""
    segments = as_segments(context)
    asked = read_question(question)
    candidates = [
        Candidate(text, s, order, _header(s)) for order, s in enumerate(segments) for text in candidate_texts(s)
    ]
    judge = _Judge(asked, segments)
    chosen: list[Candidate] = []
    for part in asked.parts[:MAX_SECTIONS]:
        best = judge.best(part, candidates)
        if best is not None and all(best.text != c.text for c in chosen):
            chosen.append(best)
    if not chosen:
        return [{"text": NOT_FOUND, "source_ids": []}]
    return [{"text": c.text, "source_ids": [c.segment.segment_id]} for c in chosen]


# --- candidates -------------------------------------------------------------------------------------------


def candidate_texts(segment: Segment) -> list[str]:
    """What could be copied from a segment: table rows (empty cells dropped), `label: value` pairs, lines, and
    the sentences of prose (lines broken by the layout joined first)."""
    lines = [" ".join(line.split()) for line in segment.text.splitlines()]
    lines = [line for line in lines if line]
    if segment.kind == "table" or (lines and all(" | " in line or line.endswith("|") for line in lines)):
        return [row for row in (_row(line) for line in lines) if row]
    texts: list[str] = []
    for line, below in zip(lines, [*lines[1:], ""], strict=True):
        if line.endswith(":") and below and not _LABELLED.match(below) and not below.endswith(":") and len(below) <= 80:
            texts.append(f"{line} {below}")
        elif _LABEL.match(line) and len(line.split()) <= 8 and _is_value(below):
            texts.append(f"{line}: {below}")
    for block in _prose_blocks(lines):
        if len(block) > 160:
            texts.extend(block[s:e] for s, e in split_sentences(block))
        elif not block.endswith(":"):
            texts.append(block)
    return texts


def _header(segment: Segment) -> str:
    return segment.text.split("\n", 1)[0] if segment.kind == "table" else ""


def _row(line: str) -> str:
    return " | ".join(cell.strip() for cell in line.split("|") if cell.strip())


def _is_value(line: str) -> bool:
    """A short line with a number and no label of its own: "$148.89", "May 17 2018", "05/07/1965"."""
    return 0 < len(line) <= 40 and ":" not in line and any(char.isdigit() for char in line)


def _prose_blocks(lines: list[str]) -> list[str]:
    """Lines joined where one runs on into the next: it is about as wide as the widest line of the segment
    and does not end a sentence or a label (prose wrapped by the page's layout)."""
    width = max(map(len, lines), default=0)
    blocks: list[str] = []
    previous = ""
    for line in lines:
        runs_on = (
            len(previous) >= max(40, 0.6 * width)
            and not previous.endswith((".", ":", ";", "!", "?"))
            and not _LABELLED.match(previous)
            and not _LABELLED.match(line)
        )
        if blocks and runs_on:
            blocks[-1] = f"{blocks[-1]} {line}"
        else:
            blocks.append(line)
        previous = line
    return blocks


# --- judging ----------------------------------------------------------------------------------------------


class _Judge:
    """Scores candidates against one question over one context."""

    def __init__(self, asked: Question, segments: list[Segment]):
        self.asked = asked
        self.question_words = {w.casefold() for w in re.findall(r"\w+", asked.text)}
        self.segment_stems = {s.segment_id: _stems(s.text) for s in segments}
        self.document_stems: dict[str, set[str]] = {}
        for s in segments:
            self.document_stems.setdefault(s.document_id, set()).update(self.segment_stems[s.segment_id])
        total = len(segments)
        self.weights = {}
        for clue, weight in asked.stems.items():
            frequency = sum(matches(clue, stems) for stems in self.segment_stems.values())
            # rare in the context: telling; unseen: as telling as a clue seen once (the thing asked is not
            # there, or is worded otherwise: the bar decides)
            self.weights[clue] = weight * math.log(1 + total / (1 + max(frequency, 1)))

    def best(self, part: Part, candidates: list[Candidate]) -> Candidate | None:
        scored = [s for s in (self.score(part, c) for c in candidates) if s is not None]
        if not scored:
            return None
        return max(scored, key=lambda s: (s.score, -s.candidate.order)).candidate

    def score(self, part: Part, candidate: Candidate) -> Scored | None:
        stems = _stems(f"{candidate.text}\n{candidate.labels}")
        if part.focus and not any(matches(f, stems) for f in part.focus):
            return None
        if not self.holds_value(candidate.text, part.kind):
            return None
        held = self.coverage(stems, candidate.segment)
        if held < (CONFIDENCE_BAR if part.kind is not Kind.ANY else UNTYPED_BAR):
            return None
        bonus = KIND_BONUS if part.kind is not Kind.ANY else 0.0
        bonus += MONEY_BONUS if part.kind is Kind.AMOUNT and _AMOUNT.search(candidate.text) else 0.0
        bonus += HEAD_BONUS if any(matches(h, stems) for h in part.head) else 0.0
        length = LENGTH_PENALTY * max(0, len(candidate.text) - LONG_CHARS)
        return Scored(held + bonus - length - RANK_PENALTY * candidate.order, candidate)

    def coverage(self, stems: set[str], segment: Segment) -> float:
        """The share of the clues' weight the candidate holds (its segment's and document's clues in part)."""
        total = sum(self.weights.values())
        if not total:
            return 0.0
        held = 0.0
        for clue, weight in self.weights.items():
            if matches(clue, stems):
                held += weight
            elif matches(clue, self.segment_stems[segment.segment_id]):
                held += IN_SEGMENT * weight
            elif matches(clue, self.document_stems[segment.document_id]):
                held += IN_DOCUMENT * weight
        return held / total

    def holds_value(self, text: str, kind: Kind) -> bool:
        """The candidate says something of the kind asked that the question does not already say."""
        if kind in (Kind.AMOUNT, Kind.NUMBER):  # "how much electricity": 61.4 gigawatt hours is an amount too
            return self._new(_NUMBER.findall(text))
            return self._new(_NUMBER.findall(text))
        if kind is Kind.DATE:
            return self._new(m.group() for m in _DATE.finditer(text))
        if kind is Kind.DURATION:
            return _DURATION.search(text) is not None
        if kind is Kind.NAME:
            return self._new(m.group().rstrip(".") for m in _CAPITALIZED.finditer(text))
        return self._new(w for w in re.findall(r"\w+", text) if w.casefold() not in STOPWORDS)

    def _new(self, values: Iterable[str]) -> bool:
        return any(not set(re.findall(r"\w+", v.casefold())) <= self.question_words for v in values)


def _stems(text: str) -> set[str]:
    return {stem(word) for word in content_tokens(text)}
