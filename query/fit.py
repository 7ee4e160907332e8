"""Question fit (design §5.9): does a claim answer the question, whatever wrote it?

`support` (query.verify) says whether the cited passage backs a claim; an extractive answer is copied from its
passage, so its support is always 1.0, and a label with no value or another document's total would look right.
The fit check reads the question (query.question) and asks of each section, in this order:
- a *not-found* statement ("I could not find…", "je ne sais pas", "わかりません") answers nothing: `not_found`;
- a *label* only ("Surname/Nom/Apellidos", "Tax (10%):"): the claim holds no word the question does not;
- the *kind* asked: a date for "when", money or a quantity for "how much" (a rate is no amount unless a rate is
  asked), a number for "how many", a name for "who", a phone number, an e-mail address;
- the *focus*: the thing asked about (or a synonym, in any language the answerer reads) is in the claim or the
  passage it cites ("the amount paid" is not a receiver's name);
- the *scope*: a name the question gives ("John Smith's invoice", "the Office Depot receipt", "the IBM patent")
  is spoken of where the cited segment is (`ScopeWords`: the segment, its neighbours and its
  document's head), by all its words or their initials; the words describing the document ("the health intake
  form") are said by it where another document of the context says them; a kind of document it names ("the
  invoice") is what the cited document is, when another document of the context is one.
`fit` is 1.0 when every check passes, else the score of the first that fails, with `fit_warning` saying why. The
offline answerer skips a candidate that fails (precision first); a model's section keeps its text and is flagged,
and the answer is `uncertain`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ingest import Segment, make_segment_id
from query.candidates import label_of
from query.lexical import content_words
from query.question import (
    FILE_NAME,
    IDENTIFIER,
    Clue,
    Kind,
    Part,
    Question,
    Words,
    abbreviations_of,
    asks_count,
    asks_how_much,
    asks_rate,
    has_compound,
    initials_of,
    read_question,
    stem,
    words_of,
)
from query.terms import STOPWORDS, fold
from query.values import is_money, value_spans

# Kinds of documents a question may name as its scope ("the invoice total", "the passport's surname").
DOCUMENT_KINDS = frozenset(
    map(
        stem,
        # (kinds a document says it is: an invoice says INVOICE; a receipt or a bill seldom says so)
        "invoice passport license licence patent facture factura rechnung pasaporte passeport".split(),
    )
)
_AMOUNT_STEMS = frozenset(map(stem, "amount total sum montant betrag importe gesamt".split()))
# "Inc." of "Cymbal Inc." tells no company from another.
_LEGAL_FORMS = frozenset("inc ltd llc corp co plc gmbh ag sa sas sarl srl bv nv".split())
# "Total hors TVA", "excluding tax", "ohne MwSt": an amount without the thing asked about.
_EXCLUDING = re.compile(r"\b(?:hors|excl(?:uding|\.)?|without|before|sans|ohne|sin|net of)\s+(\w+)")
_TIME = re.compile(r"\b\d{1,2}[:h]\d{2}\b")
_WORDS = re.compile(r"\w+")
# An amount after a run of words on its line: "Total Electric Charges $148.89" labels the amount.
_MONEY_NEXT = re.compile(r"[A-Za-z &'.\-]*?[ \t:|]*(?:[$€£¥]\s?\d|\d[\d,.]*\s?(?:€|eur\b|usd\b))", re.IGNORECASE)
_DAY_AND_YEAR = re.compile(r"(?<![\d.,])\d{1,2},\s*(?:1[89]|20)\d\d\b")
# A height is asked, in the languages the answerer reads; a text that says "height" or "HGT" labels its number.
_HEIGHT = re.compile(r"\bhow tall\b|\bheight\b|\btaille\b|\baltura\b|\bestatura\b|\bgrosse\b|\bkorpergrosse\b|身長")
_HEIGHT_SAID = re.compile(r"\bheight\b|\bhgt\b|\bht\b|\btaille\b|\baltura\b|\bestatura\b|\bgrosse\b|身長")
_LENGTH_UNIT = re.compile(
    r"\s?(?:['’′\"”]|-\d|ft\b|feet\b|foot\b|in\b|inch|cm\b|m\b|meters?\b|metres?\b)", re.IGNORECASE
)
_DIGIT = re.compile(r"\d")
# A capitalized word right after a name on its line: "Singapore" of "Google Singapore".
_QUALIFIER = re.compile(r"[ \t]+[A-Z]\w")
# A form's instruction ending a claim: the label printed before a value the claim does not hold.
_INSTRUCTION_END = re.compile(
    r"(?:\bsee instr(?:uctions?|\.)|\bfrom instructions|\bcheck here|\bleave blank|\bif checked)\W*$", re.IGNORECASE
)
_INSTRUCTION_TAIL = 40  # (the claim's last characters, where one of its words must be for the pattern to read it)
# A unit a number may count, right after it: "24 HOURS", "32 days", "909 kWh".
_UNIT = re.compile(
    r"\s?(hours?|hrs?|days?|weeks?|months?|years?|minutes?|mins?|seconds?|kwh|kw|kg|km|miles?|lbs?|pages?|items?)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<![\d/.-])((?:19|20)\d\d)(?![\d/])")
_SHORT_YEAR_DATE = re.compile(r"\b\d{1,2}/\d{1,2}/(\d\d)\b")  # 4/24/18
# 'My name', "Deep Thought", «Les ARN…», “…”: quoted words (an apostrophe inside a word is no quote).
_QUOTED = re.compile(r"(?<!\w)['‘]([^'’]{2,80})['’](?!\w)|[\"“]([^\"”]{2,80})[\"”]|«\s*([^»]{2,120}?)\s*»")
_PART_OR_CAPITAL = re.compile(
    r"\bcapital(?: social)?(?: de| of)?\s*$|\((?:dont|of which|davon|de los cuales|incl(?:uding|\.)?)\b[^)]*$",
    re.IGNORECASE,
)
_FAX_BEFORE = re.compile(r"\b(?:fax|telefax|télécopie)\b\W*$", re.IGNORECASE)
IDENTIFIER_DIGITS = 3  # an identifier's digits at the least ("3" is a box, "906" an area code)
# Words of a form's printed caption: three of them, and no digit, and it is a caption, not a value.
_BOX_CODE = re.compile(r"^\s*\d{1,2}[a-z]?\b")  # a form's box number opening its caption
_CAPTION_HINTS = ("name", "address", "street", "city", "town", "state", "province", "country", "zip", "code")
_CAPTION_FILLER = frozenset(map(stem, "including incl apt no suite room or and of each if".split()))
HEADER_WORDS = 5
_WORD_AFTER = re.compile(r"[ \t.]+(\w+)")  # the word after a number
_BOX = re.compile(r"\d{1,2}")  # a form's box number
_BOX_LINE = re.compile(r"\s*\d{1,2}[a-z]?\s+[A-Z][a-z]")
_CAPTION_NEXT = re.compile(r"\s+[A-Z][a-z]")  # "8 Tax-exempt"
_STREET_NEXT = re.compile(
    r"(?:\s+[A-Za-z][\w.'-]*){1,3}\s+(?:blvd|st|ave|rd|ln|dr|cir|ct|hwy|pkwy|street|avenue|road|lane|drive|boulevard"
    r"|court|place|way|rue|strasse|straße|calle)\b\.?",
    re.IGNORECASE,
)
_PER_UNIT = re.compile(r"\b(?:price|cost|charge|rate) per\b|\bper (?:kwh|hour|unit|month|day|year|item)\b")
_CAPTION_WORDS = frozenset(map(stem, "name address street city town state province country zip code".split()))
_TIER = re.compile(r"\b(?:first|next|over|above|up to|excess of|in excess of|beyond|additional)\s*$", re.IGNORECASE)
_UNIT_STEMS = {"hr": "hour", "hrs": "hour", "min": "minute", "mins": "minute", "lb": "lbs"}
# A rate said in words: "Rate", "per hour", "/hr", "taux", "Steuersatz".
# A price per unit: "X $ 0.136440" (a quantity times its price), "0,0974 €/kWh", "per hour", or four decimals.
_UNIT_PRICE = re.compile(r"\bx\s?[$€£]|/\s?(?:kwh|hr|hour|h|unit|day|month)\b|\bper\b|\d[.,]\d{4,}(?!\d)")
_RATE = re.compile(r"rate|\bper\b|\d\s?/\s?(?:hr|hour|h|day|month|year)\b|taux|tasa|satz|aliquota|taxa|percent")
NOT_FOUND_CHARS = 160  # "I could not find …": a short section (a long one says something, and may say this too)
LABEL_CHARS = 80  # a label is short: a longer claim says something
# A word of every phrase `_NOT_FOUND` knows (its cheap filter): "not", "t" of "don't", "kein", "わか"…
_NOT_FOUND_WORDS = frozenset(
    "not no t unable unknown ne n aucun aucune pas nicht kein keine keinen weiss weiß non nao não niet geen "
    "ninguna ninguno cannot".split()
)
_NOT_FOUND_CJK = tuple("わか 分か 見つ 記載 不明 不知 找不 没有 未 모르 찾을 없 لا لم غير".split())
_QUESTION_END = re.compile(r"(?<=[?？])")
_NONE: frozenset[str] = frozenset()
FIT_BAR = 0.5  # below: the section fails the check
NOT_FOUND_FIT, LABEL_FIT, KIND_FIT, RATE_FIT, FOCUS_FIT, SCOPE_FIT = 0.0, 0.1, 0.2, 0.2, 0.3, 0.2

ANSWERED, UNCERTAIN, NOT_FOUND = "answered", "uncertain", "not_found"

_KIND_NOUNS = {
    Kind.AMOUNT: "an amount",
    Kind.NUMBER: "a number",
    Kind.DATE: "a date",
    Kind.DURATION: "a duration",
    Kind.NAME: "a name",
    Kind.PHONE: "a phone number",
    Kind.EMAIL: "an e-mail address",
}
# Words a label may hold beside the question's own: "Surname/Nom/Apellidos" names, it does not answer; nor does
# "PAYER'S TIN" (an identifier's label, its digits elsewhere) say who the payer is.
_IDENTIFIER_WORDS = frozenset(map(stem, "id tin ssn ein code number no".split()))
# What is said of a thing ("the business name", "the business address"): one of them asked is not another.
_ATTRIBUTES = frozenset(
    map(
        stem,
        "name surname address number date phone telephone email city state country zip code signature title gender sex "
        "age nationality occupation".split(),
    )
)
# "on the health intake form", "from the SCE&G payment stub": the words describing the document asked of.
_DESCRIBED = re.compile(
    r"\b(?:on|in|of|from|for|according to)\s+(?:the|this|that|my|our|her|his|their)\s+((?:[\w&'’.-]+\s+){1,3}?)"
    r"(form|receipt|invoice|bill|stub|statement|letter|contract|agreement|patent|passport|licen[cs]e|list|report|"
    r"paper|article|schedule|certificate|card|return|slip|policy)s?\b"
)
_HEAD = re.compile(r"[^\d(:|\n]{0,60}")  # a claim's first words, up to a number, a bracket or a colon
_LABEL_WORDS = frozenset(map(stem, "name names nom nombre date value field label".split())) | _IDENTIFIER_WORDS
# "I don't know", "not found", "not mentioned", in the languages the answerer reads (case- and accent-folded).
_NOT_FOUND = re.compile(
    r"\b(?:could ?n[o']t|can ?n[o']t|unable to|did ?n[o']t|do ?n[o']t|does ?n[o']t) (?:find|locate|determine|know|say"
    r"|answer|mention|state|specify|contain|include|provide)"
    r"|\bno (?:information|mention|answer|data|record|details?)\b|\bnot (?:found|mentioned|stated|specified|provided"
    r"|available|given|listed|indicated|included|present|known)\b|\bi (?:don'?t|do not) know\b|\bunknown\b"
    r"|\bne (?:sais|trouve|mentionne|precise|contient|figure|indique)\b|\bn'(?:ai|est|y a|indique|apparait|figure)\b"
    r"|\baucune? (?:information|mention|donnee|reponse)\b|\bpas (?:trouve|mentionne|indique|precise|disponible)\b"
    r"|\bno (?:se|lo|la|encontre|encuentro|encontramos|hay|aparece|figura|consta|menciona|indica|sabemos)\b"
    r"|\bninguna? (?:informacion|mencion|dato)\b|\bnao (?:sei|encontrei|ha|consta|menciona|foi)\b"
    r"|\bnicht (?:gefunden|angegeben|erwahnt|enthalten|bekannt|verfugbar|finden|sagen)\b|\bweiss (?:ich )?nicht\b"
    r"|\bkeine? (?:angabe|information|informationen|antwort|hinweis)\b"
    r"|\bnon (?:so|trovo|ho trovato|e indicat|e menzionat|e specificat|risulta)\b|\bnessuna informazione\b"
    r"|\bweet (?:ik )?(?:het )?niet\b|\bniet (?:gevonden|vermeld|bekend)\b|\bgeen informatie\b"
    r"|わかりません|分かりません|見つかりません|見つけられません|記載されていません|記載がありません|不明"
    r"|不知道|找不到|没有找到|未找到|没有提到|未提及|모르겠|찾을 수 없|없습니다"
    r"|لا أعرف|لم أجد|غير مذكور"
)


@dataclass(frozen=True)
class Fit:
    score: float  # 0..1
    warning: str | None  # why it fails, or None
    not_found: bool = False  # the section says the answer was not found

    @property
    def fails(self) -> bool:
        return self.score < FIT_BAR


FITS = Fit(1.0, None)


def says_not_found(text: str) -> bool:
    """The text says it does not know, in any language the answerer reads. (Such a statement is short, and holds
    one of a few words: the full pattern only reads the texts that do.)"""
    if len(text) > NOT_FOUND_CHARS:
        return False
    low = text.casefold()
    if _NOT_FOUND_WORDS.isdisjoint(_WORDS.findall(low)) and not any(hint in low for hint in _NOT_FOUND_CJK):
        return False
    return _NOT_FOUND.search(fold(text).replace("’", "'")) is not None


@functools.lru_cache(maxsize=8192)
def folded(text: str) -> str:
    return fold(text)


@functools.lru_cache(maxsize=8192)
def claim_words(text: str) -> Words:
    """A claim's or a passage's words as the focus is looked for in them: the verifier's content words of the same
    text (`query.lexical`, cached: it reads every claim and cited segment), stemmed, and its abbreviations (EXP);
    a German compound ("Gesamtbetrag") is read as `words_of` reads it."""
    if has_compound(text):
        return words_of(text)
    words = content_words(text)
    return Words(frozenset(map(stem, words)), abbreviations_of(text), words)


class FitCheck:
    """The fit of claims to one question. `scope_words(segment)`: the words of the part of its document a segment
    belongs to (`ScopeWords`); `context_words`: all the context's words (or how to get them, when needed)."""

    def __init__(
        self,
        question: str | Question,
        scope_words: ScopeWords,
        context_words: Words | Callable[[], Words] | None = None,
        filenames: Mapping[str, str] | None = None,
    ):
        self.asked = read_question(question) if isinstance(question, str) else question
        # (document id -> its file's name, case-folded, where known: a question naming a file is asked of it)
        self._filenames = {k: v.casefold() for k, v in filenames.items()} if filenames is not None else None
        self.files = self._asked_files()
        self._scope_words = scope_words
        self._context_words = context_words  # all the context's words: which kinds of documents it holds
        self.known = frozenset(w.casefold() for w in re.findall(r"\w+", self.asked.text))
        self.asked_forms = frozenset(f for clue in self.asked.clues for f in clue.forms)
        self._scope_names: tuple[tuple[str, ...], ...] | None = None
        self._described: tuple[str, tuple[Clue, ...]] | None = None
        # (what the question asks, read once: every claim is checked against it)
        asked_folded = fold(self.asked.text)
        self.per_unit = _PER_UNIT.search(asked_folded) is not None  # "the price per kWh": a rate
        self._asks_count = asks_count(self.asked.text)
        self._asks_height = _HEIGHT.search(asked_folded) is not None
        self._asks_identifier = IDENTIFIER.search(asked_folded) is not None
        self._attributes = {id(p): {stem(c.word) for c in p.focus} & _ATTRIBUTES for p in self.asked.parts}
        self._years = frozenset(int(y) for y in _YEAR.findall(self.asked.text))
        quoted = (m.group(1) or m.group(2) or m.group(3) for m in _QUOTED.finditer(self.asked.text))
        self._quotes = tuple(q for q in quoted if q)
        # (the specific focus of each part: what `spoken` is asked about)
        parts = self.asked.parts
        focus = {c for p in parts for c in p.focus if c.word not in p.generic and c.forms}
        # (each clue's stems, and its short forms: a word of a text is one of its words when it starts with a stem or
        # is a short form)
        self._clue_forms = {c: (tuple(sorted(c.forms)), frozenset(_shortened(c))) for c in focus}
        # (a text holding none of the clues' shortest forms is not scanned: most passages speak of none; the pattern
        # that scans is made when one does)
        self._clue_starts = _shortest_starts(f for stems, short in self._clue_forms.values() for f in (*stems, *short))
        self._clue_words: re.Pattern[str] | None = None
        self._spoken: dict[str, frozenset[str]] = {}
        self._specific = {id(p): frozenset(c.word for c in p.focus if c.word not in p.generic) for p in parts}
        self._unfocused: dict[str, Fit] = {}  # what is asked about -> the failure saying so
        self._parts = tuple(parts)
        # (every part has a specific focus, and none is passed by a name labelling the claim: a claim and passages
        # speaking of none of them fail every part's focus, the first part's failure being the answer)
        self._all_specific = frozenset().union(*self._specific.values())
        self._unfocusable = bool(parts) and all(
            self._specific[id(p)] and not (p.kind is Kind.ANY and self.asked.names) for p in parts
        )

    def check(self, text: str, segments: Sequence[Segment], part: Part | None = None) -> Fit:
        """The fit of the claim `text` citing `segments`, to `part` of the question (None: the part it fits best)."""
        if says_not_found(text):
            return Fit(NOT_FOUND_FIT, "the answer says it was not found", not_found=True)
        if self.is_label(text):
            return Fit(LABEL_FIT, "the answer is a label with no value")
        best = None
        excluded = excluded_by(text)
        said = _Said(self, text, segments)
        if part is None and not excluded and self._unfocusable and said.misses(self._all_specific):
            first = self._parts[0]  # (what the loop gives: every part fails its focus, the first part's failure)
            return self._unfocused_fit(first, self._specific[id(first)])
        for candidate in (part,) if part is not None else self._parts:
            fit = self._part_fit(candidate, text, said, excluded)
            if best is None or fit.score > best.score:
                best = fit
            if not fit.fails:
                break  # (one part it answers is enough)
        best = best or FITS
        return best if best.fails else self._scope_fit(segments, best, text)

    def is_label(self, text: str) -> bool:
        """Nothing in the claim but the question's words, their synonyms and label words, or a closing colon."""
        stripped = text.strip()
        tail = stripped[-_INSTRUCTION_TAIL:].casefold()  # (`_INSTRUCTION_END`'s words, looked for in the tail first)
        if ("instr" in tail or "check" in tail or "blank" in tail) and _INSTRUCTION_END.search(stripped):
            return True  # a form's printed line, up to its instruction: "… (see instructions) B Enter code from …"
        if _is_caption(stripped) or _is_header(stripped, self.known):
            return True  # "PAYER'S name, street address, city or town, state …": a form's printed caption
        if len(stripped) > LABEL_CHARS or _DIGIT.search(stripped):
            return False  # "Tax (10%):" answers a question about the rate (the kind check says whether it is asked)
        if stripped.endswith((":", "#")):  # "Apartment #": a number's label, no number
            return True
        pieces = [piece for piece in stripped.split("/") if piece.strip()] if "/" in stripped else []
        if pieces and not re.search(r"\b[A-Z]{2,}", stripped) and any(self.is_label(piece) for piece in pieces):
            return True  # "Nationality/Nationalité/Nacionalidad": one label in three languages
        claim = self.words(stripped)
        new = {s for s in claim.stems if s not in self.asked_forms and s not in _LABEL_WORDS}
        new = {s for s in new if s not in self.known}
        return not new and bool(claim.stems or claim.tokens)

    def _part_fit(self, part: Part, text: str, said: _Said, excluded: frozenset[str]) -> Fit:
        # (the focus first: one scan of each text for all clues; values take a pass of their own)
        return (
            self._focus_fit(part, text, said, excluded)
            or self._attribute_fit(part, text)
            or self._other_attribute(part, text)
            or self._kind_fit(part, text)
            or FITS
        )

    def _attribute_fit(self, part: Part, text: str) -> Fit | None:
        """An identifier asked of a thing ("the meter number") is not another of its attributes labelled with the
        thing's name ("METER READING: 008"): a label that names the thing, not the number, and says what else."""
        head = label_of(text, row=False)
        if not head or part.kind is not Kind.NUMBER or "#" in head:
            return None  # ("LIC #": "#" names a number)
        if not any(c.forms & _IDENTIFIER_WORDS for c in part.focus if c.word in part.generic):
            return None  # an identifier is asked for ("number", "no."), not a rate or a count
        label = self.words(head)
        named = [c for c in part.focus if label.holds(c)]
        if not named or any(c.word in part.generic for c in named) or self.counts(part):
            return None
        clues = self.asked.clues
        other = [
            w
            for w in label.tokens
            if not _DIGIT.search(w)  # (a form's box code, "4d", or a rate, "10%")
            and w.casefold() not in self.known
            and stem(w) not in _LABEL_WORDS
            and not any(self.words(w).holds(c) for c in clues)
        ]
        if not other:
            return None
        asked = " ".join(c.word for c in part.focus)
        return Fit(FOCUS_FIT, f"asks for the {asked}; the answer gives the {head.strip().casefold()}")

    def _other_attribute(self, part: Part, text: str) -> Fit | None:
        """The claim's head names the thing asked about with another of its attributes: "Business address … 367
        Amanda Inlet" asked the business name, "Patient date of birth" asked the patient's name."""
        asked = self._attributes.get(id(part))
        if asked is None:
            asked = {stem(c.word) for c in part.focus} & _ATTRIBUTES
        things = [c for c in part.focus if stem(c.word) not in _ATTRIBUTES]
        if not asked or not things:
            return None
        head = label_of(text, row=False) or _HEAD.match(text).group()
        words = [w.casefold() for w in _WORDS.findall(head)]
        if not any(self.words(w).holds(c) for w in words for c in things):
            return None  # (the head does not name the thing: the check of the focus says the rest)
        other = [
            w for w in words if stem(w) in _ATTRIBUTES - asked and not any(self.words(w).holds(c) for c in part.focus)
        ]
        if not other:
            return None
        thing = " ".join(c.word for c in part.focus)
        return Fit(FOCUS_FIT, f"asks for the {thing}; the answer gives the {head.strip().casefold()}")

    def _focus_fit(self, part: Part, text: str, said: _Said, excluded: frozenset[str]) -> Fit | None:
        if excluded and (shut := [c.word for c in part.focus if c.forms & excluded]):
            return Fit(FOCUS_FIT, f"asks about {' '.join(shut)}; the answer excludes it")
        if excluded and self.asks_amount(part) and not _EXCLUDING.search(fold(self.asked.text)):
            # "the invoice total" is all of it, not "Total hors TVA" (unless the question says "before tax")
            return Fit(FOCUS_FIT, f"asks for the whole amount; the answer excludes {' '.join(sorted(excluded))}")
        specific = self._specific.get(id(part))
        if specific is None:
            specific = frozenset(c.word for c in part.focus if c.word not in part.generic)
        if not specific or not said.claim.isdisjoint(specific):
            return None
        if part.kind is Kind.ANY and any(names_held(n, names_of(text)) for n in self.asked.names):
            return None  # "CURP …": the claim is labelled with a name the question gives
        if not said.passages.isdisjoint(specific):
            return None
        return self._unfocused_fit(part, specific)

    def _unfocused_fit(self, part: Part, specific: frozenset[str]) -> Fit:
        asked = " ".join(c.word for c in part.focus if c.word in specific)
        unfocused = self._unfocused.get(asked)
        if unfocused is None:  # (the same for every claim that fails it)
            why = f"asks about {asked}; neither the answer nor its passage speaks of it"
            unfocused = self._unfocused[asked] = Fit(FOCUS_FIT, why)
        return unfocused

    def _kind_fit(self, part: Part, text: str) -> Fit | None:
        if self.per_unit and not asks_rate(part) and not _UNIT_PRICE.search(fold(text)):
            return Fit(RATE_FIT, "asks for a price per unit; the answer gives none")  # (a percentage is none)
        if part.kind is Kind.ANY:
            return None
        separators = {c.word for c in part.focus}
        spans = value_spans(part.kind, text, self.known, separators)
        if part.kind is Kind.NAME and ":" in text:  # "NET PAY: 1,479 93": a label is no name
            spans = [(a, b) for a, b in spans if a > text.index(":")]
        if part.kind is Kind.NAME:  # "RECIPIENT'S TIN": the label of an identifier is no name either
            spans = [(a, b) for a, b in spans if not _names_identifier(text[a:b])]
            # nor is the label of an amount ("Total Electric Charges $148.89")
            spans = [(a, b) for a, b in spans if not _MONEY_NEXT.match(text, b)]
            if _BOX_LINE.match(text):  # "3 Interest on U.S. Savings Bonds …": a form's box caption names no one
                spans = []
        if part.kind in (Kind.AMOUNT, Kind.NUMBER) and spans:  # the digits of a date or a time are no amount
            dates = [(x, y) for x, y in value_spans(Kind.DATE, text, ()) if not text[x:y].isdigit()]  # (not 2000)
            dates += [m.span() for m in _TIME.finditer(text)]
            dates += [m.span() for m in _DAY_AND_YEAR.finditer(text)]  # "17, 1929" of a date cut after its month
            spans = [(a, b) for a, b in spans if not any(a < y and x < b for x, y in dates)]
        if part.kind is Kind.AMOUNT and spans and not self._asks_count:
            # "1 Interest income", "8 Tax-exempt interest": a form's box number, before its caption, is no amount;
            # "3800 PROGRESS BLVD" is a street number
            focus = frozenset(c.word for c in part.focus if c.word not in part.generic)
            spans = [(a, b) for a, b in spans if not (focus and _named_after(text, b, focus))]
            spans = [
                (a, b) for a, b in spans if not (_BOX.fullmatch(text[a:b].strip()) and _CAPTION_NEXT.match(text, b))
            ]
            spans = [(a, b) for a, b in spans if not _STREET_NEXT.match(text, b)]
        if spans and self._asks_height and not _HEIGHT_SAID.search(fold(text)):
            # "how tall": a length ("5'-06\"", "170 cm"), not any number near the person's name
            spans = [(a, b) for a, b in spans if _LENGTH_UNIT.match(text, b)]
        if spans and self.counts(part):  # a count or a quantity is no phone number, nor a count of another unit
            phones = value_spans(Kind.PHONE, text, ())
            units = {c.word for c in part.focus} | {f for c in part.focus for f in c.forms}
            # (money is no phone number: "1 234 567,00 €")
            spans = [(a, b) for a, b in spans if is_money(text[a:b]) or not any(a < y and x < b for x, y in phones)]
            spans = [(a, b) for a, b in spans if not _other_unit(text, b, units)]
            # "First 800 kWh", "Next 200 kWh": a tariff's tier, not what was used
            spans = [(a, b) for a, b in spans if not _TIER.search(text, max(0, a - 16), a)]
            if self._asks_count and any(_UNIT.fullmatch(w) for w in units):
                spans = [(a, b) for a, b in spans if not is_money(text[a:b])]  # (how many kWh: not its price)
        if part.kind is Kind.NUMBER and spans and self._asks_identifier:
            # a TIN, a postal code, an account number: not the "3" of a form's box
            spans = [(a, b) for a, b in spans if len(_DIGIT.findall(text[a:b])) >= IDENTIFIER_DIGITS]
        if part.kind in (Kind.PHONE, Kind.AMOUNT, Kind.NUMBER) and spans:
            # "au capital de 1 549 961 789" is no phone number; "(dont acheminement 13,28 €)" is a part of the total
            spans = [(a, b) for a, b in spans if not _PART_OR_CAPITAL.search(text, max(0, a - 40), a)]
        if part.kind is Kind.PHONE and spans:  # a fax number is labelled "Fax:", and a phone number is not
            fax = "fax" in self.known
            spans = [(a, b) for a, b in spans if (_FAX_BEFORE.search(text, max(0, a - 12), a) is not None) == fax]
        if not spans:
            return Fit(KIND_FIT, f"asks for {_KIND_NOUNS[part.kind]}; the answer has none")
        if (
            asks_rate(part)
            and not any(text[a:b].rstrip().endswith("%") for a, b in spans)
            and not _RATE.search(fold(text))
        ):
            return Fit(RATE_FIT, "asks for a rate; the answer gives none")  # "HOUR/UNIT: 40.00" for the hourly rate
        rates = all(text[a:b].rstrip().endswith("%") for a, b in spans)
        if part.kind is Kind.AMOUNT and rates and not asks_rate(part) and self.asks_amount(part):
            return Fit(RATE_FIT, "asks for an amount; the answer gives only a rate")
        return None

    def counts(self, part: Part) -> bool:
        """ "How many days", "how much", "the total": a count or a quantity, not an identifier ("account number")."""
        return part.kind is Kind.AMOUNT or (part.kind is Kind.NUMBER and self._asks_count)

    def asks_amount(self, part: Part) -> bool:
        """ "How much", "the total", "the amount", "le montant": a sum of money, which a rate is not."""
        return asks_how_much(self.asked.text) or any(c.forms & _AMOUNT_STEMS for c in part.focus)

    def _asked_files(self) -> tuple[str, ...]:
        """The files the question names: those written with an extension, and any known file's name it holds as a
        word (a folder of shards is named without one)."""
        files = list(self.asked.files)
        if self._filenames:
            text = self.asked.text.casefold()
            files += [name for name in set(self._filenames.values()) if _names_word(text, name)]
        return tuple(dict.fromkeys(files))

    def _file_fit(self, segments: Sequence[Segment]) -> Fit | None:
        """A question naming a file is answered from that file (where the documents' file names are known)."""
        if not self.files or self._filenames is None:
            return None
        cited = sorted({self._filenames[s.document_id] for s in segments if s.document_id in self._filenames})
        asked = {_file_stem(f) for f in self.files}
        if not cited or any(_file_stem(name) in asked for name in cited):
            return None
        return Fit(SCOPE_FIT, f"the question names {', '.join(self.files)}; the cited document is {', '.join(cited)}")

    def _scope_fit(self, segments: Sequence[Segment], fit: Fit, text: str) -> Fit:
        """The file the question names is the cited one's; every name the question gives is spoken of where a cited
        segment is (`ScopeWords`); and a kind of document it names ("the invoice total") is what that document is (a
        receipt's total is no answer to the invoice's)."""
        if not segments:
            return fit
        if wrong_file := self._file_fit(segments):
            return wrong_file
        if other_year := self._other_year(text):
            return other_year
        if unquoted := self._unquoted(segments, text):
            return unquoted
        if self.scope_names:
            claim = names_of(text)
            missing = self._missing_names(segments, claim, workspace=False)  # the context first: no lookup
            if missing:
                missing = self._missing_names(segments, claim, workspace=True)
            # "Service B", "Tool A": a name with a letter names one row, which the claim or its passage holds
            places = [fold(text), *(fold(s.text) for s in segments)]
            missing += [
                " ".join(n)
                for n in self.scope_names
                if _row_name(n, self.asked.text)
                and not any(re.search(r"(?<!\w)" + r"\W+".join(map(re.escape, n)) + r"(?!\w)", p) for p in places)
            ]
            if missing:
                return Fit(
                    SCOPE_FIT, f"the question names {', '.join(dict.fromkeys(missing))}; the cited document does not"
                )
            rows = [n for n in self.scope_names if _row_name(n, self.asked.text)]
            if rows and (other := next(filter(None, (_other_row(n, places[0]) for n in rows)), None)):
                asked = " ".join(next(n for n in rows if _other_row(n, places[0]) == other))
                return Fit(SCOPE_FIT, f"the question names {asked}; the answer speaks of {other}")
            if other := self._named_otherwise(segments):
                return Fit(
                    SCOPE_FIT, f"the question names {other}; the cited document names {other} only in a longer name"
                )
        if missing_words := self._undescribed(segments, text):
            phrase, words = missing_words
            return Fit(SCOPE_FIT, f"the question asks about the {phrase}; the cited document does not say {words}")
        kinds = [c for c in self.asked.clues if c.forms & DOCUMENT_KINDS]
        if kinds:
            held = self.words(text)
            # (only where another document is one: a context that never says "invoice" cannot tell)
            kinds = [c for c in kinds if not held.holds(c) and self.context_holds(c)]
            documents = [self._scope_words(s, stems=True) for s in segments] if kinds else []
            missing = [c.word for c in kinds if not any(d.holds(c) for d in documents)]
            if missing:
                return Fit(SCOPE_FIT, f"the question asks about {', '.join(missing)}; the cited document is none")
        return fit

    def _other_year(self, text: str) -> Fit | None:
        """A year the question gives ("in April 2017") is the answer's, where the answer dates itself: a row of
        3/23/18-4/24/18 is another year's."""
        asked = self._years
        if not asked:
            return None
        said = {int(y) for y in _YEAR.findall(text)}
        said |= {2000 + int(m.group(1)) for m in _SHORT_YEAR_DATE.finditer(text)}
        if not said or said & asked:
            return None
        years = ", ".join(map(str, sorted(said)))
        return Fit(SCOPE_FIT, f"the question asks about {', '.join(map(str, sorted(asked)))}; the answer is of {years}")

    def _unquoted(self, segments: Sequence[Segment], text: str) -> Fit | None:
        """A phrase the question quotes ('My name', « Les ARN de transfert … ») is what it asks about: the answer or
        its passage says it (most of its words)."""
        quotes = self._quotes
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

    def _undescribed(self, segments: Sequence[Segment], text: str) -> tuple[str, str] | None:
        """The words the question describes its document with ("the health intake form", "the printer receipt",
        "the payment stub") that the cited document never says, where another document of the context does: a tax
        form's postal code does not answer the health intake form's. (Lower-case words only: a name is checked as a
        name; and only where the context tells: a context that never says "intake" cannot.)"""
        if self._described is None:
            self._described = described_document(self.asked)
        phrase, clues = self._described
        if not clues:
            return None
        held = self.words(text)
        lacking = [c for c in clues if not held.holds(c)]
        documents = [self._scope_words(s, stems=True) for s in segments] if lacking else []
        missing = [c for c in lacking if not any(d.holds(c) for d in documents)]
        if not missing:
            return None
        cited = {s.document_id for s in segments}
        others = [self.words(s.text) for s in self._scope_words.context if s.document_id not in cited]
        if not any(o.holds(c) for o in others for c in missing):
            return None  # (no other document says them either: the context cannot tell)
        return phrase, ", ".join(c.word for c in missing)

    def _named_otherwise(self, segments: Sequence[Segment]) -> str | None:
        """A one-word name of a document ("the Google invoice") the cited document says only within a longer one
        ("Google Singapore"), while another document of the context says it alone ("Google\nINVOICE"): that one is
        meant. (Only a name the question gives a kind of document: a person's first name is seldom said alone.)"""
        for name in self.scope_names:
            telling = [w for w in name if len(w) > 1 and w not in _LEGAL_FORMS]
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

    def _missing_names(self, segments: Sequence[Segment], claim: Words, *, workspace: bool) -> list[str]:
        places = [union(claim, self._scope_words(s, workspace=workspace)) for s in segments]
        return [" ".join(n) for n in self.scope_names if not any(names_held(n, p) for p in places)]

    def context_holds(self, clue: Clue) -> bool:
        if self._context_words is None:
            return True
        if callable(self._context_words):
            self._context_words = self._context_words()
        return self._context_words.holds(clue)

    @property
    def scope_names(self) -> tuple[tuple[str, ...], ...]:
        """The names of the question itself: text pasted after its question mark names nothing it asks about."""
        if self._scope_names is None:
            head = _QUESTION_END.split(self.asked.text, maxsplit=1)[0]
            names = self.asked.names if head == self.asked.text else read_question(head).names
            # (a known file's name read as a name, "invoice_sharded_48p": the file check is its scope)
            self._scope_names = tuple(n for n in names if not any(all(w in f for w in n) for f in self.files))
        return self._scope_names

    def words(self, text: str) -> Words:
        return claim_words(text)

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


