"""Cutting text that is too long for one segment: at sentence boundaries, then words, then anywhere."""

from __future__ import annotations

import re

# A gap after terminal punctuation (and any closing quote or bracket), where a sentence ends.
_SENTENCE_GAP = re.compile(r"(?<=[.!?…。])[\"'”’)\]]*\s+")
_WHITESPACE = re.compile(r"\s+")

Span = tuple[int, int]


def trim(text: str, start: int = 0, end: int | None = None) -> Span:
    """The span without leading and trailing whitespace (empty spans collapse to (end, end))."""
    end = len(text) if end is None else end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_spans(text: str, max_chars: int, start: int = 0, end: int | None = None) -> list[Span]:
    """Spans of `text[start:end]`, each at most `max_chars` long and trimmed, that cover every
    non-whitespace character exactly once, in order."""
    start, end = trim(text, start, end)
    if end <= start:
        return []
    if end - start <= max_chars:
        return [(start, end)]
    return _pack(_units(text, start, end, max_chars), max_chars)


def _cut(text: str, start: int, end: int, gap: re.Pattern[str]) -> list[Span]:
    spans: list[Span] = []
    position = start
    for match in gap.finditer(text, start, end):
        if match.start() > position:
            spans.append((position, match.start()))
        position = match.end()
    if position < end:
        spans.append((position, end))
    return [trim(text, s, e) for s, e in spans if trim(text, s, e)[1] > trim(text, s, e)[0]]


def _units(text: str, start: int, end: int, max_chars: int) -> list[Span]:
    units: list[Span] = []
    for s, e in _cut(text, start, end, _SENTENCE_GAP):
        if e - s <= max_chars:
            units.append((s, e))
            continue
        for ws, we in _cut(text, s, e, _WHITESPACE):
            if we - ws <= max_chars:
                units.append((ws, we))
            else:  # one "word" longer than a segment (a URL, a run of digits): cut it anywhere
                units.extend((i, min(i + max_chars, we)) for i in range(ws, we, max_chars))
    return units


def _pack(units: list[Span], max_chars: int) -> list[Span]:
    packed: list[Span] = []
    for s, e in units:
        if packed and e - packed[-1][0] <= max_chars:
            packed[-1] = (packed[-1][0], e)
        else:
            packed.append((s, e))
    return packed
