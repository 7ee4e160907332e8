"""How a generated question names what it asks about. Pure."""

from __future__ import annotations

_POSSESSIVES = frozenset("my your our his her their the".split())


def the(label: str) -> str:
    """`the Total amount`, but `My name` as it is (a form that speaks to its reader)."""
    first, _, rest = label.partition(" ")
    if first == "The" and rest:
        return f"the {rest}"
    return label if first.casefold() in _POSSESSIVES else f"the {label}"


def the_term(term: str) -> str:
    """`the --nogcse option`, but `tol bnd` and `set x name` as they are."""
    return f"the {term} option" if term.startswith("-") else term


def label_ok(label: str) -> bool:
    """Reads as a label: letters, at least as many as digits."""
    letters = sum(c.isalpha() for c in label)
    return letters >= 3 and letters >= sum(c.isdigit() for c in label)


def phrase(subject: str) -> str:
    """The subject inside a question: a determiner that started the sentence in lower case (`The tutorial` ->
    `the tutorial`), every other word as printed."""
    first, _, rest = subject.partition(" ")
    if first in {"The", "A", "An", "Its", "Their", "This", "These"} and rest:
        return f"{first.lower()} {rest}"
    return subject