class _Said:
    """The question's clues a claim speaks of, and those its cited passages do (read when asked: once a check)."""

    __slots__ = ("_check", "_passages", "_segments", "claim")

    def __init__(self, check: FitCheck, text: str, segments: Sequence[Segment]):
        self._check, self._segments = check, segments
        self.claim = check.spoken(text)
        self._passages: frozenset[str] | None = None

    def misses(self, clues: frozenset[str]) -> bool:
        """Neither the claim nor its passages speak of any of `clues`."""
        return self.claim.isdisjoint(clues) and self.passages.isdisjoint(clues)

    @property
    def passages(self) -> frozenset[str]:
        if self._passages is None:
            spoken = self._check.spoken
            segments = self._segments
            if len(segments) == 1:  # (most claims cite one passage)
                self._passages = spoken(segments[0].text)
            else:
                self._passages = frozenset().union(*(spoken(s.text) for s in segments))
        return self._passages


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


def _named_after(text: str, end: int, focus: frozenset[str]) -> bool:
    """The words right after the number ending at `end` are the thing asked about: "1 Interest income"."""
    after = _WORD_AFTER.match(text, end)
    return after is not None and stem(after.group(1).casefold()) in {stem(w) for w in focus}


def _other_unit(text: str, end: int, asked: frozenset[str] | set[str]) -> bool:
    """The number ending at `end` counts a unit the question does not ask about: "24 HOURS" for "how many days"."""
    unit = _UNIT.match(text, end)
    if unit is None or not any(_UNIT.fullmatch(word) for word in asked):
        return False  # (a question naming no unit, "how much energy", takes "909 kWh")
    word = unit.group(1).casefold()
    return word not in asked and stem(word) not in asked and _UNIT_STEMS.get(stem(word), word) not in asked


