"""What a question asks, as the checks read it: read once per question, since every claim is checked against it."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from query.fit.words import ATTRIBUTES
from query.language.question import (
    FILE_NAME,
    IDENTIFIER,
    Clue,
    Kind,
    Part,
    Question,
    asks_count,
    asks_how_much,
    read_question,
    stem,
)
from query.language.terms import fold

_AMOUNT_STEMS = frozenset(map(stem, "amount total sum montant betrag importe gesamt".split()))
_PER_UNIT = re.compile(r"\b(?:price|cost|charge|rate) per\b|\bper (?:kwh|hour|unit|month|day|year|item)\b")
# A height is asked, in the languages the answerer reads.
_HEIGHT = re.compile(r"\bhow tall\b|\bheight\b|\btaille\b|\baltura\b|\bestatura\b|\bgrosse\b|\bkorpergrosse\b|身長")
YEAR = re.compile(r"(?<![\d/.-])((?:19|20)\d\d)(?![\d/])")
# 'My name', "Deep Thought", «Les ARN…», “…”: quoted words (an apostrophe inside a word is no quote).
_QUOTED = re.compile(r"(?<!\w)['‘]([^'’]{2,80})['’](?!\w)|[\"“]([^\"”]{2,80})[\"”]|«\s*([^»]{2,120}?)\s*»")
_QUESTION_END = re.compile(r"(?<=[?？])")
# "on the health intake form", "from the SCE&G payment stub": the words describing the document asked of.
_DESCRIBED = re.compile(
    r"\b(?:on|in|of|from|for|according to)\s+(?:the|this|that|my|our|her|his|their)\s+((?:[\w&'’.-]+\s+){1,3}?)"
    r"(form|receipt|invoice|bill|stub|statement|letter|contract|agreement|patent|passport|licen[cs]e|list|report|"
    r"paper|article|schedule|certificate|card|return|slip|policy)s?\b"
)
_WORDS = re.compile(r"\w+")


class Asked:
    """A question read for the checks: its parts, the words it gives, what it asks of the answer's kind (a count, a
    height, an identifier, a price per unit), the years and phrases it quotes, the files and names it scopes to.
    `filenames`: document id -> its file's name, where known (a question naming a file is asked of it)."""

    def __init__(self, question: str | Question, filenames: Mapping[str, str] | None = None):
        self.question = read_question(question) if isinstance(question, str) else question
        self.text = self.question.text
        self.parts = tuple(self.question.parts)
        self.filenames = {k: v.casefold() for k, v in filenames.items()} if filenames is not None else None
        self.files = self._files()
        self.known = frozenset(w.casefold() for w in re.findall(r"\w+", self.text))  # the question's own words
        self.forms = frozenset(f for clue in self.question.clues for f in clue.forms)
        folded = fold(self.text)
        self.per_unit = _PER_UNIT.search(folded) is not None  # "the price per kWh": a rate
        self.asks_count = asks_count(self.text)
        self.asks_height = _HEIGHT.search(folded) is not None
        self.asks_identifier = IDENTIFIER.search(folded) is not None
        self.years = frozenset(int(y) for y in YEAR.findall(self.text))
        quoted = (m.group(1) or m.group(2) or m.group(3) for m in _QUOTED.finditer(self.text))
        self.quotes = tuple(q for q in quoted if q)
        self._specific = {id(p): _specific(p) for p in self.parts}
        self._attributes = {id(p): _attributes(p) for p in self.parts}

    def specific(self, part: Part) -> frozenset[str]:
        """The part's focus words that a value does not stand for ("tax", not "amount"): what it is about."""
        found = self._specific.get(id(part))
        return found if found is not None else _specific(part)

    def attributes(self, part: Part) -> frozenset[str]:
        """The attributes of a thing the part asks for ("name", "address"), stemmed."""
        found = self._attributes.get(id(part))
        return found if found is not None else _attributes(part)

    def counts(self, part: Part) -> bool:
        """ "How many days", "how much", "the total": a count or a quantity, not an identifier ("account number")."""
        return part.kind is Kind.AMOUNT or (part.kind is Kind.NUMBER and self.asks_count)

    def asks_amount(self, part: Part) -> bool:
        """ "How much", "the total", "the amount", "le montant": a sum of money, which a rate is not."""
        return asks_how_much(self.text) or any(c.forms & _AMOUNT_STEMS for c in part.focus)

    @functools.cached_property
    def scope_names(self) -> tuple[tuple[str, ...], ...]:
        """The names of the question itself: text pasted after its question mark names nothing it asks about."""
        head = _QUESTION_END.split(self.text, maxsplit=1)[0]
        names = self.question.names if head == self.text else read_question(head).names
        # (a known file's name read as a name, "invoice_sharded_48p": the file check is its scope)
        return tuple(n for n in names if not any(all(w in f for w in n) for f in self.files))

    @functools.cached_property
    def described(self) -> tuple[str, tuple[Clue, ...]]:
        """The phrase naming the document the question asks of ("on the health intake form"), and the clues of its
        lower-case describing words ("health", "intake"): what the cited document must say."""
        match = _DESCRIBED.search(self.text)
        if match is None:
            return "", ()
        words = [w for w in _WORDS.findall(match.group(1)) if w.islower() and len(w) > 2 and not w.isdigit()]
        clues = tuple(c for c in self.question.clues if c.word in {fold(w) for w in words})
        return " ".join([*match.group(1).split(), match.group(2)]), clues

    def _files(self) -> tuple[str, ...]:
        """The files the question names: those written with an extension, and any known file's name it holds as a
        word (a folder of shards is named without one)."""
        files = list(self.question.files)
        if self.filenames:
            text = self.text.casefold()
            files += [name for name in set(self.filenames.values()) if _names_word(text, name)]
        return tuple(dict.fromkeys(files))


_NAME_CHAR = re.compile(r"[\w.-]")


def _names_word(text: str, name: str) -> bool:
    """Whether `text` holds `name` with no word character, dot or dash on either side. Found by substring, not by a
    pattern per name: a workspace of 12,000 documents compiled 12,000 patterns per question (1.8 s)."""
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or not _NAME_CHAR.match(text[start - 1])) and (
            end == len(text) or not _NAME_CHAR.match(text[end])
        ):
            return True
        start = text.find(name, start + 1)
    return False


def file_stem(name: str) -> str:
    """ "report.pdf" and "report" name one file (a question may leave the extension out, or a folder have none)."""
    return name.rsplit(".", 1)[0] if FILE_NAME.fullmatch(name) else name


def _specific(part: Part) -> frozenset[str]:
    return frozenset(c.word for c in part.focus if c.word not in part.generic)


def _attributes(part: Part) -> frozenset[str]:
    return frozenset({stem(c.word) for c in part.focus} & ATTRIBUTES)
