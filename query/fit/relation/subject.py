"""Whose attribute a value is: the words that say whose (the subject, "the *earlier application*'s filing date") are
said around the value or by its document's title, and the names that say which of the attribute is asked ("the
*Harvard* estimate", "the *--tool* option") are said where the value is."""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from ingest import Segment
from query.fit.asked import Asked
from query.fit.documents import ScopeWords
from query.fit.relation.naming import COPULAS
from query.fit.relation.reading import QuestionReading
from query.fit.relation.units import WORD
from query.fit.words import claim_words, names_held, names_of
from query.language.question import Clue, Part, Words

SUBJECT_SHARE = 0.5  # at least this share of the subject's words is said around the value or by the title
SUBJECT_WORDS = 2  # a subject of fewer words is only looked for in the whole document
FUZZY_CHARS, FUZZY_SCORE = 6, 85  # a word this long is found misread by OCR ("PRNTER"), this close
TITLE_LINES = 10  # the first lines of a document, where it says what it is


class SubjectCheck:
    """Whether a value is the asked subject's: `scope_words` gives a document's title, where a subject word or an
    owning name may be said instead of beside the value."""

    def __init__(self, reading: QuestionReading, scope_words: ScopeWords) -> None:
        self._reading = reading
        self._scope_words = scope_words

    def subject_held(self, part: Part, said: str, segment: Segment) -> bool:
        """At least SUBJECT_SHARE of the subject's words are said around the value or by the document's title:
        "the *earlier application*" is not the patent its title names."""
        subject = self._reading.subject(part)
        if len(subject) < SUBJECT_WORDS:
            # (one word is as often the document's own as another thing's: it is only looked for in the whole of what
            # is known of the document, "dblatex" in a manual of GNU Prolog)
            return not subject or _said_in(subject[0], self._scope_words(segment, stems=True))
        here = claim_words(f"{said}\n{self._scope_words.title(segment, TITLE_LINES)}")
        return sum(here.holds(c) for c in subject) >= SUBJECT_SHARE * len(subject)

    def names_held(self, part: Part, said: str, segment: Segment, *, row: bool = False) -> bool:
        """The names that say which of the attribute is asked are said where the value is (`said`), or by the
        document's title (a licence's holder): "the *Harvard* estimate", "units of *Tool A*", "*Lundmark's*
        solution", "the *--tool* option" (as written: "--segment-merging-interval" is another option); a name the
        document is of is the scope check's."""
        names = self._reading.owning_names(part)
        if self._reading.asks_agent(part):  # "who wrote the Instant Python course": what was written is the unit's
            names = tuple(n for n in self._reading.asked.scope_names if n not in self._reading.document_names)
        if not names:
            return True
        here = names_of(said)
        missing = [n for n in names if not self._code_held(n, said) or not names_held(n, here)]
        if not missing or row:
            return not missing  # (a row's name is its own: "Tool A" of another row is no answer)
        if any(n in self._reading.code_names for n in missing):
            return False  # (an option or an identifier is said where its value is, not by a manual's first page)
        if self._qualified_otherwise(part, said):
            return False  # ("Qualified dividends" is not "Section 199A dividends", whoever the title names)
        title = names_of(self._scope_words.title(segment, lines=None))
        return all(names_held(n, title) for n in missing)

    def _qualified_otherwise(self, part: Part, said: str) -> bool:
        """A word of its own right before the focus where the value is ("*Qualified* dividends: …"): the label names
        another one of that kind than the question's owner does ("Section 199A dividends")."""
        specific = self._reading.specific(part)
        if not specific or self._reading.asks_agent(part):
            return False  # (a verb, "originally wrote", is qualified by its adverb, not by another one's name)
        words = WORD.findall(said)
        for i, word in enumerate(words[1:], 1):
            if claim_words(word).holds(specific[-1]):  # (the head: "dividends" of "Section 199A dividends")
                before = words[i - 1]
                low = before.casefold()
                if not before.isalpha() or len(before) < 3 or low in self._reading.gap_words or low in COPULAS:
                    return False
                held = claim_words(before)  # ("Montant total" of "the total amount": the question's word, in French)
                return not any(held.holds(c) for c in self._reading.asked.question.clues)
        return False

    def _code_held(self, name: tuple[str, ...], said: str) -> bool:
        """A name written as code is said as written, whole: "--segment-merging" is not "--segment-merging-interval"."""
        code = self._reading.code_names.get(name)
        return code is None or re.search(rf"(?<![\w-])-*{re.escape(code)}(?![\w-])", said, re.IGNORECASE) is not None


def _said_in(clue: Clue, words: Words) -> bool:
    """The clue is one of the words, or, for a long word, one of them as OCR may have read it ("PRNTER")."""
    if words.holds(clue):
        return True
    if len(clue.word) < FUZZY_CHARS:
        return False
    return process.extractOne(clue.word, words.tokens, scorer=fuzz.ratio, score_cutoff=FUZZY_SCORE) is not None


def owned_here(asked: Asked, text: str) -> bool:
    """A name the question gives is said around the value: it tells which of two same labels is asked."""
    here = names_of(text)
    return any(names_held(n, here) for n in asked.scope_names)
