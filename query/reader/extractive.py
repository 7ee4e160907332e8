"""The offline `extractive` answerer: copies from the context what a careful reader would, with its segment id.

Deterministic, no model. The candidates are a table's rows, `label: value` lines (a label line and the value line
under it count as one), short lines, and the sentences of prose. For each thing the question asks
(`language.question`), a candidate must hold a value of the kind asked (an amount for "how much", a date for "when", a
name for "who") that the question does not already state, and the thing asked about (its focus; "the date" or "the
cost" is answered by the value itself). It is then scored on three counts, each clue weighted by how rare it is in
the context: the focus it holds, the names of the question it holds (or its segment, or its document: "Service B"
must be the row, "Company ABC" may be the invoice), and the question's other clues; a label naming all of the focus
("Form Number: 12345678") earns more than one naming part of it ("RETENTION CONSENT FORM: 3"). A candidate's
document must also hold a name of the question and the focus's owner ("the name of Brenda's dog": a document about
Brenda that never speaks of a dog does not answer). The best candidate of each part that clears a confidence bar
becomes a section (with the equal candidates of other documents, under the same label, where the question cannot
tell those documents apart), cut down to the clause that holds the focus and the value when it is a long sentence
("Communicated January 17, 1929"); no candidate at all: one uncited section saying the answer was not found. It
answers in the JSON `sections` shape of an LLM, so the rest of the pipeline cannot tell the difference.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ingest import Segment
from query.citations.model import as_segments
from query.fit.check import FitCheck
from query.fit.documents import ScopeWords, same_document
from query.language.question import Clue, Kind, Part, Question, Words, asks_how_much, read_question, union, words_of
from query.language.values import Span, is_money, label_of, value_spans
from query.reader.candidates import Candidate, candidates_of
from query.reader.clause import answering_clause

NOT_FOUND = "I could not find an answer to this question in your documents."
MAX_SECTIONS = 3
# The three counts a candidate is scored on, and how much each weighs (renormalized over those the question has).
FOCUS_WEIGHT, NAMES_WEIGHT, CLUES_WEIGHT = 0.5, 0.2, 0.3
IDENTIFIER_WEIGHT = 0.5  # the names' weight when one of them holds a number
# A clue or name held by the candidate's segment or document, not by the candidate: worth this much.
IN_SEGMENT, IN_DOCUMENT = 0.7, 0.5
CONFIDENCE_BAR = 0.55  # tuned on bench/answers_questions.json, checked on bench/answers_heldout.json
UNTYPED_BAR = 0.6  # without a kind of value to look for ("what medication…"), only the words can vouch
LABEL_BONUS = 0.1  # the focus is the value's label ("Tax | $140.00", "DOB: 09/04/1986"), not only in its sentence
# A label naming only part of a focus of several words earns this share of LABEL_BONUS, the rest in proportion to the
# part it names: "Form Number: 12345678" is a form number, "RETENTION CONSENT FORM: 3" only a form's something.
PART_NAMED = 0.5
# per word of the value's label the question does not ask (at most LABEL_EXTRA_WORDS): "Total amount: 19,647.68"
# answers "the total amount" before "Total tax amount: $1,767.97" does, whatever retrieval's order of the two (more
# than RANK_PENALTY over a few places, less than any count the score is made of)
LABEL_EXTRA, LABEL_EXTRA_WORDS = 0.01, 3
UNIT_BONUS = 0.1  # an amount question prefers "$140.00" or "1.5%" to a bare count, a rate question "10%"
PERCENT_WORDS = frozenset({"rate", "percentage", "percent"})
GENERIC_BY_VALUE = 0.75  # a generic focus word ("weight") held by the value only, not written: "17 WGT: 150 lb" wins
ROLE_WEIGHT = 2.0  # "addressed to": the label "TO:" names the party more surely than the verb does
LONG_CHARS, LENGTH_PENALTY = 60, 0.0015  # per character past LONG_CHARS: the shorter of two equal answers
RANK_PENALTY = 0.002  # per place down the context: retrieval's order breaks ties
AMBIGUOUS_MARGIN = 0.05
# A choice its passage verifies is preferred to a better-scored one within this much, below the bar too; of the best
# VERIFIED_TRIES choices (verifying reads the passage: a few, not all).
VERIFIED_REACH, VERIFIED_TRIES = (
    0.1,
    5,
)  # candidates of two documents this close under one label: the question cannot tell them
SHAPES = (Kind.PHONE, Kind.EMAIL)  # kinds a value's shape alone identifies

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Choice:
    score: float
    text: str  # what is copied: the candidate, or the clause of it that answers
    candidate: Candidate


def extractive_answer(question: str, context: Iterable[Segment | Mapping[str, Any]]) -> str:
    return orjson.dumps({"sections": extractive_sections(question, context)}).decode()


def extractive_sections(question: str, context: Iterable[Segment | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The answer's sections, in order: `{"text", "source_ids"}`, one per thing asked that was found, or
    one uncited `NOT_FOUND` section."""
    segments = as_segments(context)
    asked = read_question(question)
    candidates = [candidate for order, s in enumerate(segments) for candidate in candidates_of(s, order)]
    judge = _Judge(asked, segments)
    chosen: list[Choice] = []
    for part in asked.parts[:MAX_SECTIONS]:
        for choice in judge.best(part, candidates):
            if len(chosen) < MAX_SECTIONS and all(choice.text != c.text for c in chosen):
                chosen.append(choice)
    if not chosen:
        return [{"text": NOT_FOUND, "source_ids": []}]
    return [{"text": c.text, "source_ids": [c.candidate.segment.segment_id]} for c in chosen]


