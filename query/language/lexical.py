"""Lexical analysis shared by text matching, support scoring and quotes: words, numbers, negation, and the
units (sentences, or table rows) of a segment. Analyses are cached by text: one segment is read for many
sentences of an answer."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from query.citations.markers import split_sentences
from query.language.terms import STOPWORDS, is_cjk
from query.language.terms import tokens as _tokens

# A number standing alone ("1889", "12,50", "4.500,00"), not digits inside a word ("f0r" from OCR, "A4").
_NUMBER = re.compile(r"(?<!\w)\d+(?:[.,]\d+)*(?!\w)")
_SEPARATOR = re.compile(r"[.,]")
# Words that turn a statement into its opposite. `no` before a number is "number" ("Invoice No. 12").
NEGATIONS = frozenset(
    "not no never without none nor neither nobody nothing cannot pas jamais aucun aucune sans nicht kein keine "
    "keinen keiner nie ohne".split()
)
_NEGATION_HINTS = NEGATIONS | {"t"}  # `t` of "wasn't" (split at the apostrophe)
_NEGATION = re.compile(
    r"\b(?:" + "|".join(sorted(NEGATIONS - {"no"})) + r")\b|\bno\b(?![.:#°º]?\s*\d)(?!\.)|n['’]t\b",
    re.IGNORECASE,
)
# Pairs that state opposite outcomes (`refused` vs `granted`): either side's word means the other is false.
_OPPOSITES = [
    ({"granted", "approved", "accepted", "allowed", "permitted"}, {"refused", "denied", "rejected", "declined"}),
    ({"allowed", "permitted", "authorised", "authorized"}, {"prohibited", "forbidden", "banned"}),
    ({"increased", "increase", "increases", "rose", "higher"}, {"decreased", "decrease", "decreases", "fell", "lower"}),
    ({"passed", "succeeded", "won"}, {"failed", "lost"}),
    ({"present", "included", "valid", "open", "opened"}, {"absent", "excluded", "invalid", "expired", "closed"}),
]
_OPPOSITE_WORDS = frozenset(word for pair in _OPPOSITES for side in pair for word in side)
ANCHOR_WINDOW = 3  # words either side of a number that say what it counts ("a score of 16")
_LOWER_START = re.compile(r"\n(?=\s*[a-zà-ÿ(])")


def words(text: str) -> list[str]:
    """Case- and accent-folded words; CJK text as characters and adjacent pairs (`query.language.terms.tokens`)."""
    return _tokens(text)


@functools.lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The words that tell texts apart. Cached: the same segment is scored for many sentences."""
    return _content(words(text))


def _content(text_words: list[str]) -> frozenset[str]:
    return frozenset(w for w in set(text_words).difference(STOPWORDS) if len(w) >= 3 or w.isdigit() or is_cjk(w))


@functools.lru_cache(maxsize=8192)
def plain_words(text: str) -> frozenset[str]:
    """Content words that are not numbers (numbers are compared by value, see `number_mentions`)."""
    return frozenset(w for w in content_words(text) if not w.isdigit())


@functools.lru_cache(maxsize=8192)
def number_readings(token: str) -> frozenset[str]:
    """The values a written number can mean: `4,500` is 4500 or 4.5, `62,86` is 62.86, `1.234,50` is 1234.5;
    one that is no single value (`01.12.2022`) means its groups, so a claim quoting it is held by it."""
    parts = _SEPARATOR.split(token)
    if len(parts) == 1:
        return frozenset({str(int(token))})
    separators = _SEPARATOR.findall(token)
    readings: set[str] = set()
    if all(len(p) == 3 for p in parts[1:]) and len(set(separators)) == 1:
        readings.add(str(int("".join(parts))))  # thousands separators
    if len(separators) == 1 or separators[-1] not in separators[:-1]:
        fraction = parts[-1].rstrip("0")
        whole = str(int("".join(parts[:-1])))
        readings.add(f"{whole}.{fraction}" if fraction else whole)
    if not readings:  # `01.12.2022`, `1.2.3`: a date or a version, read as its groups (`1.12.2022`)
        readings.add(".".join(str(int(part)) for part in parts))
    return frozenset(readings)


