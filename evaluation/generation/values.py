"""What a generated question asks for: a candidate (a question, its subject, its value, where it is), and how a
value is read off the words that follow a statement (`is 0.5bp`, `defaults to "MIXED"`, `for five (5) years`).
Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evaluation.generation.text import STOPWORDS


@dataclass(frozen=True)
class Candidate:
    """A question found in a document, before it is chosen and named (evaluation.generation.pick)."""

    kind: str  # sentence, label, definition, table
    document: str
    page_idx: int
    segment_id: str
    text: str  # the question, without the document's name
    subject: str  # the page's words the question names its subject with
    answers: tuple[str, ...]  # accepted answers; the first is the value as the page prints it
    origin: dict[str, Any] = field(default_factory=dict)  # what it was made from (statement, label, row, column)


NUMBER = r"[-+−]?(?:\d+(?:[,.]\d+)*|\.\d+)"
_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty ninety "
    "hundred thousand"
).split()
UNITS = (
    "bp pt pts px mm cm in inch inches em ex % percent kb mb gb tb kib mib gib bytes byte bits bit ms us ns s sec "
    "secs second seconds minute minutes min hour hours hr day days week weeks month months year years degree "
    "degrees deg characters chars lines line pixels points columns rows times entries threads processes "
    "iterations steps items pages dpi hz khz mhz ghz kg g lb lbs km m miles"
).split()
_UNIT = r"(?:\s?(?:" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True)) + r")(?![\w]))"
_QUOTED = re.compile(r"""^(?P<q>["“'‘’`])(?P<v>[^"“”'‘’`]{1,40})(?:["”'’`])""")
_AMOUNT = re.compile(rf"^(?P<v>[$€£¥]\s?{NUMBER}|{NUMBER}\s?(?:[$€£¥]|USD|EUR|GBP)?{_UNIT}?)(?![\w.]\w)", re.IGNORECASE)
_COUNTED = re.compile(
    rf"^(?P<word>{'|'.join(_NUMBER_WORDS)})(?:[ -]\w+)? \((?P<n>\d+)\)(?P<unit>{_UNIT})?", re.IGNORECASE
)
# Words that follow `is` without being a value of anything (`the default behaviour is unchanged`).
NOT_VALUES = frozenset(
    "unchanged used given specified needed required possible available important different fine ok good better best "
    "recommended sufficient appropriate similar correct wrong set applied ignored supported shown active".split()
)
# Words that are the value of a setting (`verbose is off by default`).
SETTING_WORDS = frozenset("on off yes no none enabled disabled auto automatic true false".split())
_DIMENSIONS = re.compile(rf"^{NUMBER}{_UNIT}? ?(?:by|x|×) ?{NUMBER}{_UNIT}?", re.IGNORECASE)
_CAPITALISED = re.compile(r"^[A-Z][\w\-.]*(?: [A-Z0-9][\w\-]*){1,3}")
_INTERVAL = re.compile(r"^\[[^\]\s]{1,24}\]")  # `[-5:5]`, `[0:2*pi]`
_TOKEN = re.compile(r"^(?P<v>(?:[^\s,;()\[\]]|,(?=[^\s,]))+)")  # (`definite,possible`: one value)
_CODE = re.compile(r"[\d_./:#=<>\\-]|[a-z][A-Z]|^[A-Z]{2,}$")
_CLAUSE_END = re.compile(r"^(?:[.,;:!?)]|\s*$|\s+(?:\(|in |on |for |when |if |and |or |but |unless |which ))")


def value_after(rest: str, *, plain_word: bool) -> tuple[str, ...] | None:
    """The value the words `rest` start with, as accepted answers (the printed form first): a quoted string, an
    amount or number with its unit, a counted duration (`five (5) years`), or one code-like token (`0xFF`,
    `MIXED`, `memcheck.so`); a single plain word only when `plain_word` and the clause ends after it."""
    rest = rest.lstrip()
    if quoted := _QUOTED.match(rest):
        return (quoted["v"].strip(),) if quoted["v"].strip() else None
    if counted := _COUNTED.match(rest):
        unit = (counted["unit"] or "").strip()
        printed = counted.group().strip()
        return tuple(dict.fromkeys([printed, f"{counted['n']} {unit}".strip(), f"{counted['word']} {unit}".strip()]))
    if size := _DIMENSIONS.match(rest):  # `5 inches by 3 inches`, `640x480`
        return (size.group().strip(),) if _CLAUSE_END.match(rest[size.end() :]) else None
    if amount := _AMOUNT.match(rest):
        value = amount["v"].strip()
        after = rest[amount.end() :]
        if not _CLAUSE_END.match(after) or after.startswith(")"):
            return None  # `3 times faster`, `1) The directory ...`: the number is not the value
        number = re.match(rf"[$€£¥]?\s?({NUMBER})", value)
        return tuple(dict.fromkeys([value, number.group(1)])) if number else (value,)
    if interval := _INTERVAL.match(rest):
        return (interval.group(),) if _CLAUSE_END.match(rest[interval.end() :]) else None
    if (name := _CAPITALISED.match(rest)) and _CLAUSE_END.match(rest[name.end() :]):
        return (name.group(),)  # `HP Roman-8`, `Times Roman`
    token = _TOKEN.match(rest)
    if token is None:
        return None
    value = token["v"].rstrip(".:!?")
    after = rest[len(value) :]
    if not value or not _CLAUSE_END.match(after):
        return None
    if _CODE.search(value) or (value[:1].isupper() and value.casefold() not in STOPWORDS):
        return (value,)
    if value.casefold() in SETTING_WORDS:
        return (value,)
    if plain_word and value.isalpha() and value.casefold() not in STOPWORDS | NOT_VALUES and len(value) > 2:
        if not re.match(r"^(?:[.,;!?]|\s*$)", after) or value.casefold().endswith(("ed", "wn")):
            return None  # `shown in file ...`, `are requested`: no value of a setting
        return (value,)
    return None


_NAME_WORD = r"(?:[A-Z][\w'’\-]+|[A-Z]\.)"
_PARTICLE = r"(?:van|von|de|da|der|del|la|le|du|di|dos|ten|ter)"
NAME = rf"{_NAME_WORD}(?:\s(?:{_PARTICLE}\s)?{_NAME_WORD}){{1,4}}"
