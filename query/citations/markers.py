"""Inline `[N]` markers (design §5.7): positions, clusters, sentences, and the maps between them.

The sentence splitter keeps abbreviations (Dr., e.g.), initials (J. R. R.) and decimals (3.14) inside their
sentence, and gives a marker cluster written after the period (`fact. [1]`) to the sentence it follows.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

_MARKER = re.compile(r"\[(\d{1,6})\]")
_CLUSTER = re.compile(r"\[\d{1,6}\](?:\s*,?\s*\[\d{1,6}\])*")
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof st sr jr vs etc inc ltd co corp no nos fig figs al approx dept est vol pp p eq "
    "e.g i.e cf ca mt ft jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# Candidate ends: terminal punctuation, closing quotes/brackets, then an optional marker cluster. (`[…][…]*`, not
# `[…]+`: a pattern that starts with a character set lets the regex engine skip to where one can start.)
_END = re.compile(r"([.!?…。][.!?…。]*)([\"'”’)\]]*)((?:\s*\[\d{1,6}\](?:\s*,?\s*\[\d{1,6}\])*)?)(?=\s|$)")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LONGEST_ABBREVIATION = 12  # characters before a period looked at (every abbreviation above is shorter)
# Letters right before a period that no abbreviation or initial has as many of: the period ends a sentence.
_CLEARLY_A_WORD = max(map(len, _ABBREVIATIONS)) + 1
_CLOSING = frozenset(")]\"'”’")
_TAIL_WORD = re.compile(r"""[^\s(\["']*\Z""")
_PREVIOUS_WORD = re.compile(r"(\S+)\s*\Z")
_NEXT_INITIAL = re.compile(r"\s+[A-Z]\.(?:\s|$)")
_INNER_END = re.compile(r"[.!?…。][\"'”’)\]]*\s+\S")  # terminal punctuation with more text after it
_SPACED_CLUSTER = re.compile(r"\s*" + _CLUSTER.pattern)
_MARKER_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class Marker:
    number: int
    start: int
    end: int
    text: str  # "[3]"


@dataclass(frozen=True)
class Cluster:
    markers: list[Marker]
    start: int
    end: int
    text: str  # "[1][2]" or "[1], [2]"

    @property
    def numbers(self) -> list[int]:
        return [m.number for m in self.markers]


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int
    markers: list[Marker] = field(default_factory=list)

    @property
    def citation_ids(self) -> list[int]:
        return sorted({m.number for m in self.markers})


@dataclass(frozen=True)
class ParsedMarkers:
    text: str
    markers: list[Marker]
    sentences: list[Sentence]
    citation_to_sentences: dict[int, list[int]]  # number -> sentence indexes
    sentence_to_citations: dict[int, list[int]]  # sentence index -> numbers
    out_of_range: list[Marker]  # markers outside 1..n

    @functools.cached_property
    def clusters(self) -> list[Cluster]:
        return extract_clusters(self.text)


def extract_markers(text: str) -> list[Marker]:
    return [Marker(int(m.group(1)), m.start(), m.end(), m.group(0)) for m in _MARKER.finditer(text)]


def extract_clusters(text: str) -> list[Cluster]:
    return [
        Cluster(extract_markers_at(text, m.start(), m.end()), m.start(), m.end(), m.group(0))
        for m in _CLUSTER.finditer(text)
    ]


def extract_markers_at(text: str, start: int, end: int) -> list[Marker]:
    return [Marker(int(m.group(1)), m.start(), m.end(), m.group(0)) for m in _MARKER.finditer(text, start, end)]


def remove_markers(text: str) -> str:
    return _SPACED_CLUSTER.sub("", text)


def remove_model_markers(text: str, max_marker: int | None) -> str:
    """`text` without the marker clusters a model wrote (`[1][2]`, `[3], [4]`) whose numbers are all in
    1..max_marker (any n when None): other bracketed numbers (`[2023]`, `[0]`) are text, not markers."""

    def drop(match: re.Match[str]) -> str:
        numbers = [int(n) for n in _MARKER_NUMBER.findall(match.group())]
        in_range = all(1 <= n <= (max_marker if max_marker is not None else n) for n in numbers)
        return "" if in_range else match.group()

    return _SPACED_CLUSTER.sub(drop, text)


def _is_abbreviation(text: str, dot: int) -> bool:
    """Whether the period at `dot` ends an abbreviation, an initial or a number's decimal part."""
    # The common cases, decided without the regexes below: a longer word than any abbreviation, or a marker,
    # bracket or quote before the period (`capital [1].`), which no abbreviation or initial ends with.
    if (
        dot == 0
        or text[dot - 1] in _CLOSING
        or (dot >= _CLEARLY_A_WORD and text[dot - _CLEARLY_A_WORD : dot].isalpha())
    ):
        return False
    if dot + 1 < len(text) and text[dot + 1].isdigit() and dot > 0 and text[dot - 1].isdigit():
        return True  # 3.14 (the regex needs whitespace after, so this only guards odd input)
    if text[dot - 1].isdigit():
        return False  # the end of a number ("in 2019."): no abbreviation or initial ends with a digit
    left = max(0, dot - _LONGEST_ABBREVIATION)
    word_start = _TAIL_WORD.search(text, left, dot).start()
    if word_start == left > 0:
        return False  # a word longer than any abbreviation
    word = text[word_start:dot].casefold()
    if not word:
        return False
    if word in _ABBREVIATIONS or word.rstrip(".") in _ABBREVIATIONS:
        return True
    if len(word) != 1 or not word.isalpha() or not text[word_start].isupper():
        return False
    # An initial ("J. R. Tolkien", "John F. Kennedy") follows a capitalized word or starts a sentence, or another
    # initial follows it ("the nebula N. G. C. 7619"); a letter after a lower-case word ends one ("The rating is
    # D. Heating…").
    if _NEXT_INITIAL.match(text, dot + 1):
        return True
    previous = _PREVIOUS_WORD.search(text, max(0, word_start - 40), word_start)
    return previous is None or previous.group(1)[0].isupper() or previous.group(1)[-1] in ".!?…"


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end), trimmed, in order; blank lines always end a sentence."""
    if not _INNER_END.search(text) and not _PARAGRAPH_BREAK.search(text):
        span = _trim(text, 0, len(text))  # one sentence: the common case of a short section
        return [span] if span[1] > span[0] else []
    cuts: list[int] = []  # where sentences start and end, a block's end counted twice (one ends, one starts)
    for block_start, block_end in _blocks(text):
        cuts.append(block_start)
        for match in _END.finditer(text, block_start, block_end):
            end = match.end()
            if match.group(1) == "." and (
                _is_abbreviation(text, match.start(1))
                or text[end : end + 3].lstrip()[:1].islower()  # "e.g. the": a lower-case word rarely starts one
            ):
                continue
            cuts += end, end
        cuts.append(block_end)
    spans: list[tuple[int, int]] = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=True):  # trimmed, inline: this runs for every sentence
        piece = text[start:end]
        if kept := len(piece.strip()):
            start += len(piece) - len(piece.lstrip())
            spans.append((start, start + kept))
    return spans


def _blocks(text: str) -> list[tuple[int, int]]:
    if "\n" not in text:
        return [(0, len(text))]  # no blank line without a line break
    blocks: list[tuple[int, int]] = []
    position = 0
    for brk in _PARAGRAPH_BREAK.finditer(text):
        blocks.append((position, brk.start()))
        position = brk.end()
    blocks.append((position, len(text)))
    return blocks


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without whitespace at either end (str.strip's whitespace is str.isspace's)."""
    piece = text[start:end]
    kept = piece.lstrip()
    start += len(piece) - len(kept)
    return start, start + len(kept.rstrip())


def sentence_markers(text: str) -> list[tuple[int, int, list[int]]]:
    """Each sentence's span with the numbers of the markers inside it, in order: what `parse_markers` finds,
    without building its objects (the payload of a long answer needs only these)."""
    found = [(m.start(), int(m.group(1))) for m in _MARKER.finditer(text)]
    out: list[tuple[int, int, list[int]]] = []
    position = 0
    for start, end in split_sentences(text):
        inside: list[int] = []
        while position < len(found) and found[position][0] < end:
            if found[position][0] >= start:
                inside.append(found[position][1])
            position += 1
        out.append((start, end, inside))
    return out


def parse_markers(text: str, citation_count: int) -> ParsedMarkers:
    """Markers, clusters and sentences of `text`, with both maps; markers outside 1..citation_count reported."""
    markers = extract_markers(text)
    sentences: list[Sentence] = []
    position = 0
    for start, end in split_sentences(text):
        inside: list[Marker] = []
        while position < len(markers) and markers[position].start < end:
            if markers[position].start >= start:
                inside.append(markers[position])
            position += 1
        sentences.append(Sentence(text[start:end], start, end, inside))
    citation_to_sentences: dict[int, list[int]] = {}
    sentence_to_citations: dict[int, list[int]] = {}
    for index, sentence in enumerate(sentences):
        ids = sentence.citation_ids
        if ids:
            sentence_to_citations[index] = ids
        for number in ids:
            citation_to_sentences.setdefault(number, []).append(index)
    return ParsedMarkers(
        text=text,
        markers=markers,
        sentences=sentences,
        citation_to_sentences=citation_to_sentences,
        sentence_to_citations=sentence_to_citations,
        out_of_range=[m for m in markers if not 1 <= m.number <= citation_count],
    )
