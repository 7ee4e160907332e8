"""Text matching: which segment says what a sentence of the answer says (the fallback of design §5.5).

Candidates are narrowed with an inverted index (idf-weighted word overlap), then reranked with rapidfuzz
and a numeric-token bonus, so "€12,50 on 5 May" prefers the segment whose numbers agree. The worker's
workspace tier narrows with PostgreSQL full-text search instead and reuses `best_match` for the rerank.
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz

from ingest import Segment

_WORD = re.compile(r"\w+")
# A number standing alone ("1889", "12,50"), not digits inside a word ("f0r" from OCR, "A4").
_NUMBER = re.compile(r"(?<!\w)\d+(?:[.,]\d+)*(?!\w)")
# Words too common to say anything about which segment a sentence comes from.
_STOPWORDS = frozenset(
    "the and for was were are with from that this which these those have has had not but its his her their "
    "our your you they them than then there here into onto over under about also been being will would can "
    "could should may might must shall all any each some such only very more most other what when where who "
    "whom how why much many did does les des une est pour dans par sur avec que qui aux ces son ses der "
    "die das und ist mit "
    "von den dem".split()
)

MATCH_THRESHOLD = 62.0  # on the 0..100 scale of `match_score`; calibrated by bench/bench_fallback.py
MIN_CLAIM_WORDS = 3  # shorter sentences ("Yes.") carry too little to match on


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def numbers(text: str) -> set[str]:
    return {n.replace(",", ".").rstrip(".") for n in _NUMBER.findall(text)}


@functools.lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The words that tell texts apart. Cached: the same segment is scored for many sentences."""
    return frozenset(w for w in words(text) if (len(w) >= 3 and w not in _STOPWORDS) or w.isdigit())


class SegmentSource(Protocol):
    """Where segments come from: a lookup by id, and candidates for a piece of text."""

    def lookup(self, segment_ids: Iterable[str]) -> dict[str, Segment]: ...

    def candidates(self, text: str, limit: int) -> list[Segment]: ...


class SegmentIndex(Mapping[str, Segment]):
    """In-memory segments by id, with an inverted index built on first search."""

    def __init__(self, segments: Iterable[Segment]):
        self._segments = {s.segment_id: s for s in segments}
        self._postings: dict[str, list[str]] | None = None

    def __getitem__(self, segment_id: str) -> Segment:
        return self._segments[segment_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._segments)

    def __len__(self) -> int:
        return len(self._segments)

    def lookup(self, segment_ids: Iterable[str]) -> dict[str, Segment]:
        return {i: self._segments[i] for i in segment_ids if i in self._segments}

    def _build(self) -> dict[str, list[str]]:
        postings: dict[str, list[str]] = defaultdict(list)
        for segment_id, segment in self._segments.items():
            for word in content_words(segment.text):
                postings[word].append(segment_id)
        return postings

    def candidates(self, text: str, limit: int) -> list[Segment]:
        if self._postings is None:
            self._postings = self._build()
        total = max(len(self._segments), 1)
        scores: dict[str, float] = {}
        for word in content_words(text):
            ids = self._postings.get(word)
            if not ids:
                continue
            weight = math.log(1 + total / len(ids))  # idf: rare words say more about where a text comes from
            for segment_id in ids:
                scores[segment_id] = scores.get(segment_id, 0.0) + weight
        best = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], item[0]))
        return [self._segments[segment_id] for segment_id, _ in best]


@dataclass(frozen=True)
class Match:
    segment: Segment
    score: float  # 0..100+ (numeric bonus), comparable to MATCH_THRESHOLD


NUMBER_BONUS = 8.0
NUMBER_PENALTY = 20.0


def _combine(fuzzy: float, covered: float) -> float:
    # Either signal can carry a match: fuzzy containment survives OCR noise, word coverage survives
    # rewording. Both are needed for a high score, so unrelated text sharing a few words stays low.
    return 0.65 * max(fuzzy, covered) + 0.35 * min(fuzzy, covered)


def _fuzzy_needed(target: float, covered: float) -> float:
    """The least fuzzy score that can still reach `target` (the inverse of `_combine` in its first argument)."""
    if covered >= target:
        return max(0.0, (target - 0.65 * covered) / 0.35)
    return max(0.0, (target - 0.35 * covered) / 0.65)


def match_score(claim: str, segment_text: str, at_least: float = 0.0) -> float:
    """How well a segment supports a claim: fuzzy containment, word coverage, and agreeing numbers.
    Returns 0 early when the score cannot reach `at_least` (a cutoff that lets rapidfuzz skip work)."""
    claim_words = content_words(claim)
    if not claim_words:
        return 0.0
    covered = 100 * len(claim_words & content_words(segment_text)) / len(claim_words)
    claim_numbers = numbers(claim)
    adjustment = 0.0
    if claim_numbers:
        agreeing = len(claim_numbers & numbers(segment_text)) / len(claim_numbers)
        adjustment = NUMBER_BONUS * agreeing - NUMBER_PENALTY * (1 - agreeing)
    cutoff = _fuzzy_needed(at_least - adjustment, covered) if at_least else 0.0
    if cutoff > 100:
        return 0.0
    fuzzy = fuzz.partial_ratio(claim.casefold(), segment_text.casefold(), score_cutoff=cutoff)
    if at_least and fuzzy < cutoff:
        return 0.0
    return _combine(fuzzy, covered) + adjustment


def best_match(claim: str, candidates: Iterable[Segment]) -> Match | None:
    """The candidate that best supports the claim, if it clears the threshold (ties: the earlier one)."""
    if len(words(claim)) < MIN_CLAIM_WORDS:
        return None
    best: Match | None = None
    for segment in candidates:
        floor = max(MATCH_THRESHOLD, best.score + 1e-9) if best else MATCH_THRESHOLD
        score = match_score(claim, segment.text, at_least=floor)
        if score >= floor:
            best = Match(segment, score)
    return best


def confidence(score: float) -> float:
    """A match score mapped to the `matched` band of design §5.5: [0.5, 0.9]."""
    span = (min(score, 100.0) - MATCH_THRESHOLD) / (100.0 - MATCH_THRESHOLD)
    return round(0.5 + 0.4 * max(0.0, min(1.0, span)), 3)


def support(text: str, segment_text: str) -> float:
    """Lexical support of a text by a segment (0..1): share of its content words the segment holds,
    numbers counting double, and a number the segment does not hold counting against it."""
    claim_words = content_words(text)
    if not claim_words:
        return 0.0
    segment_words = content_words(segment_text)
    claim_numbers = {w for w in claim_words if w.isdigit()}
    weight = len(claim_words) + len(claim_numbers)
    held = len(claim_words & segment_words) + len(claim_numbers & segment_words)
    return round(held / weight, 3)
