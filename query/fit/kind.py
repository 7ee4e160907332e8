"""The kind check: the claim holds a value of the kind asked: a date for "when", money or a quantity for "how much" (a
rate is no amount unless a rate is asked), a number for "how many", a name for "who", a phone number, an e-mail
address; and not a value that only looks like one (a form's box number, a street number, a tariff's tier, the
digits of a date, a fax number for a phone number)."""

from __future__ import annotations

import re

from query.fit.asked import Asked
from query.fit.verdict import KIND_FIT, RATE_FIT, Fit
from query.fit.words import ATTRIBUTES, IDENTIFIER_WORDS
from query.language.question import Kind, Part, asks_rate, stem
from query.language.terms import fold
from query.language.values import Span, is_money, value_spans

_TIME = re.compile(r"\b\d{1,2}[:h]\d{2}\b")
# An amount after a run of words on its line: "Total Electric Charges $148.89" labels the amount.
_MONEY_NEXT = re.compile(r"[A-Za-z &'.\-]*?[ \t:|]*(?:[$€£¥]\s?\d|\d[\d,.]*\s?(?:€|eur\b|usd\b))", re.IGNORECASE)
_DAY_AND_YEAR = re.compile(r"(?<![\d.,])\d{1,2},\s*(?:1[89]|20)\d\d\b")
# A height is asked, in the languages the answerer reads; a text that says "height" or "HGT" labels its number.
_HEIGHT_SAID = re.compile(r"\bheight\b|\bhgt\b|\bht\b|\btaille\b|\baltura\b|\bestatura\b|\bgrosse\b|身長")
_LENGTH_UNIT = re.compile(
    r"\s?(?:['’′\"”]|-\d|ft\b|feet\b|foot\b|in\b|inch|cm\b|m\b|meters?\b|metres?\b)", re.IGNORECASE
)
_DIGIT = re.compile(r"\d")
# A unit a number may count, right after it: "24 HOURS", "32 days", "909 kWh".
_UNIT = re.compile(
    r"\s?(hours?|hrs?|days?|weeks?|months?|years?|minutes?|mins?|seconds?|kwh|kw|kg|km|miles?|lbs?|pages?|items?)\b",
    re.IGNORECASE,
)
_PART_OR_CAPITAL = re.compile(
    r"\bcapital(?: social)?(?: de| of)?\s*$|\((?:dont|of which|davon|de los cuales|incl(?:uding|\.)?)\b[^)]*$",
    re.IGNORECASE,
)
_FAX_BEFORE = re.compile(r"\b(?:fax|telefax|télécopie)\b\W*$", re.IGNORECASE)
IDENTIFIER_DIGITS = 3  # an identifier's digits at the least ("3" is a box, "906" an area code)
_WORD_AFTER = re.compile(r"[ \t.]+(\w+)")  # the word after a number
_BOX = re.compile(r"\d{1,2}")  # a form's box number
_BOX_LINE = re.compile(r"\s*\d{1,2}[a-z]?\s+[A-Z][a-z]")
_CAPTION_NEXT = re.compile(r"\s+[A-Z][a-z]")  # "8 Tax-exempt"
_STREET_NEXT = re.compile(
    r"(?:\s+[A-Za-z][\w.'-]*){1,3}\s+(?:blvd|st|ave|rd|ln|dr|cir|ct|hwy|pkwy|street|avenue|road|lane|drive|boulevard"
    r"|court|place|way|rue|strasse|straße|calle)\b\.?",
    re.IGNORECASE,
)
_TIMES = re.compile(r"\bx\s?[$€£]?\s?$|\bx\s?[$€£]", re.IGNORECASE)  # "X $ 0.136440": a quantity times its price
_TIER = re.compile(r"\b(?:first|next|over|above|up to|excess of|in excess of|beyond|additional)\s*$", re.IGNORECASE)
_UNIT_STEMS = {"hr": "hour", "hrs": "hour", "min": "minute", "mins": "minute", "lb": "lbs"}
# A rate said in words: "Rate", "per hour", "/hr", "taux", "Steuersatz".
# A price per unit: "X $ 0.136440" (a quantity times its price), "0,0974 €/kWh", "per hour", or four decimals.
_UNIT_PRICE = re.compile(r"\bx\s?[$€£]|/\s?(?:kwh|hr|hour|h|unit|day|month)\b|\bper\b|\d[.,]\d{4,}(?!\d)")
_RATE = re.compile(r"rate|\bper\b|\d\s?/\s?(?:hr|hour|h|day|month|year)\b|taux|tasa|satz|aliquota|taxa|percent")
_KIND_NOUNS = {
    Kind.AMOUNT: "an amount",
    Kind.NUMBER: "a number",
    Kind.DATE: "a date",
    Kind.DURATION: "a duration",
    Kind.NAME: "a name",
    Kind.PHONE: "a phone number",
    Kind.EMAIL: "an e-mail address",
}
_WORDS = re.compile(r"\w+")


