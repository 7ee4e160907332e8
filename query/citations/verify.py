"""Support scoring: does a segment back a claim? The one step the id path and the text-match fallback share.

`resolve_sections` asks a `Verifier` for a `Verdict` on each (claim, segment) pair it considers: an id's segment
against the sentence of its section its marker goes after, a text-match candidate against its sentence.
- an id whose segment is not `related` to its claim is not shown (design §5.5: "does not support this text"),
  nor one whose `held` parts the section's better ids already back ("adds nothing to the other sources");
- a text-match candidate that is not `related` or `contradicts` its sentence is never `matched`;
- every citation carries the verdict's `support` and `warning`.

`LexicalVerifier` is the default: deterministic, fast, offline. It reads negation and numbers, which a bag of
words misses. A stronger verifier (say, an OpenAI-compatible model asked to judge support, behind a setting)
implements the same protocol and is passed as `verifier=`; the resolution path does not change.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from ingest import Segment
from query.language.lexical import (
    Claim,
    Passage,
    anchors_of,
    held,
    neighbours_of,
    numbers_beside,
    numbers_near,
    opposite_words,
    passage,
)
from query.language.lexical import claim as analyse_claim

CONTRADICTION_SUPPORT = 0.2  # the most support a contradicted citation keeps (design §5.5)


class Verdict(msgspec.Struct, frozen=True):  # a Struct: built in C, one per judgement
    support: float  # 0..1: how much of the claim the segment backs
    related: bool  # the segment shares something that matters with the claim (a content word or a number)
    contradicts: bool  # the segment states the claim's opposite (negation) or its numbers differently
    warning: str | None  # why the segment may not back the claim: "contradicts: …", "numbers not found: …"
    # The parts of the claim the segment backs (the lexical verifier: its content words, and its numbers as
    # `#value`). Of several ids of one section, one that backs no part the better ones do not is not shown.
    held: frozenset[str] = frozenset()


class Verifier(Protocol):
    def verify(self, claim: str, segment: Segment) -> Verdict: ...


class LexicalVerifier:
    """Support = the share of the claim's content words the segment holds, numbers counting double. Then,
    against the segment's sentence (or row) that best matches the claim: a negation or an opposite word on one
    side only, or a number the segment states differently next to the same words, is a contradiction."""

    def verify(self, claim: str, segment: Segment) -> Verdict:
        said = analyse_claim(claim)
        text = passage(segment.text, segment.kind == "table")
        found, support = held(said, text)
        if not found:
            return Verdict(support, False, False, None)
        unit = best_unit(said.words, text)
        contradiction = _contradiction(said, text, unit) or _number_conflict(claim, said, text, unit)
        if contradiction:
            return Verdict(min(support, CONTRADICTION_SUPPORT), True, True, f"contradicts: {contradiction}", found)
        missing = [w for w, readings in said.numbers if readings.isdisjoint(text.numbers)] if said.numbers else None
        if missing:
            return Verdict(support, True, False, f"numbers not found: {', '.join(missing)}", found)
        return Verdict(support, True, False, None, found)


def _contradiction(said: Claim, text: Passage, unit: int | None) -> str | None:
    """Negation or opposite words on one side only, against the unit that best matches the claim."""
    if unit is None:
        return None
    theirs = text.unit_negations[unit]
    flipped = (said.negation is None) != (theirs is None)
    opposite = opposite_words(said.words, text.unit_words[unit])
    if flipped == (opposite is not None):  # nothing flips, or two flips cancel ("not refused" = "granted")
        return None
    if opposite is not None:
        return f'"{opposite[0]}" vs "{opposite[1]}"'
    return f'"{said.negation}" in the claim only' if said.negation else f'"{theirs}" in the segment only'


def _number_conflict(claim: str, said: Claim, text: Passage, unit: int | None) -> str | None:
    """A number of the claim the segment states differently (16 vs 61): another number stands in its place,
    between the same words, in the sentence that best matches the claim; or, for a number the segment does not
    hold at all, next to the same content words anywhere in it."""
    if unit is None or not said.numbers:
        return None
    unit_numbers = text.unit_numbers[unit]
    differing = [(written, readings) for written, readings in said.numbers if readings.isdisjoint(unit_numbers)]
    if not differing:
        return None
    start, end = text.units[unit]
    claim_keys = {key for _, readings in said.numbers for key in readings}
    anchors = anchors_of(claim)
    neighbours = neighbours_of(claim)
    for written, readings in differing:
        candidates = numbers_beside(text.text[start:end], *neighbours.get(written, (None, None)))
        if not readings & text.numbers and anchors.get(written):
            candidates += numbers_near(text.text, anchors[written])
        others = [t for t in candidates if not t.readings & claim_keys]
        if others:
            return f"{written} vs {others[0].text}"
    return None


def best_unit(claim_words: frozenset[str], text: Passage) -> int | None:
    """Index of the unit sharing the most words with the claim (the first on ties); None if it has no units."""
    if not text.units:
        return None
    shared = list(map(len, map(claim_words.intersection, text.unit_words)))
    return shared.index(max(shared))
