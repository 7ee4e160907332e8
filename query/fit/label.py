"""The label-only check: a claim that is only a label ("Surname/Nom/Apellidos", "Tax (10%):", "Apartment #"), a
form's printed caption or instruction, or a table's header row holds no value: it answers nothing."""

from __future__ import annotations

import re

from query.fit.asked import Asked
from query.fit.verdict import LABEL_FIT, Fit
from query.fit.words import LABEL_WORDS, claim_words
from query.language.question import Kind, stem
from query.language.terms import STOPWORDS

LABEL_CHARS = 80  # a label is short: a longer claim says something
FRAGMENT_WORDS = 3  # a fragment is this short at most (a longer run of words may well answer)
_VERB_WORDS = frozenset("is are was were be been has have had does do did can will may must".split())
_VERB_ENDINGS = ("ed", "es", "ing")
# Words no sentence or clause ends on: an article, a preposition, an auxiliary ("… has been", "… for the").
_CUT_ENDS = frozenset(
    "a an the and or of to in on at by for with from that which as has have had been be is are was".split()
)
HEADER_WORDS = 5
_DIGIT = re.compile(r"\d")
_WORDS = re.compile(r"\w+")
# A form's instruction ending a claim: the label printed before a value the claim does not hold.
_INSTRUCTION_END = re.compile(
    r"(?:\bsee instr(?:uctions?|\.)|\bfrom instructions|\bcheck here|\bleave blank|\bif checked)\W*$", re.IGNORECASE
)
_INSTRUCTION_TAIL = 40  # (the claim's last characters, where one of its words must be for the pattern to read it)
# Words of a form's printed caption: three of them, and no digit, and it is a caption, not a value.
_BOX_CODE = re.compile(r"^\s*\d{1,2}[a-z]?\b")  # a form's box number opening its caption
_CAPTION_HINTS = ("name", "address", "street", "city", "town", "state", "province", "country", "zip", "code")
_CAPTION_FILLER = frozenset(map(stem, "including incl apt no suite room or and of each if".split()))
_CAPTION_WORDS = frozenset(map(stem, "name address street city town state province country zip code".split()))


class LabelCheck:
    """Fails a claim that holds nothing but the question's words, their synonyms and label words, or a closing
    colon."""

    def __init__(self, asked: Asked):
        self.asked = asked

    def __call__(self, text: str) -> Fit | None:
        if self.is_label(text):
            return Fit(LABEL_FIT, "the answer is a label with no value")
        if self.is_fragment(text):
            return Fit(LABEL_FIT, "the answer is a fragment: no verb, no label, no value")
        return None

    def is_fragment(self, text: str) -> bool:
        """Words cut out of a sentence or a line of code: a clause cut before its end ("the default value for the
        --dsymutil option has been"), or, where the question asks for no kind of value a bare value would be, a few
        lower-case words, no label, no number, no name, no verb ("real opacity")."""
        last = _WORDS.findall(text.rstrip(" .;,"))[-1:]
        if last and last[0].casefold() in _CUT_ENDS and not text.rstrip().endswith((".", "?", "!", ")", '"')):
            return True
        if any(p.kind is not Kind.ANY for p in self.asked.parts):
            return False
        words = _WORDS.findall(text)
        if not words or len(words) > FRAGMENT_WORDS or _DIGIT.search(text) or any(mark in text for mark in ":=|"):
            return False
        return all(w.islower() and w not in _VERB_WORDS and not w.endswith(_VERB_ENDINGS) for w in words)

    def is_label(self, text: str) -> bool:
        """Nothing in the claim but the question's words, their synonyms and label words, or a closing colon."""
        stripped = text.strip()
        tail = stripped[-_INSTRUCTION_TAIL:].casefold()  # (`_INSTRUCTION_END`'s words, looked for in the tail first)
        if ("instr" in tail or "check" in tail or "blank" in tail) and _INSTRUCTION_END.search(stripped):
            return True  # a form's printed line, up to its instruction: "… (see instructions) B Enter code from …"
        if _is_caption(stripped) or _is_header(stripped, self.asked.known):
            return True  # "PAYER'S name, street address, city or town, state …": a form's printed caption
        if len(stripped) > LABEL_CHARS or _DIGIT.search(stripped):
            return False  # "Tax (10%):" answers a question about the rate (the kind check says whether it is asked)
        if stripped.endswith((":", "#")):  # "Apartment #": a number's label, no number
            return True
        pieces = [piece for piece in stripped.split("/") if piece.strip()] if "/" in stripped else []
        if pieces and not re.search(r"\b[A-Z]{2,}", stripped) and any(self.is_label(piece) for piece in pieces):
            return True  # "Nationality/Nationalité/Nacionalidad": one label in three languages
        claim = claim_words(stripped)
        new = {s for s in claim.stems if s not in self.asked.forms and s not in LABEL_WORDS}
        new = {s for s in new if s not in self.asked.known}
        return not new and bool(claim.stems or claim.tokens)


def _is_caption(text: str) -> bool:
    """A form's caption names the fields of a box ("PAYER'S name, street address, city or town, state or province,
    country, ZIP"): three field words or more, no digit."""
    text = _BOX_CODE.sub("", text)  # "1a Physical address of each property (street, city, state, ZIP code)"
    if _DIGIT.search(text):
        return False
    low = text.casefold()
    if sum(hint in low for hint in _CAPTION_HINTS) < 2:
        return False  # (most claims name no two fields: no stemming)
    words = {stem(w) for w in _WORDS.findall(low)}
    if len(words & _CAPTION_WORDS) >= 3:
        return True
    # "Street address (including apt. no.)": field words and the instruction's, nothing else
    return len(words & _CAPTION_WORDS) >= 2 and words <= _CAPTION_WORDS | _CAPTION_FILLER | STOPWORDS


def _is_header(text: str, known: frozenset[str]) -> bool:
    """A table's header row, "METER NO. BILLING PERIOD DAYS CURRENT PREVIOUS CONSTANT KWH": capitals, no digit, five
    words or more, two of them the question's: the columns' names, no value."""
    if not text.isupper() or _DIGIT.search(text):  # (most claims: lower case, or a digit)
        return False
    words = _WORDS.findall(text)
    if len(words) < HEADER_WORDS or not all(w.isupper() for w in words):
        return False
    return sum(w.casefold() in known for w in words) >= 2
