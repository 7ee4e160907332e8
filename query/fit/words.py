"""How the checks read a claim, a passage and a name: folded text, stemmed content words, names and initials, the
things a text excludes ("hors TVA"), and the words a label holds beside what it labels."""

from __future__ import annotations

import functools
import re

from query.language.lexical import content_words
from query.language.question import Words, abbreviations_of, has_compound, initials_of, stem, words_of
from query.language.terms import fold

# "Inc." of "Cymbal Inc." tells no company from another.
LEGAL_FORMS = frozenset("inc ltd llc corp co plc gmbh ag sa sas sarl srl bv nv".split())
# "Total hors TVA", "excluding tax", "ohne MwSt": an amount without the thing asked about.
EXCLUDING = re.compile(r"\b(?:hors|excl(?:uding|\.)?|without|before|sans|ohne|sin|net of)\s+(\w+)")
_WORDS = re.compile(r"\w+")
# Words a label may hold beside the question's own: "Surname/Nom/Apellidos" names, it does not answer; nor does
# "PAYER'S TIN" (an identifier's label, its digits elsewhere) say who the payer is.
IDENTIFIER_WORDS = frozenset(map(stem, "id tin ssn ein code number no".split()))
# What is said of a thing ("the business name", "the business address"): one of them asked is not another.
ATTRIBUTES = frozenset(
    map(
        stem,
        "name surname address number date phone telephone email city state country zip code signature title gender sex "
        "age nationality occupation".split(),
    )
)
LABEL_WORDS = frozenset(map(stem, "name names nom nombre date value field label".split())) | IDENTIFIER_WORDS


@functools.lru_cache(maxsize=8192)
def folded(text: str) -> str:
    return fold(text)


@functools.lru_cache(maxsize=8192)
def claim_words(text: str) -> Words:
    """A claim's or a passage's words as the focus is looked for in them: the verifier's content words of the same
    text (`language.lexical`, cached: it reads every claim and cited segment), stemmed, and its abbreviations (EXP);
    a German compound ("Gesamtbetrag") is read as `words_of` reads it."""
    if has_compound(text):
        return words_of(text)
    words = content_words(text)
    return Words(frozenset(map(stem, words)), abbreviations_of(text), words)


@functools.lru_cache(maxsize=8192)
def names_of(text: str) -> Words:
    """A text's words and initials, without stems: what a name is looked for in (a tenth of `words_of`'s work)."""
    words = frozenset(w.casefold() for w in _WORDS.findall(text))
    return Words(frozenset(), frozenset(), words, initials_of(text))


def names_held(name: tuple[str, ...], words: Words) -> bool:
    """A name is spoken of: all its telling words are there, or it is the initials of words that are ("IBM":
    International Business Machines). A lone letter tells nothing ("Tool A" is a row), except beside a number: the
    "G" of "1099-G" is not a 1099-DIV."""
    numbered = any(w.isdigit() for w in name)
    telling = tuple(w for w in name if (len(w) > 1 or numbered) and w not in LEGAL_FORMS) or name
    held = sum(w in words.tokens or (len(w) >= 4 and any(t.startswith(w) for t in words.tokens)) for w in telling)
    if held == len(telling):
        return True
    return len(telling) == 1 and telling[0].isalpha() and telling[0] in words.initials


def excluded_by(text: str) -> frozenset[str]:
    """The stems a text excludes: "tva" of "Total hors TVA", "tax" of "excluding tax"."""
    low = folded(text)
    if not (
        "hors" in low
        or "excl" in low
        or "without" in low
        or "before" in low
        or "sans" in low
        or "ohne" in low
        or "sin " in low
        or "net of" in low
    ):  # (`EXCLUDING`'s words, without a generator: every claim comes here)
        return frozenset()
    return frozenset(stem(m.group(1)) for m in EXCLUDING.finditer(low))
