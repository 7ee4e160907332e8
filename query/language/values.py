"""Values of the kinds a question asks for, found in a text: amounts and numbers, dates, durations, names, phone
numbers and e-mail addresses. `value_spans` returns where the values are that the question does not already state
(asked about "patent US 10,142,938", the number 10,142,938 is no answer)."""

from __future__ import annotations

import re
from collections.abc import Collection

from query.language.question import Kind
from query.language.terms import MONTH as _MONTH
from query.language.terms import STOPWORDS

_DATE = re.compile(
    r"\b(?:\d{4}|\d{1,2})[/.-]\d{1,2}[/.-]\d{2,4}\b"  # 09/04/1986, 2020/10/01, 28/12/2022 (not 190-21-1685)
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"  # January 17, 1929; May 17 2018; Mar. 9, 2017
    rf"|\b\d{{1,2}}\s+{_MONTH}\s+\d{{2,4}}\b"  # 14 OCT 2030
    rf"|\b{_MONTH}\s+(?:\d{{4}}|\d{{1,2}}\b)"  # October 2019, Apr 17
    r"|(?<!\d)\d{2,4}年\d{1,2}月(?:\d{1,2}日)?"  # 2024年3月1日
    r"|\b(?:19|20)\d{2}\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[$€£¥]?\s?[-+]?\d+(?:[.,/-]\d+|\s\d{3}\b)*(?:\s?[%€$])?")
# A currency sign before or after the digits (1,000円, 62,86 €, ₹500), a code after them, a rate, or two decimals.
_MONEY = re.compile(
    r"[$€£¥₩₹]\s?\d|\d\s?(?:[€$£¥₩₹%円元원]|(?:eur|usd|gbp|chf|jpy|cny|krw|inr|mxn|cad|aud)\b)|\d[.,]\d{2}\b",
    re.IGNORECASE,
)
_DURATION = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty)\b\W{0,3}(?:\(\d+\)\s*)?"
    r"(?:years?|months?|weeks?|days?|hours?)\b",
    re.IGNORECASE,
)
_PHONE = re.compile(
    r"(?<![\w/.,-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\d{1,4}[\s.-])(?:\d{2,4}[\s.-]){1,3}\d{2,4}\b"
)
# A sentence's end inside a run of capitalized words: not an initial's full stop ("P. O.", "N. G. C.").
_SENTENCE_END = re.compile(r"(?<=\w\w)[.!?]\s+")
_INSTRUCTIONS = frozenset("please enter see sign print complete attach retain check fill mail return".split())
_ABBREVIATIONS = frozenset("Mr Mrs Ms Dr St Jr Sr Prof Inc Co Corp Ltd Bros No Mt Ft".split())
# (a lone field label too: "City", "Name", "Signature")
_FURNITURE = frozenset(
    "form page line box schedule section part total item table figure note copy city state country name date address "
    "signature title apartment street".split()
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NAME = re.compile(r"(?<![\w'’])[A-ZÀ-Ý][\w'’.&-]*(?:\s+(?:(?:de|la|le|du|van|von|der|di|da)\s+)*[A-ZÀ-Ý][\w'’.&-]*)*")
_WORD = re.compile(r"\w+")

Span = tuple[int, int]


def value_spans(kind: Kind, text: str, known: Collection[str], separators: Collection[str] = ()) -> list[Span]:
    """Spans of the values of `kind` in `text` holding a word or number not among `known` (the question's
    case-folded words). A name runs until one of `separators` (the words asked about: "Eva Walker" of
    "Emergency Contact: Eva Walker Emergency Contact Phone")."""
    if kind is Kind.NAME:
        spans = [span for m in _NAME.finditer(text) for span in _split_name(text, m.start(), m.end(), separators)]
        spans = [span for s in spans for span in _sentences(text, s)]
        spans = [_without_label(text, span) for span in spans if _may_name(text[span[0] : span[1]])]
    elif kind is Kind.ANY:
        spans = [m.span() for m in _WORD.finditer(text) if m.group().casefold() not in STOPWORDS]
    else:
        pattern = {
            Kind.AMOUNT: _NUMBER,
            Kind.NUMBER: _NUMBER,
            Kind.DATE: _DATE,
            Kind.DURATION: _DURATION,
            Kind.PHONE: _PHONE,
            Kind.EMAIL: _EMAIL,
        }[kind]
        spans = [m.span() for m in pattern.finditer(text)]
        if kind is Kind.PHONE:
            spans = [(s, e) for s, e in spans if sum(c.isdigit() for c in text[s:e]) >= 7]
    # a name right before a colon is a label ("Emergency Contact Phone:"), not a value
    return [(s, e) for s, e in spans if _new(text[s:e], known) and text[e : e + 1] != ":"]


def is_money(text: str) -> bool:
    """ "$140.00", "62,86 €", "1.5%": an amount of money or a rate, not a bare count."""
    return _MONEY.search(text) is not None


def _split_name(text: str, start: int, end: int, separators: Collection[str]) -> list[Span]:
    spans: list[Span] = []
    run_start = None
    run_end = start
    for word in _WORD.finditer(text, start, end):
        if word.group().casefold() in separators:
            if run_start is not None:
                spans.append((run_start, run_end))
            run_start = None
        else:
            run_start = word.start() if run_start is None else run_start
            run_end = word.end()
    if run_start is not None:
        spans.append((run_start, run_end))
    return spans


def _sentences(text: str, span: Span) -> list[Span]:
    """A name does not run across a sentence's end: "ImmTrac2. Retain this form" is two sentences; and the word
    opening a sentence is capitalized for that alone ("Retain"), unless more capitals follow it (an initial's
    full stop, "P. O. Box", is no sentence's end)."""
    start, end = span
    pieces: list[Span] = []
    for stop in _SENTENCE_END.finditer(text, start, end):
        if _WORD.findall(text[start : stop.start() + 1])[-1:] in ([a] for a in _ABBREVIATIONS):
            continue  # "Mr. John Smith"
        pieces.append((start, stop.start() + 1))
        start = stop.end()
    pieces.append((start, end))
    opening = [
        p for i, p in enumerate(pieces) if i > 0 and " " not in text[p[0] : p[1]].strip()
    ]  # (a lone word after a sentence's end)
    return [p for p in pieces if p not in opening and p[1] > p[0]]


def _may_name(value: str) -> bool:
    """Not every capitalized run is a name: "DO NOT" is two stopwords, "Form" (of "Form 1040") or "Page" alone a
    document's furniture."""
    words = [w.casefold() for w in _WORD.findall(value)]
    if words and (all(w in STOPWORDS for w in words) or words[0] in _INSTRUCTIONS):
        return False  # ("Please enter client", "See instructions": a form's instruction)
    return not (len(words) == 1 and words[0] in _FURNITURE)


def _without_label(text: str, span: Span) -> Span:
    """A name run into the next label loses the label's word: "Towaco" of "City: Towaco State: NJ"."""
    start, end = span
    if text[end : end + 1] == ":" and " " in text[start:end]:
        return start, text.rindex(" ", start, end)
    return span


def _new(value: str, known: Collection[str]) -> bool:
    words = [w.casefold() for w in _WORD.findall(value)]
    return any(w not in known for w in words)


def label_of(text: str, row: bool) -> str:
    """The part of a candidate that names its value: a row's first cell, the text before a `label:`'s colon."""
    if row:
        return text.split(" | ", 1)[0]
    head, colon, _ = text.partition(":")
    return head if colon and len(head) <= 50 else ""