@functools.lru_cache(maxsize=8192)
def number_mentions(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each distinct number of the text, in order: as first written, and its readings."""
    seen: dict[frozenset[str], str] = {}
    for token in _NUMBER.findall(text):
        seen.setdefault(number_readings(token), token)
    return tuple((written, readings) for readings, written in seen.items())


def number_values(text: str) -> tuple[frozenset[str], ...]:
    """The readings of each distinct number of the text, in order."""
    return tuple(readings for _, readings in number_mentions(text))


@functools.lru_cache(maxsize=8192)
def number_keys(text: str) -> frozenset[str]:
    """Every reading of every number of the text: a claim's number is held if its readings meet these."""
    return _number_keys(text)


def _number_keys(text: str) -> frozenset[str]:
    return frozenset().union(*map(number_readings, _NUMBER.findall(text)))


def _negation(text: str, text_words: list[str]) -> str | None:
    """The first negation word of the text ("not", "no", "never", "n't"…), or None; `text_words` its words."""
    if _NEGATION_HINTS.isdisjoint(text_words):  # most sentences: a set test instead of the regex
        return None
    match = _NEGATION.search(text)
    return match.group().casefold() if match else None


def opposite_words(claim_words: frozenset[str], passage_words: frozenset[str]) -> tuple[str, str] | None:
    """A word of the claim and its opposite in the passage (`granted`, `refused`), when only one side has each."""
    if claim_words.isdisjoint(_OPPOSITE_WORDS) or passage_words.isdisjoint(_OPPOSITE_WORDS):
        return None
    for left, right in _OPPOSITES:
        for ours, theirs in ((left, right), (right, left)):
            said = claim_words & ours
            other = passage_words & theirs
            if said and other and not passage_words & said and not claim_words & other:
                return min(said), min(other)
    return None


@dataclass(frozen=True)
class Token:
    text: str  # casefolded word, or the number as written
    readings: frozenset[str] | None  # set for numbers


@functools.lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[Token, ...]:
    """Words and numbers in order (a number like `12,50` is one token)."""
    out: list[Token] = []
    position = 0
    for match in _NUMBER.finditer(text):
        out.extend(Token(w, None) for w in words(text[position : match.start()]))
        out.append(Token(match.group(), number_readings(match.group())))
        position = match.end()
    out.extend(Token(w, None) for w in words(text[position:]))
    return tuple(out)


def numbers_near(text: str, anchors: frozenset[str]) -> list[Token]:
    """The numbers of the text within ANCHOR_WINDOW words of one of the anchor words."""
    stream = tokens(text)
    found: list[Token] = []
    for i, token in enumerate(stream):
        if token.readings is None and token.text in anchors:
            window = stream[max(0, i - ANCHOR_WINDOW) : i + ANCHOR_WINDOW + 1]
            found.extend(t for t in window if t.readings is not None and t not in found)
    return found


def numbers_beside(text: str, before: str | None, after: str | None) -> list[Token]:
    """The numbers of the text written right after the token `before` or right before the token `after`; those
    between both come first."""
    stream = tokens(text)
    found: list[tuple[int, Token]] = []
    for i, token in enumerate(stream):
        if token.readings is None:
            continue
        fits = (before is not None and i > 0 and stream[i - 1].text == before) + (
            after is not None and i + 1 < len(stream) and stream[i + 1].text == after
        )
        if fits:
            found.append((-fits, token))
    return [token for _, token in sorted(found, key=lambda item: item[0])]


def neighbours_of(text: str) -> dict[str, tuple[str | None, str | None]]:
    """For each number of the text (as written, first place it appears), the tokens right before and after it."""
    stream = tokens(text)
    out: dict[str, tuple[str | None, str | None]] = {}
    for i, token in enumerate(stream):
        if token.readings is not None and token.text not in out:
            before = stream[i - 1].text if i > 0 else None
            after = stream[i + 1].text if i + 1 < len(stream) else None
            out[token.text] = (before, after)
    return out


def anchors_of(text: str) -> dict[str, frozenset[str]]:
    """For each number of the text (as written), the content words next to it."""
    stream = tokens(text)
    anchors: dict[str, frozenset[str]] = {}
    for i, token in enumerate(stream):
        if token.readings is None:
            continue
        window = stream[max(0, i - ANCHOR_WINDOW) : i + ANCHOR_WINDOW + 1]
        near = {t.text for t in window if t.readings is None and len(t.text) >= 3 and t.text not in STOPWORDS}
        anchors[token.text] = anchors.get(token.text, frozenset()) | near
    return anchors


class Passage:
    """A segment's text with its words and numbers; cut into units (sentences, or rows of a table), each with
    its words, numbers and negation, only when asked (a segment that shares nothing with a claim never is)."""

    def __init__(self, text: str, table: bool):
        self.text = text
        self.table = table
        self.words = content_words(text)
        self.numbers = number_keys(text)

    @functools.cached_property
    def units(self) -> tuple[tuple[int, int], ...]:
        return tuple(text_units(self.text, self.table))

    @functools.cached_property
    def _pieces(self) -> list[tuple[str, list[str]]]:
        return [(piece, words(piece)) for piece in (self.text[s:e] for s, e in self.units)]

    @functools.cached_property
    def unit_words(self) -> tuple[frozenset[str], ...]:
        return tuple(_content(piece_words) for _, piece_words in self._pieces)

    @functools.cached_property
    def unit_numbers(self) -> tuple[frozenset[str], ...]:
        return tuple(_number_keys(piece) for piece, _ in self._pieces)

    @functools.cached_property
    def number_units(self) -> dict[str, list[int]]:
        """For each reading of a number of the units, the units holding it (in order)."""
        units: dict[str, list[int]] = {}
        for i, keys in enumerate(self.unit_numbers):
            for key in keys:
                units.setdefault(key, []).append(i)
        return units

    @functools.cached_property
    def unit_negations(self) -> tuple[str | None, ...]:
        return tuple(_negation(piece, piece_words) for piece, piece_words in self._pieces)


@functools.lru_cache(maxsize=4096)
def passage(text: str, table: bool = False) -> Passage:
    return Passage(text, table)


@dataclass(frozen=True)
class Claim:
    """What a sentence of an answer says, as far as words go."""

    words: frozenset[str]  # content words, numbers included
    plain: frozenset[str]  # content words that are not numbers
    numbers: tuple[tuple[str, frozenset[str]], ...]  # each number as written, with its readings
    negation: str | None
    # Each number's readings with the part it is as `#value` (see `held`), and what the claim weighs there (its
    # content words, its numbers counting double): made once, a claim is held against every unit of every
    # segment it is compared with.
    parts: tuple[tuple[frozenset[str], str], ...]
    weight: int


def held(said: Claim, text: Passage) -> tuple[frozenset[str], float]:
    """The parts of a claim a passage holds (its content words, and its numbers as `#value`), and their share of
    the claim with numbers counting double: the lexical measure of support."""
    found = said.plain & text.words
    if not said.parts:
        return found, _share(len(found), said.weight)
    numbers_held: set[str] = set()  # as `#value` parts: never a word
    for readings, part in said.parts:  # (a loop: claims hold a number or two, and this runs per segment)
        if not readings.isdisjoint(text.numbers):
            numbers_held.add(part)
    found = found | numbers_held
    return found, _share(len(found) + len(numbers_held), said.weight)


def share(said: Claim, text: Passage) -> float:
    """`held(said, text)[1]` without making the parts held: for comparisons of one segment's sentences."""
    weight = len(said.plain & text.words)
    if said.parts:
        numbers_held: set[str] = set()
        for readings, part in said.parts:  # (a loop, as in `held`: a comprehension costs a call)
            if not readings.isdisjoint(text.numbers):
                numbers_held.add(part)
        weight += 2 * len(numbers_held)
    return _share(weight, said.weight)


@functools.lru_cache(maxsize=4096)
def _share(held_weight: int, weight: int) -> float:
    """`held_weight / weight` to 3 places (0 for a claim of no weight). Cached: `round` to places is slow, and
    claims are short, so few pairs come up."""
    return round(held_weight / weight, 3) if weight else 0.0


@functools.lru_cache(maxsize=8192)
def claim(text: str) -> Claim:
    text_words = words(text)
    said = _content(text_words)
    plain = frozenset(w for w in said if not w.isdigit())
    numbers = number_mentions(text)
    # (a number with no reading, such as `1.2.3`, is never held: it has no part, but weighs as the others do)
    parts = tuple((readings, f"#{min(readings)}") for _, readings in numbers if readings)
    return Claim(said, plain, numbers, _negation(text, text_words), parts, len(plain) + 2 * len(numbers))


def text_units(text: str, table: bool = False) -> list[tuple[int, int]]:
    """Sentences, or rows of a table. A line break before a line that does not continue a sentence (a form's
    `Total: 62,86 €` under `Date: 01/12/2022`) also ends a unit, so a field is a unit of its own."""
    if table:
        return [_trim(text, s, e) for s, e in _lines(text, 0, len(text)) if text[s:e].strip()]
    units: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        units.extend(_trim(text, s, e) for s, e in _lines(text, start, end, keep_continuations=True))
    return [(s, e) for s, e in units if e > s]


def _lines(text: str, start: int, end: int, *, keep_continuations: bool = False) -> list[tuple[int, int]]:
    """`text[start:end]` cut at line breaks (with `keep_continuations`, not before a lower-case line)."""
    spans: list[tuple[int, int]] = []
    position = start
    newline = text.find("\n", start, end)
    while newline != -1:
        if not (keep_continuations and _LOWER_START.match(text, newline)):
            spans.append((position, newline))
            position = newline + 1
        newline = text.find("\n", newline + 1, end)
    spans.append((position, end))
    return spans


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
