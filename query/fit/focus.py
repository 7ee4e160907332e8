"""The focus check: the thing asked about (or a synonym, in any language the answerer reads) is in the claim or the
passage it cites ("the amount paid" is not a receiver's name), the claim does not exclude it ("Total hors TVA" for
the total), and it gives the attribute asked, not another one of the same thing ("METER READING: 008" for the meter
number, "Business address …" for the business name)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ingest import Segment
from query.fit.asked import Asked
from query.fit.verdict import FOCUS_FIT, Fit
from query.fit.words import (
    ATTRIBUTES,
    EXCLUDING,
    IDENTIFIER_WORDS,
    LABEL_WORDS,
    claim_words,
    folded,
    names_held,
    names_of,
)
from query.language.question import Clue, Kind, Part, stem
from query.language.terms import fold
from query.language.values import label_of

_DIGIT = re.compile(r"\d")
_WORDS = re.compile(r"\w+")
_HEAD = re.compile(r"[^\d(:|\n]{0,60}")  # a claim's first words, up to a number, a bracket or a colon
_NONE: frozenset[str] = frozenset()


class FocusCheck:
    """The focus of each part of one question, looked for in claims and their passages."""

    def __init__(self, asked: Asked):
        self.asked = asked
        # (each specific focus clue's stems and short forms: a word of a text is one of its words when it starts with a
        # stem or is a short form)
        focus = {c for p in asked.parts for c in p.focus if c.word not in p.generic and c.forms}
        self._clue_forms = {c: (tuple(sorted(c.forms)), frozenset(_shortened(c))) for c in focus}
        # (a text holding none of the clues' shortest forms is not scanned: most passages speak of none; the pattern
        # that scans is made when one does)
        self._clue_starts = shortest_starts(f for stems, short in self._clue_forms.values() for f in (*stems, *short))
        self._clue_words: re.Pattern[str] | None = None
        self._spoken: dict[str, frozenset[str]] = {}
        self._unfocused: dict[str, Fit] = {}  # what is asked about -> the failure saying so

    def __call__(self, part: Part, text: str, said: Said, excluded: frozenset[str]) -> Fit | None:
        return (
            self._focus_fit(part, text, said, excluded)
            or self._attribute_fit(part, text)
            or self._other_attribute(part, text)
        )

    def said(self, text: str, segments: Sequence[Segment]) -> Said:
        return Said(self, text, segments)

    def _attribute_fit(self, part: Part, text: str) -> Fit | None:
        """An identifier asked of a thing ("the meter number") is not another of its attributes labelled with the
        thing's name ("METER READING: 008"): a label that names the thing, not the number, and says what else."""
        head = label_of(text, row=False)
        if not head or part.kind is not Kind.NUMBER or "#" in head:
            return None  # ("LIC #": "#" names a number)
        if not any(c.forms & IDENTIFIER_WORDS for c in part.focus if c.word in part.generic):
            return None  # an identifier is asked for ("number", "no."), not a rate or a count
        label = claim_words(head)
        named = [c for c in part.focus if label.holds(c)]
        if not named or any(c.word in part.generic for c in named) or self.asked.counts(part):
            return None
        clues = self.asked.question.clues
        other = [
            w
            for w in label.tokens
            if not _DIGIT.search(w)  # (a form's box code, "4d", or a rate, "10%")
            and w.casefold() not in self.asked.known
            and stem(w) not in LABEL_WORDS
            and not any(claim_words(w).holds(c) for c in clues)
        ]
        if not other:
            return None
        asked = " ".join(c.word for c in part.focus)
        return Fit(FOCUS_FIT, f"asks for the {asked}; the answer gives the {head.strip().casefold()}")

    def _other_attribute(self, part: Part, text: str) -> Fit | None:
        """The claim's head names the thing asked about with another of its attributes: "Business address … 367
        Amanda Inlet" asked the business name, "Patient date of birth" asked the patient's name."""
        asked = self.asked.attributes(part)
        things = [c for c in part.focus if stem(c.word) not in ATTRIBUTES]
        if not asked or not things:
            return None
        head = label_of(text, row=False) or _HEAD.match(text).group()
        words = [w.casefold() for w in _WORDS.findall(head)]
        if not any(claim_words(w).holds(c) for w in words for c in things):
            return None  # (the head does not name the thing: the check of the focus says the rest)
        other = [
            w for w in words if stem(w) in ATTRIBUTES - asked and not any(claim_words(w).holds(c) for c in part.focus)
        ]
        if not other:
            return None
        thing = " ".join(c.word for c in part.focus)
        return Fit(FOCUS_FIT, f"asks for the {thing}; the answer gives the {head.strip().casefold()}")

    def _focus_fit(self, part: Part, text: str, said: Said, excluded: frozenset[str]) -> Fit | None:
        if excluded and (shut := [c.word for c in part.focus if c.forms & excluded]):
            return Fit(FOCUS_FIT, f"asks about {' '.join(shut)}; the answer excludes it")
        if excluded and self.asked.asks_amount(part) and not EXCLUDING.search(fold(self.asked.text)):
            # "the invoice total" is all of it, not "Total hors TVA" (unless the question says "before tax")
            return Fit(FOCUS_FIT, f"asks for the whole amount; the answer excludes {' '.join(sorted(excluded))}")
        specific = self.asked.specific(part)
        if not specific or not said.claim.isdisjoint(specific):
            return None
        if part.kind is Kind.ANY and any(names_held(n, names_of(text)) for n in self.asked.question.names):
            return None  # "CURP …": the claim is labelled with a name the question gives
        if not said.passages.isdisjoint(specific):
            return None
        return self.unfocused(part, specific)

    def unfocused(self, part: Part, specific: frozenset[str]) -> Fit:
        """The failure of a claim that speaks of none of `specific`, nor does its passage."""
        asked = " ".join(c.word for c in part.focus if c.word in specific)
        unfocused = self._unfocused.get(asked)
        if unfocused is None:  # (the same for every claim that fails it)
            why = f"asks about {asked}; neither the answer nor its passage speaks of it"
            unfocused = self._unfocused[asked] = Fit(FOCUS_FIT, why)
        return unfocused

    def spoken(self, text: str) -> frozenset[str]:
        """The question's clues a text (a claim, a passage) speaks of: a word of it starts with one of a clue's stems
        ("expiration", "Gesamtbetrag" of "gesamt"), or abbreviates one ("EXP" of "expir", keeping half of it). One
        scan of a text for all clues, no stemming; once a text (a passage backs several claims)."""
        said = self._spoken.get(text)
        if said is None:
            said = self._spoken[text] = self._read_spoken(folded(text))
        return said

    def _read_spoken(self, low: str) -> frozenset[str]:
        for start in self._clue_starts:
            if start in low:
                break
        else:
            return _NONE  # (most passages: none of the clues' shortest forms, no scan)
        if self._clue_words is None:
            alternatives = "|".join(map(_clue_pattern, self._clue_forms)) or "(?!)"
            self._clue_words = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")
        found: set[str] = set()
        for match in self._clue_words.finditer(low):
            word = match.group()
            found.update(
                c.word for c, (stems, short) in self._clue_forms.items() if word in short or word.startswith(stems)
            )
        return frozenset(found)


