"""Reading a passage for the relation check: the units a value is stated in (a line, a sentence, a table row with its
heads, a pair its boxes show), where a value is in one of them, and the words right before it (its lead) and right
after it (its trail), up to its clause's end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ingest import Segment
from query.language.layout import layout_pairs
from query.language.terms import fold

REACH = 8  # words before a value where its label or the question's verb must be
DEFINITION_REACH = 4  # words after a value where a definition must name the attribute ("(the Licensor)")
# A clause ends here: what is before says nothing of what is after. (Not an abbreviation's period, "Appl. No.",
# "Dec. 5": a sentence's last word is a lower-case word, a number, or closes a bracket or a quote.)
_BOUNDARY = re.compile(r"(?:(?<![\w.])[a-z]{3,}|\d|[)\]\"'”])(?P<end>[.!?])(?=\s|$)|(?P<stop>[;\n])")
NUMBER = re.compile(r"\d[\d,./-]*")
WORD = re.compile(r"\w+")
CELL_SEPARATOR = " | "


@dataclass(frozen=True)
class Unit:
    """A line, a sentence or a table row of a passage (a row with the heads of its columns), and where its lines
    start (a value opening a line under its label line is the label's)."""

    text: str
    heads: tuple[str, ...] = ()
    line_starts: frozenset[int] = frozenset()

    @property
    def row(self) -> bool:
        return CELL_SEPARATOR in self.text


def units(segment: Segment) -> Iterator[Unit]:
    """The lines of a segment (a line of several sentences, its sentences), its sentences across lines (its lines
    joined), its table rows with their heads, and the pairs its boxes show side by side."""
    lines = [" ".join(line.split()) for line in segment.text.splitlines() if line.strip()]
    heads = tuple(c.strip() for c in lines[0].split(CELL_SEPARATOR)) if segment.kind == "table" and lines else ()
    for line in lines:
        if CELL_SEPARATOR in line:
            yield Unit(line, heads)
            continue
        sentences = _sentences(line)
        for _, sentence in sentences if len(sentences) > 1 else [(0, line)]:
            yield Unit(sentence)
    if len(lines) > 1:
        joined, starts, offset = [], set(), 0
        for line in lines:
            starts.add(offset)
            joined.append(line)
            offset += len(line) + 1
        text = " ".join(joined)
        for start, sentence in _sentences(text):
            yield Unit(sentence, (), frozenset(s - start for s in starts if start <= s < start + len(sentence)))
    for pair in layout_pairs(segment):
        yield Unit(pair.text, tuple(c.strip() for c in pair.header.split(CELL_SEPARATOR)) if pair.row else ())


def line_before(unit: Unit, start: int) -> str:
    """The line above a value that opens its line, in a unit of lines joined."""
    before = [s for s in unit.line_starts if s < start]
    return unit.text[max(before) : start].strip() if before else ""


def _sentences(text: str) -> list[tuple[int, str]]:
    """The sentences of a text with where each starts (a sentence's text is stripped on the right only)."""
    out, start = [], 0
    for match in _BOUNDARY.finditer(text):
        out.append((start, text[start : match.end()].rstrip()))
        start = match.end()
    out.append((start, text[start:].rstrip()))
    return [(s, t) for s, t in out if t.strip()]


def copied_from(claim: str, units: list[Unit]) -> list[Unit]:
    """The units a claim was copied from (its text is theirs, spaces aside); all of them for a claim written anew (a
    model's paraphrase): an extractive answer is verified by what it shows, not by another line of its passage."""
    said = " ".join(fold(claim).split())
    copied = [u for u in units if said in " ".join(fold(u.text).split())]
    return copied or units


def label_alone(line: str) -> bool:
    """A label line with no value of its own ("ADDRESS:", "Balance Due"), not "ADDRESS: 111 Main Street", which labels
    its own value and not the line under it."""
    _, colon, value = line.partition(":")
    return not colon or not value.strip()


def occurrences(text: str, value: str) -> Iterator[int]:
    """Where `value` is in `text`, as a whole word run (case-folded); a number not inside a longer one ("10" is not in
    "10,182,182")."""
    pattern = re.compile(r"(?<!\w)(?<!\w/)(?<!\d[.,])" + re.escape(value) + r"(?![\w]|[.,/]\d)", re.IGNORECASE)
    for match in pattern.finditer(text):
        yield match.start()


def lead_before(text: str, start: int) -> str:
    """The words right before a value, back to a clause's end or another value, at most REACH words."""
    before = text[:start]
    # (a form asks, then labels the answer: "Are you taking any medication? (If yes, describe): Vyvanse")
    ends = [m for m in _BOUNDARY.finditer(before) if not (m.group("end") == "?" and before.rstrip().endswith(":"))]
    cut = max((m.end() for m in ends), default=0)
    # (a number between, then words: they are its own label; a number of the label, "Total du 11/12/2022:", is not)
    cut = max([cut, *(m.end() for m in NUMBER.finditer(before) if re.search(r"[^\W\d_]", before[m.end() :]))])
    return " ".join(before[cut:].split()[-REACH:])


def trail_after(text: str, end: int) -> str:
    """The words right after a value, up to a clause's end: where a definition of it would be."""
    after = text[end:]
    stop = _BOUNDARY.search(after)
    cut = (stop.start("end") if stop.group("end") else stop.start("stop")) if stop else len(after)
    return " ".join(after[:cut].split()[: DEFINITION_REACH + 3])


def whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """A value's span grown to the word it is part of: "E00007730", not "00007730"."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    while start > 0 and (text[start - 1].isalnum() or _joins_digits(text, start - 1)):
        start -= 1
    while end < len(text) and (text[end].isalnum() or _joins_digits(text, end)):
        end += 1
    return start, end


def _joins_digits(text: str, at: int) -> bool:
    """A slash, a dot or a dash between two digits is inside one value: "03/2017", "15/453,945"."""
    return text[at] in "/.-" and 0 < at < len(text) - 1 and text[at - 1].isdigit() and text[at + 1].isdigit()


def plain(value: str) -> str:
    """A value as a verification gives it: case-folded, its spaces and punctuation left out."""
    return re.sub(r"\W+", "", fold(value))
