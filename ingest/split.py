"""Cutting text that is too long for one segment: at sentence ends, then between words, then anywhere.

Each cut is searched for backwards from the segment's size limit (a few C-level searches per segment, not a
pass of Python per sentence or line), so splitting keeps pace with decoding on text-heavy inputs.
"""

from __future__ import annotations

import re

# A sentence ends at terminal punctuation followed by its closing quotes and brackets, then whitespace:
# `"…bees."` and `(See above.)` keep their closers (design §3).
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’»)\]}」』）]*(?=\s)")
# Whitespace after a line break: a blank line or an indented one (searched from its `\n`, which is fast).
_SPACE_AFTER_BREAK = re.compile(r"\n\s")
_SPACES = (" ", "\n", "\t", "\r", "\u00a0")

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
    """Trimmed spans of `text[start:end]`, each at most `max_chars` long, that cover every non-whitespace
    character exactly once, in order; cut at the last sentence end that fits, else between words."""
    start, end = trim(text, start, end)
    spans: list[Span] = []
    while end - start > max_chars:
        cut = _sentence_cut(text, start, start + max_chars) or _word_cut(text, start, start + max_chars)
        spans.append(trim(text, start, cut))
        start = trim(text, cut, end)[0]
    if end > start:
        spans.append((start, end))
    return spans


def pack_lines(text: str, max_chars: int, start: int = 0, end: int | None = None) -> list[tuple[Span, str]]:
    """Text without paragraphs (a page anchor, a text-only document): whole lines packed into spans of at most
    `max_chars` characters once trimmed lines are joined by one line break; a line longer than that is cut
    like a paragraph. Returns each span with its text so joined."""
    start, end = trim(text, start, end)
    packed: list[tuple[Span, str]] = []
    while end > start:
        stop = end if end - start <= max_chars else text.rfind("\n", start, start + max_chars + 1)
        if stop <= start:  # the first line alone is too long
            stop = _sentence_cut(text, start, start + max_chars) or _word_cut(text, start, start + max_chars)
        a, b = trim(text, start, stop)
        if b > a:
            packed.append(((a, b), _trimmed_lines(text[a:b])))
        start = trim(text, stop, end)[0]
    return packed


def _trimmed_lines(text: str) -> str:
    """The text's lines trimmed, blank ones dropped, joined by one line break; most text already is."""
    if " \n" in text or "\r" in text or "\t\n" in text or _SPACE_AFTER_BREAK.search(text):
        return "\n".join(filter(None, map(str.strip, text.splitlines())))
    return text


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