class Said:
    """The question's clues a claim speaks of, and those its cited passages do (read when asked: once a check)."""

    __slots__ = ("_focus", "_passages", "_segments", "claim")

    def __init__(self, focus: FocusCheck, text: str, segments: Sequence[Segment]):
        self._focus, self._segments = focus, segments
        self.claim = focus.spoken(text)
        self._passages: frozenset[str] | None = None

    def misses(self, clues: frozenset[str]) -> bool:
        """Neither the claim nor its passages speak of any of `clues`."""
        return self.claim.isdisjoint(clues) and self.passages.isdisjoint(clues)

    @property
    def passages(self) -> frozenset[str]:
        if self._passages is None:
            spoken = self._focus.spoken
            segments = self._segments
            if len(segments) == 1:  # (most claims cite one passage)
                self._passages = spoken(segments[0].text)
            else:
                self._passages = frozenset().union(*(spoken(s.text) for s in segments))
        return self._passages


def _clue_pattern(clue: Clue) -> str:
    """A word starting with one of the clue's stems, or a short form keeping half of one ("exp" of "expir")."""
    shortened = _shortened(clue)
    return "|".join([rf"{re.escape(form)}\w*" for form in sorted(clue.forms)] + sorted(map(re.escape, shortened)))


def _shortened(clue: Clue) -> set[str]:
    return {f[:k] for f in clue.forms if f.isalpha() for k in range(max(3, -(-len(f) // 2)), len(f))}


def shortest_starts(alternatives: Iterable[str]) -> tuple[str, ...]:
    """The alternatives no other one starts: a text holding none of them holds no match."""
    starts: list[str] = []
    for alternative in sorted(set(alternatives), key=len):
        if not any(alternative.startswith(s) for s in starts):
            starts.append(alternative)
    return tuple(starts)
