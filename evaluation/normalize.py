"""Whether a text holds an expected answer, compared as a reader would: after normalising case, spacing, numbers
(`1,767.97` = `1767.97`, `62,86` = `62.86`, `100.00` = `100`), dates (`2020/10/01` = `October 1, 2020` =
`01.10.2020`) and currency (`$1,767.97` = `1767.97 USD`).

Both sides become token runs (words, numbers, dates, `%`); a value is held when its run occurs in the text's run
whole (`tea` is not in `instead`). Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from datetime import date

# A date token is the set of days it may mean (`01/02/2020` is 1 February or 2 January): two dates are equal when
# they may mean the same day.
Token = str | frozenset[str]
Expected = tuple[tuple[str, ...], ...]  # every item must be there; an item is held by any of its alternatives

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            "january jan janvier janv",
            "february feb fevrier février fevr févr",
            "march mar mars",
            "april apr avril avr",
            "may mai",
            "june jun juin",
            "july jul juillet juil",
            "august aug aout août",
            "september sep sept septembre",
            "october oct octobre",
            "november nov novembre",
            "december dec decembre décembre déc",
        ],
        start=1,
    )
    for name in names.split()
}
_MONTH = "(?P<{}>" + "|".join(sorted(map(re.escape, _MONTHS), key=len, reverse=True)) + r")\.?"
_CURRENCY_CODES = frozenset({"usd", "eur", "gbp", "chf", "jpy", "cad", "aud", "inr", "cny", "sek", "nok", "dkk"})
_TOKEN = re.compile(
    "|".join(
        [
            r"(?P<iso>(?<!\d)(?P<iy>\d{4})[-/.](?P<im>\d{1,2})[-/.](?P<id>\d{1,2})(?!\d))",
            r"(?P<num_date>(?<!\d)(?P<na>\d{1,2})[-/.](?P<nb>\d{1,2})[-/.](?P<ny>\d{4}|\d{2})(?![\d.,]\d))",
            r"(?P<dmy>(?<!\d)(?P<dd>\d{1,2})(?:st|nd|rd|th|er)?[ -]?" + _MONTH.format("dm") + r",?[ -]?(?P<dy>\d{4}))",
            r"(?P<mdy>\b" + _MONTH.format("mm") + r"[ -]?(?P<md>\d{1,2})(?:st|nd|rd|th)?,?[ -]?(?P<my>\d{4}))",
            r"(?P<number>\d+(?:[.,]\d+)*)",
            r"(?P<word>[^\W\d_]+)",
            r"(?P<percent>%)",
        ]
    ),
    re.IGNORECASE,
)
# Digits grouped by spaces (`1 767,97`, with a no-break or thin space too) are one number.
_SPACED_THOUSANDS = re.compile(r"(?<=\d)[ \u00a0\u202f](?=\d{3}(?!\d))")


def _day(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < 70 else 1900
    return year


def _days(*candidates: tuple[int, int, int]) -> frozenset[str] | None:
    days = frozenset(d for d in (_day(*c) for c in candidates) if d)
    return days or None


def _number(text: str) -> str:
    """`1,767.97`, `1.767,97`, `1767.970` -> `1767.97`; a single comma before one or two digits is a decimal comma,
    before three a thousands separator; an identifier with leading zeros (`00123`) stays as written."""
    commas, dots = text.count(","), text.count(".")
    if commas and dots:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
    elif commas == 1 and len(text) - text.rfind(",") - 1 != 3:
        decimal = ","
    elif dots == 1:
        decimal = "."
    else:
        decimal = None  # only thousands separators (several of one kind, or one comma before three digits)
    whole, _, fraction = text.rpartition(decimal) if decimal else (text, "", "")
    whole = re.sub(r"[.,]", "", whole)
    fraction = fraction.rstrip("0")
    if len(whole) > 1 and whole.startswith("0") and not fraction:
        return whole  # an identifier, not an amount
    whole = whole.lstrip("0") or "0"
    return f"{whole}.{fraction}" if fraction else whole


def _token(match: re.Match[str]) -> Token | None:
    kind = match.lastgroup
    if kind == "word":  # most tokens: read without building the match's dict of groups
        return match.group().casefold()
    if kind == "number":
        return _number(match.group())
    groups = match.groupdict()
    if groups["iso"]:
        return _days((int(groups["iy"]), int(groups["im"]), int(groups["id"]))) or _number(groups["iy"])
    if groups["num_date"]:
        a, b, year = int(groups["na"]), int(groups["nb"]), _year(groups["ny"])
        days = _days((year, b, a), (year, a, b))
        if days:
            return days
        return None
    if groups["dmy"]:
        return _days((int(groups["dy"]), _MONTHS[groups["dm"].casefold()], int(groups["dd"])))
    if groups["mdy"]:
        return _days((int(groups["my"]), _MONTHS[groups["mm"].casefold()], int(groups["md"])))
    if kind == "number":
        return _number(match.group())
    if kind == "word":
        return match.group().casefold()
    return "%"


@functools.lru_cache(maxsize=4096)  # an expected value is compared with many answers
def tokens(text: str) -> tuple[Token, ...]:
    """The text as comparable tokens: case folded, numbers and dates in one form, currency left out."""
    text = _SPACED_THOUSANDS.sub("", unicodedata.normalize("NFKC", text))
    found = [t for t in map(_token, _TOKEN.finditer(text)) if t is not None]
    # A currency code next to an amount is a currency sign (`1767.97 USD` = `$1,767.97`); alone it is a word.
    return tuple(
        t
        for n, t in enumerate(found)
        if not (t in _CURRENCY_CODES and any(_is_number(found[m]) for m in (n - 1, n + 1) if 0 <= m < len(found)))
    )


def _is_number(token: Token) -> bool:
    return isinstance(token, str) and token[:1].isdigit()


def _same(a: Token, b: Token) -> bool:
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return bool(a & b)
    return a == b


def plain(text: str) -> str:
    """Case folded, spacing collapsed: the comparison of last resort, for a value without any token (`—`)."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@functools.lru_cache(maxsize=1024)  # a page's text is searched for many values
def _starts(text: str) -> dict[str, list[int]]:
    """Where each word or number token of the text is (a date token, a set of days, is found by a scan)."""
    found: dict[str, list[int]] = {}
    for position, token in enumerate(tokens(text)):
        if isinstance(token, str):
            found.setdefault(token, []).append(position)
    return found


def holds(text: str, value: str) -> bool:
    """The value occurs in the text as a whole token run, normalised (see the module's docstring)."""
    wanted = tokens(value)
    if not wanted:
        return bool(plain(value)) and plain(value) in plain(text)
    have = tokens(text)
    width = len(wanted)
    if isinstance(wanted[0], str):  # where the first word is, from an index of the text
        starts: Iterable[int] = _starts(text).get(wanted[0], ())
    else:
        starts = range(len(have) - width + 1)
    return any(
        start + width <= len(have) and all(_same(have[start + k], wanted[k]) for k in range(width)) for start in starts
    )


def holds_all(text: str, expected: Expected) -> bool:
    """Every item of `expected` (a tuple of alternatives) has an alternative in the text."""
    return all(any(holds(text, alternative) for alternative in item) for item in expected)
