"""Cutting text that is too long for one segment: at sentence ends, then between words, then anywhere.

Each cut is searched for backwards from the segment's size limit (a few C-level searches per segment, not a
pass of Python per sentence or line), so splitting keeps pace with decoding on text-heavy inputs.
"""

from __future__ import annotations

import re

# A sentence ends at terminal punctuation followed by its closing quotes and brackets, then whitespace:
# `"…bees."` and `(See above.)` keep their closers (design §3).
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’»)\]}」』）]*(?=\s)")
_SPACES = (" ", "\n", "\t", "\r", "\u00a0")

Span = tuple[int, int]


def trim(text: str, start: int = 0, end: int | None = None) -> Span:
    """The span without leading and trailing whitespace (empty spans collapse to (end, end))."""
    end = len(text) if end is None else end
    if start < end and not text[start].isspace() and not text[end - 1].isspace():
        return start, end  # the usual case
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_spans(
    text: str, max_chars: int, start: int = 0, end: int | None = None, *, whole_lines: bool = False
) -> list[Span]:
    """Trimmed spans of `text[start:end]`, each at most `max_chars` long, that cover every non-whitespace
    character exactly once, in order. Cut at the last sentence end that fits, else between words; with
    `whole_lines` (text without paragraphs: a page anchor, a text-only document), first after the last line
    break that fits. The text inside a span is kept as written: one search per span, never a pass per line."""
    start, end = trim(text, start, end)
    spans: list[Span] = []
    while end - start > max_chars:
        limit = start + max_chars
        cut = text.rfind("\n", start + 1, limit + 1) if whole_lines else -1
        if cut <= start:
            cut = _sentence_cut(text, start, limit) or _word_cut(text, start, limit)
        stop = cut  # trimmed inline: this loop runs once per segment of text-heavy inputs
        while text[stop - 1].isspace():
            stop -= 1
        spans.append((start, stop))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        spans.append((start, end))
    return spans


def _sentence_cut(text: str, start: int, limit: int) -> int:
    """End of the last sentence that ends after `start` and at most at `limit`; 0 if none."""
    cut = 0
    for match in _SENTENCE_END.finditer(text, start, limit + 1):
        if match.end() <= limit:
            cut = match.end()
    return cut if cut > start else 0


def _word_cut(text: str, start: int, limit: int) -> int:
    """The last whitespace in `text[start + 1 : limit + 1]`, else `limit` (one "word" longer than a segment,
    such as a URL or a run of digits, is cut anywhere)."""
    space = max(text.rfind(s, start + 1, limit + 1) for s in _SPACES)
    return space if space > start else limit
