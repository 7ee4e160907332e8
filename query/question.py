"""What a question asks, as the offline answerer reads it: the kind of value wanted, the thing asked about, and
whether it asks for several things.

"How much tax was added on the Company ABC invoice?" wants an amount; its focus is "tax" (the first run of
words that are not question or function words), and its other words ("added", "company", "abc", "invoice")
say where to look. "What are the subtotal and the tax …?" asks for two things, one part each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from query.terms import QUESTION_WORDS, STOPWORDS, content_tokens


class Kind(Enum):
    AMOUNT = "amount"  # money, a percentage, a quantity with decimals
    NUMBER = "number"  # any digits: counts, account or form numbers
    DATE = "date"
    DURATION = "duration"  # "ten (10) years"
    NAME = "name"  # who: a capitalized name
    ANY = "any"


@dataclass(frozen=True)
class Part:
    """One thing a question asks for."""

    kind: Kind
    focus: frozenset[str]  # stems of the thing asked about; an answer holds at least one
    head: frozenset[str] = frozenset()  # the first run of informative words: an answer holding it is better


@dataclass(frozen=True)
class Question:
    text: str
    stems: dict[str, float]  # every informative stem of the question -> its weight as a clue
    parts: list[Part]


_WORD = re.compile(r"\w+")
# "and" starts a second part only before a question word or a determiner: "the subtotal and the tax",
# "how much is due and when is it due", never "license and distribution agreement".
_SECOND_PART = re.compile(r",?\s+and\s+(?=(?:the|its|their|his|her|what|when|who|where|which|how)\b)", re.IGNORECASE)
_AMOUNT_WORDS = frozenset(
    "amount total balance price cost costs tax taxes fee fees charge charges paid pay payment subtotal due "
    "sum spent owed".split()
)
# A form's abbreviation of a word a question uses: the stem of the question word -> stems to look for too.
ALIASES = {
    "expir": ("exp",),
    "birth": ("dob", "naiss", "nacim"),
    "issue": ("iss",),
    "numbe": ("no",),
    "weigh": ("wgt",),
    "heigh": ("hgt",),
    "invoi": ("factu",),
    "licen": ("lic",),
    "date": ("fecha", "dob"),
}


def stem(word: str) -> str:
    """A crude stem: plural `s` off, then the first 5 letters ("invoiced" and "invoice" meet, "laws" and "law",
    "expire" and "expiration")."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:5]


def read_question(text: str) -> Question:
    stems = dict.fromkeys(map(stem, content_tokens(text)), 1.0)
    pieces = [p for p in _SECOND_PART.split(text) if content_tokens(p) or _kind_of(p) is not Kind.ANY]
    parts = [_read_part(piece) for piece in pieces or [text]]
    return Question(text, stems, parts)


def _read_part(text: str) -> Part:
    focus = _focus(text)
    kind = _kind_of(text, focus)
    last = [stem(w) for w in content_tokens(text)][-1:]
    # "When was the paper communicated?", "Who won the cup?": the closing verb names what is asked.
    return Part(kind, frozenset(focus + last if kind in (Kind.DATE, Kind.NAME) else focus), frozenset(focus))


def _focus(text: str) -> list[str]:
    """Stems of the first run of informative words: "payment terms" of "What are the payment terms of …"."""
    run: list[str] = []
    for word in _WORD.findall(text.casefold().replace("'s ", " ").replace("’s ", " ")):
        if word in STOPWORDS or word in QUESTION_WORDS:
            if run:
                break
            continue
        if len(word) > 1 or word.isdigit():
            run.append(stem(word))
    return run


def _kind_of(text: str, focus: list[str] | None = None) -> Kind:
    asked = text.casefold()
    focus = _focus(text) if focus is None else focus
    head = focus[-1] if focus else ""  # "late payment charge": a charge, not a payment
    for pattern, kind in _ASKS:
        if pattern.search(asked):
            return kind
    if head in _AMOUNT_STEMS:
        return Kind.AMOUNT
    if "date" in focus:
        return Kind.DATE
    if "numbe" in focus:
        return Kind.NUMBER
    return Kind.ANY


_ASKS = [
    (re.compile(r"\bhow much\b"), Kind.AMOUNT),
    (re.compile(r"\bhow many\b"), Kind.NUMBER),
    (re.compile(r"\bhow long\b"), Kind.DURATION),
    (re.compile(r"\bwhen\b|\bwhat (?:date|year|day)\b|\buntil\b"), Kind.DATE),
    (re.compile(r"\bwho(?:m|se)?\b"), Kind.NAME),
]
_AMOUNT_STEMS = frozenset(stem(w) for w in _AMOUNT_WORDS)


def matches(clue: str, stems: frozenset[str] | set[str]) -> bool:
    """The clue, or a form's abbreviation of it, is among the stems."""
    return clue in stems or any(alias in stems for alias in ALIASES.get(clue, ()))