class KindCheck:
    """Values of the kind each part asks for, found in claims."""

    def __init__(self, asked: Asked):
        self.asked = asked

    def __call__(self, part: Part, text: str) -> Fit | None:
        if self.asked.per_unit and not asks_rate(part) and not _UNIT_PRICE.search(fold(text)):
            return Fit(RATE_FIT, "asks for a price per unit; the answer gives none")  # (a percentage is none)
        if part.kind is Kind.ANY:
            return None
        spans = self.spans(part, text)
        if not spans:
            return Fit(KIND_FIT, f"asks for {_KIND_NOUNS[part.kind]}; the answer has none")
        if (
            asks_rate(part)
            and not any(text[a:b].rstrip().endswith("%") for a, b in spans)
            and not _RATE.search(fold(text))
        ):
            return Fit(RATE_FIT, "asks for a rate; the answer gives none")  # "HOUR/UNIT: 40.00" for the hourly rate
        rates = all(text[a:b].rstrip().endswith("%") for a, b in spans)
        if part.kind is Kind.AMOUNT and rates and not asks_rate(part) and self.asked.asks_amount(part):
            return Fit(RATE_FIT, "asks for an amount; the answer gives only a rate")
        return None

    def spans(self, part: Part, text: str) -> list[Span]:
        """Where the claim holds a value of the kind the part asks for, and not one that only looks like it."""
        separators = {c.word for c in part.focus}
        spans = value_spans(part.kind, text, self.asked.known, separators)
        if part.kind is Kind.NAME and ":" in text:  # "NET PAY: 1,479 93": a label is no name
            spans = [(a, b) for a, b in spans if a > text.index(":")]
        if part.kind is Kind.NAME:  # "RECIPIENT'S TIN": the label of an identifier is no name either
            spans = [(a, b) for a, b in spans if not _names_identifier(text[a:b])]
            # nor is the label of an amount ("Total Electric Charges $148.89")
            spans = [(a, b) for a, b in spans if not _MONEY_NEXT.match(text, b)]
            if _BOX_LINE.match(text):  # "3 Interest on U.S. Savings Bonds …": a form's box caption names no one
                spans = []
        if part.kind in (Kind.AMOUNT, Kind.NUMBER) and spans:  # the digits of a date or a time are no amount
            dates = [(x, y) for x, y in value_spans(Kind.DATE, text, ()) if not text[x:y].isdigit()]  # (not 2000)
            dates += [m.span() for m in _TIME.finditer(text)]
            dates += [m.span() for m in _DAY_AND_YEAR.finditer(text)]  # "17, 1929" of a date cut after its month
            spans = [(a, b) for a, b in spans if not any(a < y and x < b for x, y in dates)]
        if part.kind is Kind.AMOUNT and spans and not self.asked.per_unit and not asks_rate(part):
            # "First 800 kWh X $ 0.136440": a price per unit, not what the 800 kWh cost
            spans = [(a, b) for a, b in spans if not _TIMES.search(text, max(0, a - 4), a + 1)]
        if part.kind is Kind.AMOUNT and spans and not self.asked.asks_count:
            # "1 Interest income", "8 Tax-exempt interest": a form's box number, before its caption, is no amount;
            # "3800 PROGRESS BLVD" is a street number
            focus = frozenset(c.word for c in part.focus if c.word not in part.generic)
            spans = [(a, b) for a, b in spans if not (focus and _named_after(text, b, focus))]
            spans = [
                (a, b) for a, b in spans if not (_BOX.fullmatch(text[a:b].strip()) and _CAPTION_NEXT.match(text, b))
            ]
            spans = [(a, b) for a, b in spans if not _STREET_NEXT.match(text, b)]
        if spans and self.asked.asks_height and not _HEIGHT_SAID.search(fold(text)):
            # "how tall": a length ("5'-06\"", "170 cm"), not any number near the person's name
            spans = [(a, b) for a, b in spans if _LENGTH_UNIT.match(text, b)]
        if spans and self.asked.counts(part):  # a count or a quantity is no phone number, nor a count of another unit
            phones = value_spans(Kind.PHONE, text, ())
            units = {c.word for c in part.focus} | {f for c in part.focus for f in c.forms}
            # (money is no phone number: "1 234 567,00 €")
            spans = [(a, b) for a, b in spans if is_money(text[a:b]) or not any(a < y and x < b for x, y in phones)]
            spans = [(a, b) for a, b in spans if not _other_unit(text, b, units)]
            # "First 800 kWh", "Next 200 kWh": a tariff's tier, not what was used
            spans = [(a, b) for a, b in spans if not _TIER.search(text, max(0, a - 16), a)]
            if self.asked.asks_count and any(_UNIT.fullmatch(w) for w in units):
                spans = [(a, b) for a, b in spans if not is_money(text[a:b])]  # (how many kWh: not its price)
        if part.kind is Kind.NUMBER and spans and self.asked.asks_identifier:
            # a TIN, a postal code, an account number: not the "3" of a form's box
            spans = [(a, b) for a, b in spans if len(_DIGIT.findall(text[a:b])) >= IDENTIFIER_DIGITS]
        if part.kind in (Kind.PHONE, Kind.AMOUNT, Kind.NUMBER) and spans:
            # "au capital de 1 549 961 789" is no phone number; "(dont acheminement 13,28 €)" is a part of the total
            spans = [(a, b) for a, b in spans if not _PART_OR_CAPITAL.search(text, max(0, a - 40), a)]
        if part.kind is Kind.PHONE and spans:  # a fax number is labelled "Fax:", and a phone number is not
            fax = "fax" in self.asked.known
            spans = [(a, b) for a, b in spans if (_FAX_BEFORE.search(text, max(0, a - 12), a) is not None) == fax]
        return spans


def _named_after(text: str, end: int, focus: frozenset[str]) -> bool:
    """The words right after the number ending at `end` are the thing asked about: "1 Interest income"."""
    after = _WORD_AFTER.match(text, end)
    return after is not None and stem(after.group(1).casefold()) in {stem(w) for w in focus}


def _other_unit(text: str, end: int, asked: frozenset[str] | set[str]) -> bool:
    """The number ending at `end` counts a unit the question does not ask about: "24 HOURS" for "how many days"."""
    unit = _UNIT.match(text, end)
    if unit is None or not any(_UNIT.fullmatch(word) for word in asked):
        return False  # (a question naming no unit, "how much energy", takes "909 kWh")
    word = unit.group(1).casefold()
    return word not in asked and stem(word) not in asked and _UNIT_STEMS.get(stem(word), word) not in asked


def _names_identifier(name: str) -> bool:
    """A "name" ending in a word for an identifier or another field ("PAYER'S TIN", "Employee ID", "Account
    Number", "Mother's First Name", "Business Address") labels one."""
    words = _WORDS.findall(name.casefold())
    return bool(words) and (stem(words[-1]) in IDENTIFIER_WORDS or stem(words[-1]) in ATTRIBUTES)