_DOCUMENT_NOUNS = (
    r"invoice|receipt|bill|statement|patent|licen[cs]e|contract|passport|facture|factura|rechnung|quittung|recibo"
)


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
    ):  # (`_EXCLUDING`'s words, without a generator: every claim comes here)
        return frozenset()
    return frozenset(stem(m.group(1)) for m in _EXCLUDING.finditer(low))


def _clue_pattern(clue: Clue) -> str:
    """A word starting with one of the clue's stems, or a short form keeping half of one ("exp" of "expir")."""
    shortened = _shortened(clue)
    return "|".join([rf"{re.escape(form)}\w*" for form in sorted(clue.forms)] + sorted(map(re.escape, shortened)))


def _shortened(clue: Clue) -> set[str]:
    return {f[:k] for f in clue.forms if f.isalpha() for k in range(max(3, -(-len(f) // 2)), len(f))}


def _shortest_starts(alternatives: Iterable[str]) -> tuple[str, ...]:
    """The alternatives no other one starts: a text holding none of them holds no match."""
    starts: list[str] = []
    for alternative in sorted(set(alternatives), key=len):
        if not any(alternative.startswith(s) for s in starts):
            starts.append(alternative)
    return tuple(starts)


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


def names_held(name: tuple[str, ...], words: Words) -> bool:
    """A name is spoken of: all its telling words are there, or it is the initials of words that are ("IBM":
    International Business Machines). A lone letter tells nothing ("Tool A" is a row), except beside a number: the
    "G" of "1099-G" is not a 1099-DIV."""
    numbered = any(w.isdigit() for w in name)
    telling = tuple(w for w in name if (len(w) > 1 or numbered) and w not in _LEGAL_FORMS) or name
    held = sum(w in words.tokens or (len(w) >= 4 and any(t.startswith(w) for t in words.tokens)) for w in telling)
    if held == len(telling):
        return True
    return len(telling) == 1 and telling[0].isalpha() and telling[0] in words.initials


def union(a: Words | None, b: Words) -> Words:
    if a is None:
        return b
    return Words(a.stems | b.stems, a.abbreviations | b.abbreviations, a.tokens | b.tokens, a.initials | b.initials)


class ScopeWords:
    """The words of the part of a document a segment belongs to: the segment, its neighbours and the document's head
    (its first segments, where it says what it is: "Google INVOICE … John Smith"; a field, Document AI's label and
    value, comes after the document's text). Not the whole file: one file may hold several documents (a splitter's
    output: an invoice, a receipt and a bill, which ingest puts on pages of their own), and a name spoken of in
    another of them does not make this one about it (`same_document`). Segments come from the context; with
    `workspace=True` the missing ones from `lookup` (the workspace), once each. Names need only the words
    (`stems=False`, cheap); a kind of document ("invoice") is said once for all of it, so with `stems=True` every
    known segment of the document counts."""

    HEAD, NEAR = 3, 1

    def __init__(self, context: Iterable[Segment], lookup: Callable[[list[str]], Mapping[str, Segment]] | None = None):
        self._known: dict[str, Segment | None] = {s.segment_id: s for s in context}
        self._lookup = lookup
        self._words: dict[tuple[str, bool, bool], Words] = {}

    @property
    def context(self) -> list[Segment]:
        """The segments known: the context's, and those looked up."""
        return [s for s in self._known.values() if s is not None]

    def _around(self, segment: Segment) -> list[str]:
        """The ids of the segment's neighbours and of its document's head, in order."""
        index = segment.segment_index
        indexes = set(range(max(0, index - self.NEAR), index + self.NEAR + 1)) | set(range(self.HEAD))
        return [make_segment_id(segment.document_id, i) for i in sorted(indexes) if i != index]

    def _known_around(self, segment: Segment) -> list[Segment]:
        return [s for i in self._around(segment) if (s := self._known.get(i)) is not None and same_document(s, segment)]

    def texts(self, segment: Segment) -> list[str]:
        """The texts of the segment and of those known around it (its neighbours, its document's head)."""
        return [segment.text] + [s.text for s in self._known_around(segment)]

    def __call__(self, segment: Segment, *, stems: bool = False, workspace: bool = True) -> Words:
        key = (segment.segment_id, stems, workspace)
        if key not in self._words:
            missing = [i for i in self._around(segment) if i not in self._known]
            if workspace and missing and self._lookup is not None:
                found = self._lookup(missing)
                self._known.update({i: found.get(i) for i in missing})  # (None: not there, not asked again)
            if stems:  # what kind of document it is: all of it that is known
                document = [s for s in self.context if s is not segment and same_document(s, segment)]
                texts = [segment.text] + [s.text for s in document]
            else:
                texts = self.texts(segment)
            of = words_of if stems else names_of
            words = of(texts[0])
            for text in texts[1:]:
                words = union(words, of(text))
            self._words[key] = words
        return self._words[key]


def described_document(asked: Question) -> tuple[str, tuple[Clue, ...]]:
    """The phrase naming the document a question asks of ("on the health intake form"), and the clues of its
    lower-case describing words ("health", "intake"): what the cited document must say."""
    match = _DESCRIBED.search(asked.text)
    if match is None:
        return "", ()
    words = [w for w in _WORDS.findall(match.group(1)) if w.islower() and len(w) > 2 and not w.isdigit()]
    clues = tuple(c for c in asked.clues if c.word in {fold(w) for w in words})
    return " ".join([*match.group(1).split(), match.group(2)]), clues


def _names_identifier(name: str) -> bool:
    """A "name" ending in a word for an identifier or another field ("PAYER'S TIN", "Employee ID", "Account
    Number", "Mother's First Name", "Business Address") labels one."""
    words = _WORDS.findall(name.casefold())
    return bool(words) and (stem(words[-1]) in _IDENTIFIER_WORDS or stem(words[-1]) in _ATTRIBUTES)


def same_document(a: Segment, b: Segment) -> bool:
    """Whether two segments of one file speak of one document. A file of text alone (no layout: no boxes, kind
    `text`) has pages only where a splitter said which of its documents each piece of text is (ingest's
    `splitter_parts`): there, another page is another document (an invoice, then a receipt)."""
    if a.document_id != b.document_id:
        return False
    text_alone = all(s.bbox is None and s.kind == "text" for s in (a, b))
    return a.page_idx == b.page_idx or not text_alone


@functools.lru_cache(maxsize=8192)
def names_of(text: str) -> Words:
    """A text's words and initials, without stems: what a name is looked for in (a tenth of `words_of`'s work)."""
    words = frozenset(w.casefold() for w in _WORDS.findall(text))
    return Words(frozenset(), frozenset(), words, initials_of(text))


def answer_status(fits: Sequence[Fit], cited: Sequence[bool]) -> str:
    """`not_found` when no section answers; `uncertain` when a section that answers fails the check or cites
    nothing; else `answered`."""
    answering = [(f, c) for f, c in zip(fits, cited, strict=True) if not f.not_found]
    if not answering:
        return NOT_FOUND
    if any(f.fails or not c for f, c in answering):
        return UNCERTAIN
    return ANSWERED


def uncertain_note(metadata: dict | None) -> str | None:
    """What a reader is told of an `uncertain` answer (the CLI and the page say it alike), or None."""
    metadata = metadata or {}
    if metadata.get("answer_status") != UNCERTAIN:
        return None
    reasons = [s["fit_warning"] for s in metadata.get("sections", []) if s.get("fit_warning")]
    if not reasons:
        reasons = ["a part of it cites no passage"]
    return f"Uncertain: this answer may not answer the question ({'; '.join(dict.fromkeys(reasons))})."


def _file_stem(name: str) -> str:
    """ "report.pdf" and "report" name one file (a question may leave the extension out, or a folder have none)."""
    return name.rsplit(".", 1)[0] if FILE_NAME.fullmatch(name) else name


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
