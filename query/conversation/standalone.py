"""A follow-up as a question that stands alone (design §5.10), by rules, offline: what the question leaves out of the
subject the earlier turns named is carried forward; a question that names a subject of its own stands as asked.

"What tax rate was applied?" after "What is the total on Google invoice #23413561D for Jane Smith?" becomes "What tax
rate was applied on Google invoice #23413561D for Jane Smith?"; "When was it issued?" after a question on the Happy
Traveler US passport specimen, "When was the Happy Traveler US passport specimen issued?"; "Quelle est la date de
l'avis ?" after one on "l'avis de paie UCF Payroll Services", "Quelle est la date de l'avis de paie UCF Payroll
Services ?"; "Wann wurde die Anmeldung eingereicht?" after one on "des IBM-Patents US 10,142,938 B2", "Wann wurde die
Anmeldung des IBM-Patents US 10,142,938 B2 eingereicht?" (German ends on its verb).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from query.conversation.subject import Reading, Subject, read, subject_of
from query.conversation.words import CONNECTIVES, DEFAULT_PREPOSITION, POINTERS, PREPOSITIONS
from query.language.question import FILE_NAME
from query.language.terms import QUESTION_CHARS_READ, fold

_TAIL = re.compile(r"[\s?？.!]*$")


class Turn(Enum):
    NEW = "new"  # names a subject of its own: stands alone, and is the subject from now on
    OWN = "own"  # names the current subject itself: stands alone
    FOLLOW = "follow"  # leaves the subject out: it is carried forward


@dataclass(frozen=True)
class Standalone:
    """The question to retrieve and answer by, and the subject phrase carried into it (None: asked as it stands)."""

    question: str
    carried: str | None = None


def standalone_question(question: str, history: Sequence[Mapping[str, str]]) -> Standalone:
    """`question` written out so that it stands alone, given the conversation's earlier turns (`{"role", "content"}`,
    oldest first): the subject the earlier questions named is carried into a question that leaves it out."""
    earlier = [str(t.get("content") or "") for t in history if t.get("role") == "user"]
    subject = current_subject(earlier)
    if subject is None:
        return Standalone(question)
    reading = read(question[:QUESTION_CHARS_READ])
    if turn_of(reading, subject) is not Turn.FOLLOW:
        return Standalone(question)
    return Standalone(carry(reading, subject) + question[QUESTION_CHARS_READ:], subject.phrase)


def current_subject(questions: Sequence[str]) -> Subject | None:
    """The subject the last of these questions spoke of: the last one named, kept through the follow-ups."""
    subject = None
    for text in questions:
        reading = read(text[:QUESTION_CHARS_READ])
        if subject is None or turn_of(reading, subject) is Turn.NEW:
            subject = subject_of(reading) or subject
    return subject


def turn_of(reading: Reading, subject: Subject) -> Turn:
    """Whether a question names a new subject, names the current one, or leaves it out. A new document (a name with
    a kind of document: "Company ABC's invoice"), a new number ("patent US 10,182,182") or a file stands alone even
    where the question points back ("How many units of Tool A does it list?" points back: "Tool A" is a row); a
    question that points back ("it", "that bill", "her", "cette facture", "diese Rechnung") follows; a new name ("John
    Doe") or another kind of document ("the receipt", after an invoice) stands alone."""
    known = {w for name in subject.names for w in name}
    new = [n for n in reading.names if not set(n) <= known]
    if FILE_NAME.search(reading.text) or any(any(c.isdigit() for c in w) for n in new for w in n):
        return Turn.NEW
    if new and reading.kinds:
        return Turn.NEW
    if _points_back(reading, subject):
        return Turn.FOLLOW
    if new or (subject.kinds and set(reading.kinds.values()) - subject.kinds):
        return Turn.NEW
    return Turn.OWN if reading.names else Turn.FOLLOW


def _points_back(reading: Reading, subject: Subject) -> bool:
    pointers = POINTERS[reading.language]
    words = {t.lower for t in reading.tokens}
    backward = pointers.replaced | pointers.beside
    return bool(words & backward) or bool(_references(reading, subject))


def _references(reading: Reading, subject: Subject) -> list[tuple[int, int]]:
    """The token spans of phrases naming the subject's kind of document as one named before: a demonstrative or an
    article right before it ("that bill", "the invoice", "cette facture", "l'avis", "diese Rechnung"), or "same"
    ("the same invoice", "la même facture", "dieselbe Rechnung")."""
    pointers = POINTERS[reading.language]
    tokens = reading.tokens
    spans = []
    for index, kind in reading.kinds.items():
        if kind not in subject.kinds:
            continue
        start = index
        if start > 0 and (tokens[start - 1].lower in pointers.same):
            start -= 1
        if start > 0 and tokens[start - 1].lower in pointers.demonstratives:
            spans.append((start - 1, index))
        elif start < index:  # "dieselbe Rechnung": the word is its own determiner
            spans.append((start, index))
    return spans


def carry(reading: Reading, subject: Subject) -> str:
    """The question with the subject carried in: a phrase pointing at the earlier document ("it", "that bill") is
    replaced by the subject's noun phrase; otherwise the subject is added where the question ends ("What's her date of
    birth on Brenda Lynn Sample's Montana driver license?")."""
    text, tokens = reading.text, reading.tokens
    pointers = POINTERS[reading.language]
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in the text
    for first, last in _references(reading, subject):
        edits.append((tokens[first].start, tokens[last].end, subject.noun_phrase))
    for i, token in enumerate(tokens[1:], 1):  # "that one", "this one": the document named before
        if reading.language == "en" and token.lower == "one" and tokens[i - 1].lower in ("that", "this"):
            edits.append((tokens[i - 1].start, token.end, subject.noun_phrase))
    for i, token in enumerate(tokens):
        there_is = reading.language == "de" and i > 0 and tokens[i - 1].folded == "gibt"  # ("gibt es")
        if token.lower in pointers.replaced and (token.text.islower() or i == 0) and not there_is:
            edits.append((token.start, token.end, subject.noun_phrase))
    # Where nothing was replaced, a possessive ("her date of birth", "son intention") or a person ("he", "elle")
    # stays as written and the subject is added beside it; where "it" was, the subject is in the question once.
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    if not edits:
        text = _added(text, _carried_phrase(subject, reading.language), reading.language)
    return _without_connective(text)


def _carried_phrase(subject: Subject, language: str) -> str:
    """The subject as it is added to a question: with its own preposition, else the language's ("of", "von")."""
    preposition = subject.preposition.lower() or DEFAULT_PREPOSITION[language]
    if preposition in ("d", "l"):  # an elided "d'" or "l'" keeps its mark
        return f"{preposition}'{subject.noun_phrase}"
    return f"{preposition} {subject.noun_phrase}"


def _added(text: str, phrase: str, language: str) -> str:
    """`phrase` at the end of the question, before its question mark; in German before the verb the question ends on
    ("Wann wurde die Anmeldung … eingereicht?")."""
    tail = _TAIL.search(text)
    body, end = text[: tail.start()], text[tail.start() :]
    if language == "de":
        last = re.search(r"(\s)(\w+)$", body)
        if last and last.group(2).islower() and fold(last.group(2)) not in PREPOSITIONS:
            return f"{body[: last.start()]} {phrase} {last.group(2)}{end}"
    return f"{body} {phrase}{end}"


def _without_connective(text: str) -> str:
    """ "And how much was shipping on …?" -> "How much was shipping on …?"; "¿Y cuándo vence …?" -> "¿Cuándo vence
    …?"."""
    opening = re.match(r"\s*([¿¡]?)\s*(\w+)[\s,]+(?=\w)", text)
    if opening is None or fold(opening.group(2)) not in CONNECTIVES:
        return text
    rest = text[opening.end() :]
    return opening.group(1) + rest[:1].upper() + rest[1:]
