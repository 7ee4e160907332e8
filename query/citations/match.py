"""Text matching: which segment says what a sentence of the answer says (the fallback of design §5.5).

Candidates are narrowed with an inverted index (idf-weighted word overlap), then reranked with rapidfuzz
and a numeric-token bonus, so "€12,50 on 5 May" prefers the segment whose numbers agree. The worker's
workspace tier narrows with PostgreSQL full-text search instead and reuses `best_match` for the rerank.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol

import msgspec
from rapidfuzz import fuzz

from ingest import Segment
from query.language.lexical import content_words, number_keys, number_values, plain_words, words

MATCH_THRESHOLD = 62.0  # on the 0..100 scale of `match_score`; calibrated by bench/bench_fallback.py
MIN_CLAIM_WORDS = 3  # shorter sentences ("Yes.") carry too little to match on
SCAN_LIMIT = 256  # up to this many segments, postings are made per word asked about, not for every word
# A value as written: `62,86`, `12345678`, `2020/10/01`, `10:30`.
_VALUE = re.compile(r"\d(?:[\d.,/:\-]*\d)?")  # (starts with a digit class: the engine skips to digits)


class SegmentSource(Protocol):
    """Where segments come from: a lookup by id, and candidates for a piece of text."""

    def lookup(self, segment_ids: Iterable[str]) -> dict[str, Segment]: ...

    def candidates(self, text: str, limit: int) -> list[Segment]: ...


class SegmentIndex(Mapping[str, Segment]):
    """In-memory segments by id, with an inverted index built on first search."""

    def __init__(self, segments: Iterable[Segment]):
        self._segments = {s.segment_id: s for s in segments}
        self._postings: dict[str, list[str]] | None = None
        self._words: dict[str, frozenset[str]] = {}

    @classmethod
    def keyed(cls, segments: dict[str, Segment]) -> SegmentIndex:
        """An index of segments already keyed by their ids (`segment_id` is made anew at each call)."""
        index = cls(())
        index._segments = segments
        return index

    def __getitem__(self, segment_id: str) -> Segment:
        return self._segments[segment_id]

    def __contains__(self, segment_id: object) -> bool:  # (Mapping's goes through __getitem__ and KeyError)
        return segment_id in self._segments

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

    def _postings_for(self, asked: frozenset[str]) -> dict[str, list[str]]:
        """Postings holding (at least) the words asked about. A few segments (a question's context) are scanned
        for those words only, all of a text's new words in one pass over the segments; many get a full inverted
        index on first search."""
        if self._postings is None:
            few = len(self._segments) <= SCAN_LIMIT
            self._postings = {} if few else self._build()
            self._words = {i: content_words(s.text) for i, s in self._segments.items()} if few else {}
        if self._words and (new := asked.difference(self._postings)):
            for word in new:
                self._postings[word] = []
            # ids in the segments' order, as a full index has them; most segments hold none of the new words, and
            # are passed over in C
            holding = map(operator.not_, map(new.isdisjoint, self._words.values()))
            for segment_id, held in itertools.compress(self._words.items(), holding):
                for word in new & held:
                    self._postings[word].append(segment_id)
        return self._postings

    def candidates(self, text: str, limit: int) -> list[Segment]:
        total = max(len(self._segments), 1)
        scores: dict[str, float] = {}
        asked = content_words(text)
        postings = self._postings_for(asked)
        for word in asked:
            ids = postings.get(word)
            if not ids:
                continue
            weight = math.log(1 + total / len(ids))  # idf: rare words say more about where a text comes from
            for segment_id in ids:
                scores[segment_id] = scores.get(segment_id, 0.0) + weight
        best = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], item[0]))
        return [self._segments[segment_id] for segment_id, _ in best]


class Match(msgspec.Struct, frozen=True):  # a Struct: built in C, one per candidate kept
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
    return _Scorer(claim).score(segment_text, at_least)


class _Scorer:
    """`match_score` for one claim: what it reads of the claim is read once for all of the claim's candidates."""

    __slots__ = ("claim", "counted", "folded", "numbers")

    def __init__(self, claim: str):
        self.claim = claim
        claim_words = content_words(claim)
        # Numbers count through the bonus below, not as words: agreeing digits alone ("61 goals on 8 August 2023"
        # against an energy certificate's "61 … 8 August 2023") must not look like agreeing words.
        self.counted = (plain_words(claim) or claim_words) if claim_words else None
        self.numbers = number_values(claim)
        self.folded: str | None = None  # the claim case-folded, once a candidate gets as far as rapidfuzz

    def score(self, segment_text: str, at_least: float = 0.0) -> float:
        if self.counted is None:
            return 0.0
        covered = 100 * len(self.counted & content_words(segment_text)) / len(self.counted)
        adjustment = 0.0
        if self.numbers:
            keys = number_keys(segment_text)
            agreeing = sum(map(operator.not_, map(keys.isdisjoint, self.numbers))) / len(self.numbers)
            if not agreeing:
                return 0.0  # a claim's numbers are its most specific words: a segment holding none is not its source
            adjustment = NUMBER_BONUS * agreeing - NUMBER_PENALTY * (1 - agreeing)
        cutoff = _fuzzy_needed(at_least - adjustment, covered) if at_least else 0.0
        if cutoff > 100:
            return 0.0
        if self.folded is None:
            self.folded = self.claim.casefold()
        fuzzy = fuzz.partial_ratio(self.folded, segment_text.casefold(), score_cutoff=cutoff)
        if at_least and fuzzy < cutoff:
            return 0.0
        return _combine(fuzzy, covered) + adjustment


def best_match(claim: str, candidates: Iterable[Segment]) -> Match | None:
    """The candidate that best supports the claim, if it clears the threshold (ties: the earlier one)."""
    if len(content_words(claim)) < MIN_CLAIM_WORDS and len(words(claim)) < MIN_CLAIM_WORDS:
        return None  # (a claim's distinct content words are some of its words: counted first, as they are cached)
    scorer = _Scorer(claim)
    best: Match | None = None
    for segment in candidates:
        floor = max(MATCH_THRESHOLD, best.score + 1e-9) if best else MATCH_THRESHOLD
        score = scorer.score(segment.text, at_least=floor)
        if score >= floor:
            best = Match(segment, score)
    return best


def ranked_matches(claim: str, candidates: Iterable[Segment]) -> Iterator[Match]:
    """The candidates that clear the threshold, best first, found lazily: a caller that takes the first one
    pays for `best_match` only (the next is looked for only if it is refused, e.g. as a contradiction)."""
    remaining = list(candidates)
    while (best := best_match(claim, remaining)) is not None:
        yield best
        remaining = [s for s in remaining if s is not best.segment]


def value_of(text: str) -> str | None:
    """The one value a terse section consists of (`62,86 €`, `12345678`, `Total: 2020/10/01`), else None."""
    values = _VALUE.findall(text)
    if len(values) != 1 or len(words(_VALUE.sub(" ", text))) > 1:
        return None  # several values, or words around it: a claim to match as text
    return values[0]


def holding_value(value: str, candidates: Iterable[Segment]) -> list[Segment]:
    """The candidates whose text holds `value` exactly, as a value of its own (not inside a longer number)."""
    pattern = re.compile(rf"(?<![\w.,/:\-]){re.escape(value)}(?![\w]|[.,/:\-]\d)")
    return [segment for segment in candidates if pattern.search(segment.text)]


def confidence(score: float) -> float:
    """A match score mapped to the `matched` band of design §5.5: [0.5, 0.9]."""
    span = (min(score, 100.0) - MATCH_THRESHOLD) / (100.0 - MATCH_THRESHOLD)
    return round(0.5 + 0.4 * max(0.0, min(1.0, span)), 3)
