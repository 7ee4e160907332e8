"""What the value's clause says of it, beyond naming it: that it is not the attribute or only a bound of it (a
negation, "since", "more than"), that it is another's ("a release of C11"), that its label labels another value too,
or that the extraction that gave it cut it short."""

from __future__ import annotations

import re

from ingest import Segment
from query.fit.documents import ScopeWords, same_document
from query.fit.relation.naming import labels
from query.fit.relation.reading import NEGATIONS, QuestionReading
from query.fit.relation.subject import owned_here
from query.fit.relation.units import NUMBER, WORD, occurrences

BOUND_REACH = 3  # words before a value where a bound of it is said ("since version 1.4.0")
_NEGATION_WORD = re.compile(r"\b\w+(?:n't)?\b(?![.:#]|\s*\d)")  # ("No. 001", "NO: 12", "no 5" abbreviate a number)
# Words right before a value that make it a bound, not the value (-> the question's words that ask for that bound).
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?")
# What follows a heading's number: a few capitalized words ("Garbage Collection", "Running Scheme under Emacs")
_TITLE = re.compile(
    r"[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|of|and|the|for|in|on|to|a|an|with|under|from))*(?:\s+[A-Z][\w-]*)?"
)
_BOUNDS = {
    bound: frozenset(asked.split())
    for bound, asked in {
        "since": "since first start began introduced",
        "prior to": "prior before earlier older",
        "before": "before prior earlier",
        "after": "after later since",
        "until": "until till end last",
        "till": "until till end last",
        "more than": "more over above least minimum",
        "less than": "less under below most maximum",
        "fewer than": "fewer less under below",
        "greater than": "greater more over above",
        "older than": "older before",
        "newer than": "newer after",
    }.items()
}


class ClauseCheck:
    """Whether a value's clause takes back what its name says of it: `scope_words` gives the other segments of its
    document, where a field's value shows whether the extraction cut it."""

    def __init__(self, reading: QuestionReading, scope_words: ScopeWords) -> None:
        self._reading = reading
        self._scope_words = scope_words

    def truncated(self, value: str, segment: Segment) -> bool:
        """A field Document AI extracted whose value its document's text holds only inside a longer one ("Application
        number: 453,945" where the patent says "Appl. No.: 15/453,945"): the extraction cut it."""
        if segment.kind != "field" or not any(ch.isdigit() for ch in value):
            return False
        texts = [s.text for s in self._scope_words.context if s.kind != "field" and same_document(s, segment)]
        inside = [t for t in texts if value.casefold() in t.casefold()]
        return bool(inside) and not any(next(occurrences(t, value), None) is not None for t in inside)

    def ambiguous(self, lead: str, trail: str, segment: Segment) -> bool:
        """The value's label labels another value too, in the passage ("ADDRESS: 111 Main Street", "ADDRESS: 222
        Main Street" of an invoice's sender and recipient): which one is asked, only a name the question gives where
        the value is could tell."""
        words = lead.split()
        # (its label: the last word with its colon, "ADDRESS:"; else the last three words, "Translation from French")
        label = words[-1] if words and words[-1].endswith(":") else " ".join(words[-3:])
        if len(label) < 2:
            return False
        pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, label.split())) + r"\s*(\S+)"
        found = re.findall(pattern, segment.text, re.IGNORECASE)
        return len(set(found)) > 1 and not owned_here(self._reading.asked, f"{lead} {trail}")

    def qualified(self, lead: str, trail: str, value: str) -> bool:
        """The value's clause says it is not the attribute, or only a bound of it, or whose it is, where the question
        says nothing of the kind: a negation ("22 nebulae whose distances could not be estimated"), a bound of time or
        size right before it ("Since version 1.4.0", "prior to 1.4.0", "more than 20"), or, where the question says
        whose attribute it asks ("which release of R"), "of" before a name ("a bugfix release of C11": C11 is what
        was released, not the release). A heading's number ("7.4 Garbage Collection") is no value of what it heads."""
        if not lead.strip() and _SECTION_NUMBER.fullmatch(value) and _TITLE.fullmatch(trail):
            return True
        clause = f"{lead.rpartition(',')[2]} {trail.partition(',')[0]}"
        if not self._reading.negated and any(
            m.group().casefold() in NEGATIONS for m in _NEGATION_WORD.finditer(clause)
        ):
            return True
        before = [w.casefold() for w in WORD.findall(lead)][-BOUND_REACH:]
        bounds = (" ".join(before[i : i + n]) for n in (1, 2) for i in range(len(before)))
        if any(b in _BOUNDS and not _BOUNDS[b] & self._reading.asked.known for b in bounds):
            return True
        return (
            self._reading.owned_focus
            and before[-1:] == ["of"]
            and not labels(lead)
            and any(ch.isalpha() for ch in value)
            and not NUMBER.match(value)
        )
