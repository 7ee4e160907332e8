"""The passage a reader should see highlighted for a citation (design §5.8): `quote`, `boxes`, `snippet_preview`.

The quote is the shortest run of whole units of the segment (sentences, or rows of a table) that holds most of
the claim's words, numbers counting double; its boxes are those of the segment's lines it overlaps.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from rapidfuzz import fuzz

from ingest import Segment, neutralize_seg_tags
from query.citations.defuse import defused, unchanged_by_neutralizing
from query.language.lexical import Claim, Passage, passage
from query.language.lexical import claim as analyse_claim
from query.language.values import label_of

_SPACE = re.compile(r"\s+")
MAX_RUN = 3  # units in a quote at most: a quote points at a passage, not at the whole segment
SNIPPET_CHARS = 200


class Quote(msgspec.Struct, frozen=True):  # a Struct: built in C, one per citation
    """`text` is `segment.text[start:end]`, defused if it holds something that reads as a SEG tag (design §3)."""

    text: str
    start: int  # code-point span in the segment's text
    end: int
    char_start: int | None  # the same span in the document's text; None where the segment has no offsets
    char_end: int | None

    def to_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)  # {"text": …, "start": …, "end": …, "char_start": …, "char_end": …}


def find_quote(segment: Segment, claim: str) -> Quote:
    """The run of units of `segment` that best supports `claim` (its first unit when nothing does)."""
    return find_quotes(segment, claim)[0]


def find_quotes(segment: Segment, claim: str) -> list[Quote]:
    """`find_quote`'s run, and the units holding the claim's numbers that it lacks: the value printed right of its
    label ("Tax (10%):" … "$1,767.97", far apart in reading order; `language.layout`) is quoted too, and first, as the
    passage a client shows when it shows one. Only a number one unit holds is looked for: the "12" of every row of
    an invoice could be any of them."""
    text = passage(segment.text, segment.kind == "table")
    if not text.units:
        return [_quote(segment, 0, len(segment.text))]
    said = analyse_claim(claim)
    held = _number_units(said, text)
    if labelled := _labelled_values(segment, text, held):
        return labelled
    first, last = _best_run(said, text, held) or _aligned_run(claim, text)
    run = range(first, last + 1)
    elsewhere = sorted({unit for units in held.values() if len(units) == 1 for unit in units if unit not in run})
    if not elsewhere:
        return [_quote(segment, text.units[first][0], text.units[last][1])]
    elsewhere = elsewhere[: MAX_RUN - 1]
    value = {part for _, part in analyse_claim(claim[len(label_of(claim, False)) :]).parts}
    value_units = {unit for part in value & held.keys() for unit in held[part]}
    ordered = [(first, last), *((unit, unit) for unit in elsewhere)]
    if value_units and value_units.isdisjoint(run):  # the run holds the label only: the value comes first
        ordered.sort(key=lambda span: span[0] not in value_units)
    return [_quote(segment, text.units[a][0], text.units[b][1]) for a, b in ordered]


def _labelled_values(segment: Segment, text: Passage, held: dict[str, set[int]]) -> list[Quote]:
    """A claim of several values, each alone on a unit of its own, under its label ("The balance due is $4,647.68
    and the due date is Sep 30, 2019" of "Balance Due:" / "$4,647.68" … "Due Date:" / "Sep 30, 2019"): each value is
    quoted with its label, in the claim's order; [] otherwise."""

    def said(unit: int) -> str:
        return text.text[text.units[unit][0] : text.units[unit][1]].rstrip()

    # (the units of the numbers only one unit holds, in the claim's order; a label's own number is no value)
    units = list(
        dict.fromkeys(u for found in held.values() if len(found) == 1 for u in found if not said(u).endswith(":"))
    )
    if len(units) < 2 or not all(found & set(units) for found in held.values()):
        return []
    quotes = []
    for unit in units:
        start, end = text.units[unit]
        if unit > 0 and said(unit - 1).endswith(":"):
            start = text.units[unit - 1][0]  # the label line above its value
        quotes.append(_quote(segment, start, end))
    return quotes


def quote_boxes(segment: Segment, quote: Quote) -> list[dict[str, Any]]:
    """The boxes of the segment's lines that the quote overlaps, in reading order (the segment's box where
    it has no lines, none where it has no box)."""
    return quotes_boxes(segment, [quote])


def quotes_boxes(segment: Segment, quotes: list[Quote]) -> list[dict[str, Any]]:
    """The boxes of the segment's lines that any of the quotes overlaps, once each, in reading order (the
    segment's box where it has no lines, none where it has no box)."""
    if segment.lines:
        lines = sorted(
            (line for line in segment.lines if any(line.start < q.end and line.end > q.start for q in quotes)),
            key=lambda line: line.start,
        )
        if lines:
            return [_box(segment.page_idx, line.bbox) for line in lines]
    return [_box(segment.page_idx, segment.bbox)] if segment.bbox else []


def snippet_preview(text: str, start: int = 0, end: int | None = None, limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters of `text` centred on `[start, end)`, cut at word boundaries with `…`."""
    end = len(text) if end is None else end
    if len(text) <= limit:
        return defused(_one_line(text))
    budget = limit - 2  # room for an ellipsis at each end
    left = max(0, start - max(0, budget - (end - start)) // 2)
    right = min(len(text), left + budget)
    left = max(0, min(left, right - budget))
    if left > 0 and not text[left - 1].isspace() and (gap := _SPACE.search(text, left, right)):
        left = gap.end()  # the window starts inside a word: drop its tail
    if right < len(text) and not text[right].isspace():
        gap_at = max(text.rfind(" ", left, right), text.rfind("\n", left, right))
        right = gap_at if gap_at > left else right  # the window ends inside a word: drop its head
    body = _one_line(text[left:right]).rstrip(" ,;:")
    snippet = ("…" if left > 0 else "") + body + ("…" if right < len(text) else "")
    # (the ellipses are neither stripped by the store nor part of a SEG-like sequence: the body decides)
    return snippet if unchanged_by_neutralizing(body) else neutralize_seg_tags(snippet)


def _one_line(text: str) -> str:
    """`text` with its runs of whitespace as single spaces, trimmed. (Printable text holds no whitespace but the
    space: without two in a row, only its ends change.)"""
    if text.isprintable() and "  " not in text:
        return text.strip(" ")
    return " ".join(text.split())


def _number_units(said: Claim, text: Passage) -> dict[str, set[int]]:
    """Each of the claim's numbers (its `#value` part) -> the units that hold it, in any of its readings."""
    return {part: {i for r in readings for i in text.number_units.get(r, ())} for readings, part in said.parts}


def _best_run(said: Claim, text: Passage, numbers: dict[str, set[int]]) -> tuple[int, int] | None:
    """(first, last) unit of the quote: the unit holding most of the claim's words and numbers (numbers count
    double; on ties, the one whose numbers fewest units hold, then the shorter), widened by a neighbour only while
    the neighbour adds some the run lacks. `numbers`: `_number_units`."""
    held: list[frozenset[str]] = list(map(said.plain.intersection, text.unit_words))
    scores = list(map(len, held))
    numbers_held: dict[int, set[str]] = {}  # unit -> the claim's numbers it holds, as `#value` parts
    for part, units in numbers.items():
        for i in units:
            numbers_held.setdefault(i, set()).add(part)
    for i, parts in numbers_held.items():
        held[i] = held[i] | parts
        scores[i] += 2 * len(parts)
    best = max(scores, default=0)
    if not best:
        return None
    first = scores.index(best)
    if scores.count(best) > 1:  # the first of the most telling, then of the shortest
        units = text.units
        tied = (i for i, score in enumerate(scores) if score == best)
        # (the "12" of every row of an invoice tells least where the claim is, its "$1,299.99" most)
        repeats = {i: sum(len(holders) for holders in numbers.values() if i in holders) for i in numbers_held}
        first = min(tied, key=lambda i: (repeats.get(i, 0), units[i][1] - units[i][0]))
    last = first
    run = set(held[first])
    while last - first + 1 < MAX_RUN:
        after = held[last + 1] - run if last + 1 < len(held) else set()
        before = held[first - 1] - run if first > 0 else set()
        if not after and not before:
            break
        if len(after) >= len(before):
            last += 1
            run |= after
        else:
            first -= 1
            run |= before
    return first, last


def _aligned_run(claim: str, text: Passage) -> tuple[int, int]:
    """Where the claim's characters align best (OCR-noised words share no whole word): units overlapping it."""
    aligned = fuzz.partial_ratio_alignment(claim.casefold(), text.text.casefold())
    if aligned is None or aligned.score == 0:
        return 0, 0
    hit = [i for i, (s, e) in enumerate(text.units) if s < aligned.dest_end and e > aligned.dest_start] or [0]
    return hit[0], min(hit[-1], hit[0] + MAX_RUN - 1)


def _quote(segment: Segment, start: int, end: int) -> Quote:
    text = segment.text[start:end]
    verbatim = (
        segment.char_start is not None
        and segment.char_end is not None
        # rows are rendered `cell | cell`, a field is `label: value`: not the document's characters
        and segment.kind not in ("table", "field")
        and segment.char_end - segment.char_start == len(segment.text)
    )
    if not verbatim:
        return Quote(defused(text), start, end, None, None)
    return Quote(defused(text), start, end, segment.char_start + start, segment.char_start + end)


def _box(page_idx: int, bbox: Any) -> dict[str, Any]:
    return {"page_idx": page_idx, "x0": bbox.x0, "y0": bbox.y0, "x1": bbox.x1, "y1": bbox.y1}