class _Judge:
    """Scores candidates against one question over one context."""

    def __init__(self, asked: Question, segments: list[Segment]):
        self.asked = asked
        self.known = {w.casefold() for w in _WORD.findall(asked.text)}
        # what a label's word may be and still be asked: the question's words, their clues' forms, its names' words
        self.asked_words = self.known.union(
            *(clue.forms for clue in asked.clues), *(frozenset(name) for name in asked.names)
        )
        self.segment_words = {s.segment_id: words_of(s.text) for s in segments}
        self.document_words: dict[str, Words] = {}
        for s in segments:
            self.document_words[s.document_id] = union(
                self.document_words.get(s.document_id), self.segment_words[s.segment_id]
            )
        # the one check of every provider's answers (query.fit.check): a candidate that fails it is never given
        context_words = functools.reduce(union, self.document_words.values(), None)
        self.fit = FitCheck(asked, ScopeWords(segments), context_words)
        total = len(segments)
        self.weights: dict[Clue, float] = {}
        for clue in asked.clues:
            frequency = sum(words.holds(clue) for words in self.segment_words.values())
            # rare in the context: telling; unseen: as telling as a clue seen once (the thing asked is not
            # there, or is worded otherwise: the bar decides)
            self.weights[clue] = math.log(1 + total / (1 + max(frequency, 1)))
        self._words: dict[str, Words] = {}
        # An identifier ("N. G. C. 7619", "ET-4760") names one thing: the candidate holding it is about it.
        identifier = any(any(c.isdigit() for c in w) and len(w) > 1 for name in asked.names for w in name)
        self.names_weight = IDENTIFIER_WEIGHT if identifier else NAMES_WEIGHT

    def best(self, part: Part, candidates: list[Candidate]) -> list[Choice]:
        """The best candidate, and those of other documents the question cannot tell from it: as good (within
        `AMBIGUOUS_MARGIN`), under the same label, with another value ("Sales Tax: 3.60" on one Office Depot
        receipt, "Sales Tax: 45.00" on another, asked "the sales tax on the Office Depot receipt"). Giving one of
        them would be a guess shown as an answer; the reader gets each with its citation."""
        scored = sorted(
            (s for s in (self.score(part, c) for c in candidates) if s is not None),
            key=lambda s: (-s.score, s.candidate.order),
        )
        best = self._verified_first(part, scored)
        if best is None:
            return []
        scored = [best] + [s for s in scored if s is not best]
        chosen = [best]
        label = _label_key(best)
        for other in scored[1:]:
            if best.score - other.score > AMBIGUOUS_MARGIN:
                break
            if (
                label
                and _label_key(other) == label
                and not any(same_document(other.candidate.segment, c.candidate.segment) for c in chosen)
                and not any(_value_of(other) == _value_of(c) for c in chosen)
            ):
                chosen.append(other)
        return chosen

    def score(self, part: Part, candidate: Candidate) -> Choice | None:
        if not self.asks_here(part, candidate, self.words(f"{candidate.text}\n{candidate.header}")):
            return None
        values = value_spans(part.kind, candidate.text, self.known, {c.word for c in part.focus})
        if not values or (candidate.text.endswith(":") and not self.asks_rate(part)):
            return None  # a bare label ("Tax (10%):") answers only a question about the rate in it
        if self.wants_money(part) and not any(is_money(candidate.text[a:b]) for a, b in values):
            return None  # "the invoice total" is an amount, not the invoice's number ("INVOICE: NO. 001")
        # a row is copied whole; an untyped answer has no value to cut the sentence to
        cut = not candidate.row and part.kind is not Kind.ANY
        text = answering_clause(candidate.text, self.anchors(part, candidate), values) if cut else candidate.text
        if self.fit.check(text, [candidate.segment], part).fails:
            return None  # a label with no value, a rate for an amount, another document's value
        words = self.words(f"{text}\n{candidate.header}")
        names = self.names_share(candidate, words)
        if names is None:
            return None  # nothing the question names is in this candidate's document
        document = self.document_words[candidate.segment.document_id]
        if part.owner and not any(document.holds(c) for c in part.owner):
            return None  # the name of Brenda's dog is not in a document that never speaks of a dog
        label = self.words(label_of(text, candidate.row))
        counts = [(FOCUS_WEIGHT, self.focus_share(part, words, label))]
        counts += [(self.names_weight, names)] if self.asked.names else []
        clues = [c for c in self.asked.clues if c not in part.focus]
        counts += [(CLUES_WEIGHT, self.clues_share(clues, candidate, words))] if clues else []
        score = sum(w * share for w, share in counts) / sum(w for w, _ in counts)
        named = self.labelled(part, label)
        score += LABEL_BONUS * (PART_NAMED + (1 - PART_NAMED) * named) if named else 0.0
        score -= LABEL_EXTRA * min(LABEL_EXTRA_WORDS, self.unasked(label)) if named else 0.0
        score += UNIT_BONUS if self.in_unit(part, text) else 0.0
        score -= LENGTH_PENALTY * max(0, len(text) - LONG_CHARS) + RANK_PENALTY * candidate.order
        if score < (CONFIDENCE_BAR if part.kind is not Kind.ANY else UNTYPED_BAR) - VERIFIED_REACH:
            return None
        return Choice(score, text, candidate)

    def _verified_first(self, part: Part, scored: list[Choice]) -> Choice | None:
        """The best choice over the confidence bar; but a choice its passage verifies (it states the value as the
        thing asked, `query.fit.relation`) within VERIFIED_REACH of it, or of the bar, is preferred: the reader is
        told the answer as a fact only then."""
        bar = CONFIDENCE_BAR if part.kind is not Kind.ANY else UNTYPED_BAR
        above = [s for s in scored if s.score >= bar]
        top = above[0].score if above else bar
        for choice in scored[:VERIFIED_TRIES]:
            if choice.score < top - VERIFIED_REACH:
                break
            if self.fit.verify(choice.text, [choice.candidate.segment], part).verified:
                return choice
        return above[0] if above else None

    def asks_here(self, part: Part, candidate: Candidate, words: Words) -> bool:
        """The candidate is about what is asked: it holds a word of the focus that a value cannot stand for (or
        the role's label); with nothing but such words ("the date", "the cost"), a name or another clue of the
        question, or a value of a kind its shape tells (a phone number)."""
        specific = [c for c in part.focus if c.word not in part.generic]
        if specific:
            label = self.words(label_of(candidate.text, candidate.row))
            return any(words.holds(c) for c in specific) or self.has_role(part, label)
        if any(words.holds(c) for c in part.focus) or part.kind in SHAPES:
            return True
        return any(words.holds(c) for c in self.asked.clues)

    def focus_share(self, part: Part, words: Words, label: Words) -> float:
        """The share of the focus's weight the candidate holds; a generic word ("date") is held in part by the value
        itself ("17 WGT: 150 lb" is a better weight than "4d LIC #: 0812319684104")."""
        weights = {c: self.weights[c] for c in part.focus}
        held = 0.0
        for clue, weight in weights.items():
            if words.holds(clue) or (clue.word in part.generic and part.kind in SHAPES):
                held += weight  # a phone number is a phone number whatever its label says
            elif clue.word in part.generic:
                held += GENERIC_BY_VALUE * weight
        if part.role:
            role = ROLE_WEIGHT * max(weights.values(), default=1.0)
            weights[Clue(part.role, frozenset())] = role
            held += role if self.has_role(part, label) else 0.0
        total = sum(weights.values())
        return held / total if total else 1.0

    def labelled(self, part: Part, label: Words) -> float:
        """How much of what is asked the value's label names, as a share of the focus's weight ("Tax | $140.00",
        "DOB: 09/04/1986", "TO: John Doe": all of it; "RETENTION CONSENT FORM: 3" names a form, not its number; and
        "number" does not name a phone number, any number may be labelled so); when the focus is only generic words
        ("what number should I call"), a label holding another clue names it too ("CUSTOMER SERVICE: 1-800-…")."""
        if self.has_role(part, label):
            return 1.0
        telling = {c: self.weights[c] for c in part.focus if part.kind not in SHAPES or c.word not in part.generic}
        named = sum(weight for clue, weight in telling.items() if label.holds(clue))
        if named:
            return named / sum(telling.values())
        return 1.0 if part.kind in SHAPES and any(label.holds(c) for c in self.asked.clues) else 0.0

    def unasked(self, label: Words) -> int:
        """How many words of a label no clue of the question stands for ("tax" of "Total tax amount", asked "the
        total amount"); a name of the question counts as asked."""
        return len(label.stems - self.asked_words)

    def wants_money(self, part: Part) -> bool:
        """An amount asked by name (a total, a tax, a balance) is money or a rate; "how much" may be a quantity."""
        return part.kind is Kind.AMOUNT and not asks_how_much(self.asked.text)

    def asks_rate(self, part: Part) -> bool:
        return any(c.word in PERCENT_WORDS for c in part.focus)

    def in_unit(self, part: Part, text: str) -> bool:
        """An amount in money or a percentage, a rate as a percentage: "$140.00" rather than a bare count."""
        if self.asks_rate(part):
            return "%" in text
        return part.kind is Kind.AMOUNT and is_money(text)

    def has_role(self, part: Part, label: Words) -> bool:
        return part.role is not None and part.role in label.tokens

    def names_share(self, candidate: Candidate, words: Words) -> float | None:
        """The mean, over the question's names, of where each is found (candidate 1, segment, document); None when
        the candidate's document holds none of them."""
        if not self.asked.names:
            return 1.0
        segment = self.segment_words[candidate.segment.segment_id]
        document = self.document_words[candidate.segment.document_id]
        if not any(_held(_telling(name), document) for name in self.asked.names):
            return None
        places = ((1.0, words), (IN_SEGMENT, segment), (IN_DOCUMENT, document))
        levels = [max(level * _held(name, held) for level, held in places) for name in self.asked.names]
        return sum(levels) / len(levels)

    def clues_share(self, clues: list[Clue], candidate: Candidate, words: Words) -> float:
        segment = self.segment_words[candidate.segment.segment_id]
        document = self.document_words[candidate.segment.document_id]
        total = sum(self.weights[c] for c in clues)
        held = 0.0
        for clue in clues:
            if words.holds(clue):
                held += self.weights[clue]
            elif segment.holds(clue):
                held += IN_SEGMENT * self.weights[clue]
            elif document.holds(clue):
                held += IN_DOCUMENT * self.weights[clue]
        return held / total if total else 1.0

    def anchors(self, part: Part, candidate: Candidate) -> list[Span]:
        """Where the candidate says what is asked: its focus words, else the question's names or clues."""
        for clues in (part.focus, self.asked.clues):
            found = ((m.span(), self.words(m.group())) for m in _WORD.finditer(candidate.text))
            spans = [span for span, words in found if any(words.holds(c) for c in clues)]
            if spans:
                return spans
        return []

    def words(self, text: str) -> Words:
        if text not in self._words:
            self._words[text] = words_of(text)
        return self._words[text]


def _label_key(choice: Choice) -> str:
    """A choice's label as written, its words and number signs only: "Sales Tax :" and "Sales Tax:" are one label,
    "Phone #:" and "Phone:" two (a form's patient's and its contact's)."""
    return " ".join(re.findall(r"[\w#]+", label_of(choice.text, choice.candidate.row))).casefold()


def _value_of(choice: Choice) -> str:
    """What a choice says after its label, letters and digits only: "Sales Tax: | 45.00" and "Sales Tax: 45.00" say
    one value."""
    label = label_of(choice.text, choice.candidate.row)
    return re.sub(r"\W+", "", choice.text[len(label) :]).casefold()


def _held(name: tuple[str, ...], words: Words) -> float:
    """The share of a name's words a text holds ("mexican" is held by "MEXICANO")."""
    held = sum(w in words.tokens or (len(w) >= 4 and any(t.startswith(w) for t in words.tokens)) for w in name)
    return held / len(name)


def _telling(name: tuple[str, ...]) -> tuple[str, ...]:
    """The words of a name that can tell a document apart: not a lone letter or digit ("3" of "MX Master 3")."""
    return tuple(w for w in name if len(w) > 1) or name
