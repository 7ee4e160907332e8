"""What a question is about: its *subject*, the document, party or thing it names ("Google invoice #23413561D for
Jane Smith", "la facture EDF de Maëlle et Jérôme Guérin", "des IBM-Patents US 10,142,938 B2"), found by the names it
gives and the kinds of documents it speaks of, with the phrase that says it as the question wrote it.

A subject is not what is asked ("the total", "der Primary Examiner"): that comes first in a question, the subject
after it, introduced by a preposition ("on", "sur", "des"), or fronted in a clause of its own ("On the Happy Traveler
US passport specimen, what is …"). A question whose first words are its subject ("How much is the EDF electricity
bill for the Guérin household?") asks about the whole of it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from query.conversation.words import (
    CLAUSE_VERBS,
    CONNECTIVES,
    DETERMINERS,
    FIELD_WORDS,
    OPENERS,
    PREPOSITIONS,
    document_kind,
    language_of,
)
from query.language.question import read_question
from query.language.terms import QUESTION_WORDS, STOPWORDS, fold

_TOKEN = re.compile(r"\w+")
# (not the comma of a number: "US 10,142,938")
_CLAUSE_END = re.compile(r"[,:;](?!\d)|[?？!]|\s[-–—]\s")
# A name's words that make it a number of something rather than a row: "NO. 001", "Nr. 12".
_NUMBER_WORDS = frozenset("no nr n num number numero nummer".split())
_ASKED_SUFFIX = re.compile(r"[\s?？.!]*$")
# A verb's past participle in English: regular, or one of the irregular ones questions ask through.
_PARTICIPLE = re.compile(
    r"[a-z]{2}ed$|^(?:paid|sent|made|written|given|bought|sold|held|built|shown|done|taken|drawn|spent|kept|brought)$"
)
# Words that ask ("list the items") and are nouns after a noun ("the packing list", "the price list").
_NOUNS_AFTER_A_NOUN = frozenset({"list", "liste"})


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    folded: str  # case-folded, accents off: compared with the answerer's word lists
    lower: str  # case-folded, accents kept: compared with words an accent tells apart ("él", "el")


@dataclass(frozen=True)
class Subject:
    """A subject as a question wrote it: `phrase` ("on Google invoice #23413561D for Jane Smith"), its `preposition`
    ("on", or "" where it had none) and `noun_phrase` (the phrase without it); the `names` it gives (case-folded word
    tuples) and the `kinds` of documents it speaks of ("invoice")."""

    phrase: str
    preposition: str
    noun_phrase: str
    names: frozenset[tuple[str, ...]]
    kinds: frozenset[str]


@dataclass(frozen=True)
class Reading:
    """What a question gives of a subject: its tokens, its language, the names that may be a subject's (not its
    opening word, not a German noun, not a row such as "Tool A") with the tokens they cover, and the tokens that name
    a kind of document, with that kind."""

    text: str
    language: str
    tokens: list[Token]
    names: dict[tuple[str, ...], list[int]]
    kinds: dict[int, str]

    @property
    def elements(self) -> list[int]:
        """The tokens of names and kinds of documents, in order."""
        return sorted({i for covered in self.names.values() for i in covered} | set(self.kinds))

    def is_content(self, index: int) -> bool:
        """A word that says what a phrase is about: not a stopword, a question word or a verb; a single letter only
        within a name ("SCE&G")."""
        word = self.tokens[index].folded
        if len(word) == 1 and not word.isdigit():
            return any(index in covered for covered in self.names.values())
        if word in _NOUNS_AFTER_A_NOUN and index > 0 and self.is_content(index - 1):
            return True  # ("the Logitech packing list", not "did she list")
        return word not in STOPWORDS and word not in QUESTION_WORDS and word not in CLAUSE_VERBS

    def clause_end(self, index: int) -> int:
        """The offset where the clause holding token `index` ends (a comma, a colon, the question mark)."""
        found = _CLAUSE_END.search(self.text, self.tokens[index].end)
        return found.start() if found else len(self.text)


@functools.lru_cache(maxsize=1024)
def read(text: str) -> Reading:
    """A question read for its subject (cached: a conversation's earlier questions are read again at each turn; the
    Reading is not changed by anyone)."""
    language = language_of(text)
    words = _TOKEN.finditer(text)
    tokens = [Token(w.group(), w.start(), w.end(), fold(w.group()), w.group().casefold()) for w in words]
    names: dict[tuple[str, ...], list[int]] = {}
    for name in read_question(text).names:
        covered = _find(tokens, name)
        if covered and covered[0] == 0 and tokens[0].folded in CONNECTIVES:
            name, covered = name[1:], covered[1:]  # ("Now Company ABC's invoice: …": the name is "Company ABC"; "OK")
        if covered and _names_a_subject(name, covered, tokens, language):
            names[name] = covered
    kinds = {}
    for i, token in enumerate(tokens):
        kind = document_kind(token.text, language)
        if kind and not _modifies(i, tokens):
            kinds[i] = kind
    return Reading(text, language, tokens, names, kinds)


def _find(tokens: list[Token], name: tuple[str, ...]) -> list[int]:
    """The indexes of the tokens spelling `name` (its first occurrence), [] where the text does not spell it so (a
    name the reader found in its rewritten text: a German compound's part)."""
    words = [fold(w) for w in name]
    for start in range(len(tokens) - len(words) + 1):
        if all(tokens[start + k].folded == w for k, w in enumerate(words)):
            return list(range(start, start + len(words)))
    return []


def _names_a_subject(name: tuple[str, ...], covered: list[int], tokens: list[Token], language: str) -> bool:
    """A name a subject may be given by: not a question's capitalized opening word ("Switching to …"), not a German
    noun (German capitalizes every noun: "Beruf", "Telefon"), not a row of a table ("Tool A", "Item 3")."""
    written = [tokens[i].text for i in covered]
    telling = len(name) > 1 or any(w.isupper() or any(c.isdigit() for c in w) for w in written)
    if covered[0] == 0 and not telling:
        return False
    if language == "de" and not telling:
        return False
    last = name[-1]
    row = len(name) > 1 and (len(last) == 1 or (last.isdigit() and len(last) <= 3))
    return not (row and fold(name[0]) not in _NUMBER_WORDS)


def _modifies(index: int, tokens: list[Token]) -> bool:
    """A kind of document that names a field of it ("license number", "passport number", "invoice date") is a field's
    name, not a document's ("that bill due", "facture EDF", "invoice #12" are documents)."""
    return index + 1 < len(tokens) and tokens[index + 1].folded in FIELD_WORDS


def subject_of(reading: Reading) -> Subject | None:
    """The subject a question names, or None where it names none."""
    elements = reading.elements
    if not elements:
        return None
    start = _fronted_start(reading, elements)
    if start is not None and _is_transition(reading, start):
        return subject_of(read(reading.text[reading.clause_end(start) + 1 :]))
    if start is not None:
        first, end = start, reading.clause_end(elements[0])
    else:
        first = _subject_start(reading, elements)
        first = _extend_left(reading, first)
        end = _extend_right(reading, [e for e in elements if e >= first])
    return _subject(reading, first, end)


def _fronted_start(reading: Reading, elements: list[int]) -> int | None:
    """A subject in a clause of its own before the question ("On the Happy Traveler US passport specimen, what …",
    "Switching to Company ABC's invoice: what's …"): the token it starts at (its preposition, else its first
    determiner or word), or None where the question does not open so."""
    tokens = reading.tokens
    clause = _CLAUSE_END.search(reading.text)
    while clause and all(t.folded in CONNECTIVES for t in tokens if t.end <= clause.start()):
        clause = _CLAUSE_END.search(reading.text, clause.end())  # ("OK, now the US passport …: when …")
    if clause is None or clause.group().strip() in "?？!" or tokens[0].folded in OPENERS:
        return None
    before = [i for i, t in enumerate(tokens) if t.end <= clause.start()]
    inside = [e for e in elements if e in before]
    rest = reading.text[clause.end() :]
    if not inside or not _TOKEN.search(rest):
        return None
    first_element = inside[0]
    prepositions = [i for i in before if i < first_element and tokens[i].folded in PREPOSITIONS]
    if prepositions:
        return prepositions[0]
    opening = [i for i in before if i <= first_element and tokens[i].folded not in CONNECTIVES]
    return opening[0] if opening else first_element


def _is_transition(reading: Reading, start: int) -> bool:
    """A fronted clause that names no name, only a kind of document ("Different bill now:", "Next invoice:"), where
    the rest of the question names one: it says the topic changes, and the rest says to what."""
    end = reading.clause_end(start)
    clause = [i for i, t in enumerate(reading.tokens) if i >= start and t.end <= end]
    if any(set(covered) & set(clause) for covered in reading.names.values()):
        return False
    return any(reading.tokens[covered[0]].start > end for covered in reading.names.values())


def _subject_start(reading: Reading, elements: list[int]) -> int:
    """The token a subject after the question's asked thing starts at. The asked thing is the first run of content
    words; where its first word is already the subject's ("the EDF electricity bill") and the run names a kind of
    document, the question asks about the whole subject."""
    contents = [i for i in range(len(reading.tokens)) if reading.is_content(i)]
    head = contents[0] if contents else elements[0]
    if head not in elements:
        return next((e for e in elements if e > head), elements[0])
    run = _run(reading, head)
    if any(i in reading.kinds for i in run):
        return head
    later = [e for e in elements if e > run[-1]]
    return later[0] if later else head


def _run(reading: Reading, start: int) -> list[int]:
    """The tokens of the run of content words from `start` (a stopword, a question word or a verb ends it)."""
    run = [start]
    while run[-1] + 1 < len(reading.tokens) and reading.is_content(run[-1] + 1):
        run.append(run[-1] + 1)
    return run


def _extend_left(reading: Reading, first: int) -> int:
    """From the subject's first element leftwards over its noun phrase's words (determiners, qualifying words: "the
    health intake form") up to its preposition, never into the asked thing before it."""
    tokens = reading.tokens
    contents = [i for i in range(len(tokens)) if reading.is_content(i)]
    asked_end = _run(reading, contents[0])[-1] if contents and contents[0] < first else -1
    i = first
    while i - 1 > asked_end:
        word = tokens[i - 1].folded
        if word in PREPOSITIONS:
            return i - 1
        if word in DETERMINERS or reading.is_content(i - 1):
            i -= 1
            continue
        break
    return i


def _extend_right(reading: Reading, elements: list[int]) -> int:
    """The offset the subject ends at: its last element in the clause it starts in, then what qualifies it ("for the
    laptop cooling mat", "from boulevard Saint-Michel"); never a verb, never a German question's closing verb."""
    tokens = reading.tokens
    limit = reading.clause_end(elements[0])
    last = max(e for e in elements if tokens[e].end <= limit)
    i = _run(reading, last)[-1]  # ("the Guérin household")
    i = max(k for k in range(last, i + 1) if tokens[k].end <= limit)
    while i > last and reading.language == "en" and _PARTICIPLE.search(tokens[i].folded):
        i -= 1  # a verb after the noun phrase ("Who is the packing list shipped to?")
    while i + 1 < len(tokens) and tokens[i + 1].end <= limit and tokens[i + 1].folded in PREPOSITIONS:
        j = i + 2
        while j < len(tokens) and tokens[j].end <= limit and tokens[j].folded in DETERMINERS:
            j += 1
        if j >= len(tokens) or tokens[j].end > limit or not reading.is_content(j):
            break
        i = _run(reading, j)[-1]
    return tokens[i].end


def _subject(reading: Reading, first: int, end: int) -> Subject | None:
    tokens = reading.tokens
    covered = [i for i, t in enumerate(tokens) if i >= first and t.end <= end]
    if not covered:
        return None
    start = _with_sign(reading.text, tokens[first].start)
    phrase = _ASKED_SUFFIX.sub("", reading.text[start:end]).strip(" ,:;")
    preposition = tokens[first].text if tokens[first].folded in PREPOSITIONS else ""
    noun_phrase = phrase[len(preposition) :].strip() if preposition else phrase
    noun_phrase = re.sub(r"^['’]\s*", "", noun_phrase)  # ("d'": the elided preposition's mark)
    names = frozenset(n for n, at in reading.names.items() if set(at) <= set(covered))
    kinds = frozenset(k for i, k in reading.kinds.items() if i in covered)
    if not noun_phrase or not (names or kinds):
        return None
    return Subject(phrase, preposition, noun_phrase, names, kinds)


def _with_sign(text: str, start: int) -> int:
    """A subject's start with the sign written before its first word ("#23413561D", "«Harbor»")."""
    while start > 0 and text[start - 1] in "#№«\"'“":
        start -= 1
    return start
