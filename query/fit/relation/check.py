"""The relation check itself: for each part of the question, each unit of the claim's passages and each of the
claim's values of the kind asked, whether the unit states the value as the asked attribute of the asked subject (a
label and its value, a table cell, a sentence), composing the question's reading with the naming, subject and clause
checks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ingest import Segment
from query.fit.asked import Asked
from query.fit.documents import ScopeWords
from query.fit.kind import KindCheck
from query.fit.relation.clause import ClauseCheck
from query.fit.relation.naming import NamingCheck, does, done_by_doer, labels, says_relation
from query.fit.relation.reading import QuestionReading
from query.fit.relation.subject import SubjectCheck
from query.fit.relation.units import (
    CELL_SEPARATOR,
    NUMBER,
    Unit,
    copied_from,
    label_alone,
    lead_before,
    line_before,
    occurrences,
    plain,
    trail_after,
    units,
    whole_words,
)
from query.language.question import Kind, Part
from query.language.terms import MONTH, STOPWORDS, fold

LABEL, CELL, SENTENCE = "label", "table cell", "sentence"
UNTYPED_VALUES = 8  # an untyped claim's first words that the question does not hold: one of them is its value
_VERB_FORM = re.compile(r"[a-z]+(?:ed|ing|ly)")  # "derived", "using", "usually": no untyped value
_TOKEN = re.compile(r"(?<![\w-])-{0,2}\w+(?:[.@/:-]\w+)*")  # ("--dsymutil" is one word, no label's dash)
_EMPTY_CELLS = frozenset({"", "—", "-"})
_WHOLE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
_MONTH_ONLY = re.compile(MONTH, re.IGNORECASE)


@dataclass(frozen=True)
class Verification:
    """How the passage states the claim's value as the thing asked (`how`: LABEL, CELL, SENTENCE), for which part of
    the question, and the value; or, unverified, why not."""

    how: str | None
    part: int | None = None
    value: str | None = None
    why: str | None = None

    @property
    def verified(self) -> bool:
        return self.how is not None


class RelationCheck:
    """Verifies claims against their passages for one question: `kind` finds a claim's values of the kind asked,
    `scope_words` a document's title, where a subject word may be said instead of beside the value."""

    def __init__(self, asked: Asked, kind: KindCheck, scope_words: ScopeWords) -> None:
        self.asked = asked
        self._kind = kind
        self._reading = QuestionReading.of(asked)
        self._naming = NamingCheck(self._reading)
        self._subject = SubjectCheck(self._reading, scope_words)
        self._clause = ClauseCheck(self._reading, scope_words)

    def __call__(self, text: str, segments: Sequence[Segment], part: Part | None = None) -> Verification:
        if self._reading.does_what and (done := self._what_it_does(text, segments)):
            return done
        parts = [(i, p) for i, p in enumerate(self.asked.parts) if part is None or p is part]
        parts = parts or [(0, part)]  # (a part of another reading of the question)
        passages = [(segment, copied_from(text, list(units(segment)))) for segment in segments]
        for index, asked in parts:
            values = self._values(asked, text)
            for segment, copied in passages:
                for unit in copied:
                    for value in values:
                        if how := self._states(asked, unit, value, segment):
                            return Verification(how, index, plain(value))
        asked_about = " ".join(c.word for p in self.asked.parts for c in p.focus) or "what is asked"
        return Verification(None, why=f"its passage does not state it as the {asked_about} asked")

    def _what_it_does(self, text: str, segments: Sequence[Segment]) -> Verification | None:
        """ "What does rand(-1) do?": a sentence of the passage whose subject is rand(-1), then its verb ("rand(-1)
        resets both seeds …"), the claim's own."""
        subject = self._reading.does_what
        for segment in segments:
            for unit in units(segment):
                said = fold(unit.text)
                if said.startswith(subject) and said[len(subject) :][:1] == " " and fold(text) in said:
                    return Verification(SENTENCE, 0, plain(unit.text[len(subject) :]))
        return None

    def _values(self, part: Part, text: str) -> list[str]:
        """The claim's values of the kind asked, as written (a value the question states is none)."""
        if part.kind is Kind.ANY:
            return _untyped_values(text, self.asked.known)
        spans = [whole_words(text, a, b) for a, b in self._kind.spans(part, text)]
        # (grown to its whole word, a value may be one the question states: "PIC16" of "the PIC16 port")
        values = list(
            dict.fromkeys(v for a, b in spans if (v := text[a:b].strip()) and v.casefold() not in self.asked.known)
        )
        if part.kind is Kind.NAME:  # (a month is no one's name: "Date of Patent: *Nov. 27, 2018")
            values = [v for v in values if not _MONTH_ONLY.fullmatch(v)]
        return values

    def _states(self, part: Part, unit: Unit, value: str, segment: Segment) -> str | None:
        """How the unit states the value as the attribute asked (LABEL, CELL, SENTENCE), at any place it holds it."""
        if self._clause.truncated(value, segment):
            return None
        for start in occurrences(unit.text, value):
            end = start + len(value)
            if unit.row:
                if self._subject.names_held(part, unit.text, segment, row=True) and (
                    how := self._cell(part, unit, start, end, segment)
                ):
                    return how
                continue
            lead, trail = lead_before(unit.text, start), trail_after(unit.text, end)
            # (where the value is: its label, back to the colon of another label before it, and what follows it)
            around = f"{lead.rpartition(': ')[2] if lead.count(':') > 1 else lead} {unit.text[start:end]} {trail}"
            if not self._subject.names_held(part, around, segment):
                continue
            if not self._subject.subject_held(part, f"{lead} {trail}", segment):
                continue
            if self._clause.qualified(lead, trail, value):
                continue
            # (a value opening its line is labelled by the line above it, where that line names what is asked)
            above = line_before(unit, start)
            line_start = (
                start in unit.line_starts and label_alone(above) and self._naming.named_before(part, above, trail, True)
            )
            if (
                line_start
                or self._naming.named_before(part, lead, trail)
                or self._naming.default_of(part, unit.text[:start], lead)
            ):
                if self._clause.ambiguous(lead, trail, segment):
                    continue
                return LABEL if labels(lead) or line_start else SENTENCE
            # (what a count counts follows it: "46 extra-galactic nebulae"; "7.4 Garbage Collection" counts nothing)
            counted = not self.asked.asks_count or _WHOLE_NUMBER.fullmatch(value)
            if part.kind is not Kind.ANY and counted and self._naming.defined_after(part, trail):
                return SENTENCE  # (an untyped value has no kind to tell it from the words before a definition)
            if self._reading.asks_agent(part) and does(trail, part.focus[0]):
                return SENTENCE  # "Dinu Gherman contributed this script", "Andy Robinson has refined it"
            agent_verb = self._reading.agent_verb
            if part.kind is Kind.NAME and agent_verb and says_relation(lead, (agent_verb, "by")):
                return SENTENCE  # "the simple streams API proposed by Franz Inc." (asked "proposed by which company")
            if done_by_doer(self._reading, part, lead, trail):
                return SENTENCE  # "SBCL currently uses the Mersenne Twister as its random number generator"
        return None

    def _cell(self, part: Part, unit: Unit, start: int, end: int, segment: Segment) -> str | None:
        """The row's label and the head of the value's column name the attribute; the subject is the row's."""
        cells = unit.text.split(CELL_SEPARATOR)
        offset, column = 0, None
        for i, cell in enumerate(cells):
            if offset <= start and end <= offset + len(cell):
                column = i
            offset += len(cell) + len(CELL_SEPARATOR)
        if column is None or (unit.heads and len(unit.heads) != len(cells)):
            return None  # (a head over several columns, "Conso kWh Prix €HT/kWh Montant EHT": which is whose?)
        label = next((c for c in cells[:column] if c.strip() not in _EMPTY_CELLS and not NUMBER.search(c)), "")
        head = unit.heads[column] if column < len(unit.heads) else ""
        said = f"{head} {label}"
        if self._naming.names(part, said, labelled=True) and self._subject.subject_held(part, said, segment):
            return CELL
        return None


def _untyped_values(text: str, known: frozenset[str]) -> list[str]:
    """What an untyped claim gives: its words after its label, or its words the question does not hold (a version
    or a path is one word: "3.7", "/etc/msmtprc")."""
    head, colon, rest = text.rpartition(":")
    body = f"{rest} {head}" if colon and len(head) <= 120 else text
    words = [
        w
        for w in _TOKEN.findall(body)
        if w.casefold() not in known and w.casefold() not in STOPWORDS and not _VERB_FORM.fullmatch(w)
    ]
    return list(dict.fromkeys(words))[:UNTYPED_VALUES]
