"""The scope check: the answer comes from the document the question asks about. A file the question names is the
cited one; a year it gives is the answer's; a phrase it quotes is said; a name it gives ("John Smith's invoice", "the
Office Depot receipt", "the IBM patent") is spoken of where the cited segment is (`ScopeWords`: the segment, its
neighbours and its document's head), by all its words or their initials; the words describing the document ("the
health intake form") are said by it where another document of the context says them; a kind of document it names
("the invoice") is what the cited document is, when another document of the context is one."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ingest import Segment
from query.fit.asked import YEAR, Asked, file_stem
from query.fit.documents import ScopeWords
from query.fit.verdict import SCOPE_FIT, Fit
from query.fit.words import LEGAL_FORMS, claim_words, folded, names_held, names_of
from query.language.question import Clue, Words, read_question, stem
from query.language.terms import STOPWORDS, fold

# Kinds of documents a question may name as its scope ("the invoice total", "the passport's surname").
DOCUMENT_KINDS = frozenset(
    map(
        stem,
        # (kinds a document says it is: an invoice says INVOICE; a receipt or a bill seldom says so)
        "invoice passport license licence patent facture factura rechnung pasaporte passeport".split(),
    )
)
# A capitalized word right after a name on its line: "Singapore" of "Google Singapore".
_QUALIFIER = re.compile(r"[ \t]+[A-Z]\w")
_SHORT_YEAR_DATE = re.compile(r"\b\d{1,2}/\d{1,2}/(\d\d)\b")  # 4/24/18
_WORDS = re.compile(r"\w+")


class ScopeCheck:
    """The scope of one question, checked on the segments claims cite. `scope_words(segment)`: the words of the part
    of its document a segment belongs to; `context_words`: all the context's words (or how to get them, when
    needed): which kinds of documents the context holds."""

    def __init__(self, asked: Asked, scope_words: ScopeWords, context_words: Words | Callable[[], Words] | None = None):
        self.asked = asked
        self._scope_words = scope_words
        self._context_words = context_words

    def __call__(self, text: str, segments: Sequence[Segment]) -> Fit | None:
        """The file the question names is the cited one's; the year it gives is the answer's; the phrase it quotes is
        said; every name it gives is spoken of where a cited segment is (`ScopeWords`); the words describing its
        document are said by the cited one; and a kind of document it names ("the invoice total") is what that
        document is (a receipt's total is no answer to the invoice's)."""
        if not segments:
            return None
        return (
            self._file_fit(segments)
            or self._other_year(text)
            or self._unquoted(segments, text)
            or self._names_fit(segments, text)
            or self._claim_names_fit(segments, text)
            or self._undescribed(segments, text)
            or self._kind_of_document(segments, text)
        )

    def _names_fit(self, segments: Sequence[Segment], text: str) -> Fit | None:
        """Every name the question gives is spoken of where a cited segment is; a row it names ("Service B") is the
        claim's or its passage's; a one-word name is not said by the cited document only within a longer one."""
        if not self.asked.scope_names:
            return None
        missing = self._missing_names(segments, workspace=False)  # the context first: no lookup
        if missing:
            missing = self._missing_names(segments, workspace=True)
        # "Service B", "Tool A": a name with a letter names one row, which the claim or its passage holds
        places = [fold(text), *(fold(s.text) for s in segments)]
        missing += [
            " ".join(n)
            for n in self.asked.scope_names
            if _row_name(n, self.asked.text)
            and not any(re.search(r"(?<!\w)" + r"\W+".join(map(re.escape, n)) + r"(?!\w)", p) for p in places)
        ]
        if missing:
            return Fit(
                SCOPE_FIT, f"the question names {', '.join(dict.fromkeys(missing))}; the cited document does not"
            )
        rows = [n for n in self.asked.scope_names if _row_name(n, self.asked.text)]
        if rows and (other := next(filter(None, (_other_row(n, places[0]) for n in rows)), None)):
            asked = " ".join(next(n for n in rows if _other_row(n, places[0]) == other))
            return Fit(SCOPE_FIT, f"the question names {asked}; the answer speaks of {other}")
        if other := self._named_otherwise(segments):
            return Fit(SCOPE_FIT, f"the question names {other}; the cited document names {other} only in a longer name")
        return None

    def _kind_of_document(self, segments: Sequence[Segment], text: str) -> Fit | None:
        """A kind of document the question names ("the invoice") is what the cited document is, where another
        document of the context is one."""
        kinds = [c for c in self.asked.question.clues if c.forms & DOCUMENT_KINDS]
        if not kinds:
            return None
        held = claim_words(text)
        # (only where another document is one: a context that never says "invoice" cannot tell)
        kinds = [c for c in kinds if not held.holds(c) and self.context_holds(c)]
        documents = [self._scope_words(s, stems=True) for s in segments] if kinds else []
        missing = [c.word for c in kinds if not any(d.holds(c) for d in documents)]
        if missing:
            return Fit(SCOPE_FIT, f"the question asks about {', '.join(missing)}; the cited document is none")
        return None

    def _file_fit(self, segments: Sequence[Segment]) -> Fit | None:
        """A question naming a file is answered from that file (where the documents' file names are known)."""
        if not self.asked.files or self.asked.filenames is None:
            return None
        cited = sorted({self.asked.filenames[s.document_id] for s in segments if s.document_id in self.asked.filenames})
        asked = {file_stem(f) for f in self.asked.files}
        if not cited or any(file_stem(name) in asked for name in cited):
            return None
        return Fit(
            SCOPE_FIT, f"the question names {', '.join(self.asked.files)}; the cited document is {', '.join(cited)}"
        )

    def _other_year(self, text: str) -> Fit | None:
        """A year the question gives ("in April 2017") is the answer's, where the answer dates itself: a row of
        3/23/18-4/24/18 is another year's."""
        asked = self.asked.years
        if not asked:
            return None
        said = {int(y) for y in YEAR.findall(text)}
        said |= {2000 + int(m.group(1)) for m in _SHORT_YEAR_DATE.finditer(text)}
        if not said or said & asked:
            return None
        years = ", ".join(map(str, sorted(said)))
        return Fit(SCOPE_FIT, f"the question asks about {', '.join(map(str, sorted(asked)))}; the answer is of {years}")

    def _unquoted(self, segments: Sequence[Segment], text: str) -> Fit | None:
        """A phrase the question quotes ('My name', « Les ARN de transfert … ») is what it asks about: the answer or
        its passage says it (most of its words)."""
        quotes = self.asked.quotes
        if not quotes:
            return None
        places = [folded(text), *(folded(s.text) for s in segments)]
        for quote in quotes:
            words = [w for w in _WORDS.findall(folded(quote)) if w not in STOPWORDS or len(quote.split()) <= 3]
            if not words:
                continue
            if not any(
                sum(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", p) is not None for w in words) * 2 > len(words)
                for p in places
            ):
                return Fit(SCOPE_FIT, f"the question quotes “{quote.strip()}”; the answer's passage does not say it")
        return None

    def _undescribed(self, segments: Sequence[Segment], text: str) -> Fit | None:
        """The words the question describes its document with ("the health intake form", "the printer receipt",
        "the payment stub") that the cited document never says, where another document of the context does: a tax
        form's postal code does not answer the health intake form's. (Lower-case words only: a name is checked as a
        name; and only where the context tells: a context that never says "intake" cannot.)"""
        phrase, clues = self.asked.described
        if not clues:
            return None
        held = claim_words(text)
        lacking = [c for c in clues if not held.holds(c)]
        documents = [self._scope_words(s, stems=True) for s in segments] if lacking else []
        missing = [c for c in lacking if not any(d.holds(c) for d in documents)]
        if not missing:
            return None
        cited = {s.document_id for s in segments}
        others = [claim_words(s.text) for s in self._scope_words.context if s.document_id not in cited]
        if not any(o.holds(c) for o in others for c in missing):
            return None  # (no other document says them either: the context cannot tell)
        words = ", ".join(c.word for c in missing)
        return Fit(SCOPE_FIT, f"the question asks about the {phrase}; the cited document does not say {words}")

    def _named_otherwise(self, segments: Sequence[Segment]) -> str | None:
        """A one-word name of a document ("the Google invoice") the cited document says only within a longer one
        ("Google Singapore"), while another document of the context says it alone ("Google\nINVOICE"): that one is
        meant. (Only a name the question gives a kind of document: a person's first name is seldom said alone.)"""
        for name in self.asked.scope_names:
            telling = [w for w in name if len(w) > 1 and w not in LEGAL_FORMS]
            if len(telling) != 1 or not _names_a_document(telling[0], self.asked.text):
                continue
            word = telling[0]
            cited = {s.document_id for s in segments}
            texts = [t for s in segments for t in self._scope_words.texts(s)]
            if _said_alone(word, texts) is not False:
                continue  # (said alone there, or not said as a word: initials, a katakana name)
            others = [s.text for s in self._scope_words.context if s.document_id not in cited]
            if _said_alone(word, others):
                return word
        return None

    def _missing_names(
        self, segments: Sequence[Segment], *, workspace: bool, names: Sequence[tuple[str, ...]] | None = None
    ) -> list[str]:
        """The names (the question's, by default) that no cited segment's part of its document speaks of. (The
        claim saying a name proves nothing: a model writes "the EDF invoice" of any invoice.)"""
        places = [self._scope_words(s, workspace=workspace) for s in segments]
        wanted = self.asked.scope_names if names is None else names
        return [" ".join(n) for n in wanted if not any(names_held(n, p) for p in places)]

    def _claim_names_fit(self, segments: Sequence[Segment], text: str) -> Fit | None:
        """A name the claim gives beyond the question's ("The EDF invoice will be debited …" citing Company ABC's
        invoice) is spoken of by the cited document: a claim about another document backs nothing it cites."""
        asked = self.asked.scope_names
        names = [n for n in _claim_names(text) if not any(names_held(n, names_of(" ".join(a))) for a in asked)]
        if not names or not (missing := self._missing_names(segments, workspace=False, names=names)):
            return None
        claimed = [n for n in names if " ".join(n) in missing]
        if missing := self._missing_names(segments, workspace=True, names=claimed):
            return Fit(SCOPE_FIT, f"the answer names {', '.join(missing)}; the cited document does not")
        return None

    def context_holds(self, clue: Clue) -> bool:
        if self._context_words is None:
            return True
        if callable(self._context_words):
            self._context_words = self._context_words()
        return self._context_words.holds(clue)


_DOCUMENT_NOUNS = (
    r"invoice|receipt|bill|statement|patent|licen[cs]e|contract|passport|facture|factura|rechnung|quittung|recibo"
)


def _claim_names(text: str) -> tuple[tuple[str, ...], ...]:
    """The names a claim gives, read as a question's are: runs of capitalized words, not its opening word, not a
    date; not a run holding a number (a value: "42 GWh", "1,000円"), which the claim states rather than names."""
    return tuple(n for n in read_question(text).names if not any(ch.isdigit() for w in n for ch in w))


def _names_a_document(word: str, question: str) -> bool:
    """ "the Google invoice", "Google's receipt": the word names a document the question asks about."""
    return re.search(rf"(?<!\w){re.escape(word)}(?:['’]s)?\s+(?:{_DOCUMENT_NOUNS})", fold(question)) is not None


def _said_alone(word: str, texts: Iterable[str]) -> bool | None:
    """Whether `word` is said somewhere in `texts` as a name of its own, not followed on its line by another
    capitalized word ("Google Singapore"); None when it is not said (an e-mail address or a web site does not
    count: "accounts@google.com")."""
    pattern = re.compile(rf"(?<![\w@./-]){re.escape(word)}(?![\w@])", re.IGNORECASE)
    said = False
    for text in texts:
        for match in pattern.finditer(text):
            if text[match.end() : match.end() + 1] == ".":
                continue  # "google.com"
            said = True
            if not _QUALIFIER.match(text, match.end()):
                return True
    return False if said else None


def _row_name(name: tuple[str, ...], question: str) -> bool:
    """ "Service B", "Tool A", "Item 3": words, then a letter or a short number written apart (not "SCE&G")."""
    last = name[-1] if name else ""
    if len(name) < 2 or not ((len(last) == 1 and last.isalpha()) or (last.isdigit() and len(last) <= 3)):
        return False
    return re.search(r"(?<!\w)" + r"\s+".join(map(re.escape, name)) + r"(?!\w)", fold(question)) is not None


def _other_row(name: tuple[str, ...], claim: str) -> str | None:
    """The row a (folded) claim speaks of when it is another one of the same label and never the one asked: "item 1"
    for "Item 3", "tool b" for "Tool A"."""
    label = r"\W+".join(map(re.escape, name[:-1]))
    if re.search(r"(?<!\w)" + label + r"\W+" + re.escape(name[-1]) + r"(?!\w)", claim):
        return None
    other = re.search(r"(?<!\w)" + label + r"\W+\w{1,3}(?!\w)", claim)
    return other.group() if other else None
