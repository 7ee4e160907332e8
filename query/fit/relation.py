"""The relation check (design §5.9): `answered` is a promise, given only where the claim is *verified*: the cited
passage states the claim's value as the asked attribute of the asked subject. Three forms count:
- a label and its value ("Balance Due: $4,647.68", a form's field, a label line over its value line): the words right
  before the value name the attribute asked, every word of it, with nothing but function words, other field names or
  a parenthesis between them and the value;
- a table cell: the column's head and the row's label name the attribute and the row asked ("Laptop" under "Rate");
- a sentence whose relation is the question's: the attribute or the question's verb right before the value ("the
  default viewer is xdg-open", "the tutorial was written by Charles Staats", "supplies used for Project Q"), or a
  definition right after it ("Cymbal Inc. (the Licensor)", "xdg-open is the default viewer").
In each form, the words that say whose attribute it is (the subject: "the *earlier application*'s filing date") are
said around the value or by the document's title, half of them at least. Anything else the answerer offers (a
sentence that shares the question's words, a value near them) is not verified, and the answer is `uncertain`.

Only the passage is read, never how the claim was written: a model's paraphrase is verified by the passage's unit
(line, sentence, table row, or pair its boxes show) holding the claim's value, an extractive answer by the unit it
was copied from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from ingest import Segment
from query.fit.asked import Asked
from query.fit.documents import ScopeWords, same_document
from query.fit.kind import KindCheck
from query.fit.words import ATTRIBUTES, LABEL_WORDS, claim_words, names_held, names_of
from query.language.layout import layout_pairs
from query.language.question import CODE_NAME, NOT_RELATIONS, Clue, Kind, Part, Words, stem
from query.language.terms import MONTH, QUESTION_WORDS, STOPWORDS, fold, is_cjk

LABEL, CELL, SENTENCE = "label", "table cell", "sentence"
REACH = 8  # words before a value where its label or the question's verb must be
BOUND_REACH = 3  # words before a value where a bound of it is said ("since version 1.4.0")
DEFINITION_REACH = 4  # words after a value where a definition must name the attribute ("(the Licensor)")
UNTYPED_VALUES = 8  # an untyped claim's first words that the question does not hold: one of them is its value
SUBJECT_SHARE = 0.5  # at least this share of the subject's words is said around the value or by the title
SUBJECT_WORDS = 2  # a subject of fewer words is only looked for in the whole document
FUZZY_CHARS, FUZZY_SCORE = 6, 85  # a word this long is found misread by OCR ("PRNTER"), this close
# A clause ends here: what is before says nothing of what is after. (Not an abbreviation's period, "Appl. No.",
# "Dec. 5": a sentence's last word is a lower-case word, a number, or closes a bracket or a quote.)
_BOUNDARY = re.compile(r"(?:(?<![\w.])[a-z]{3,}|\d|[)\]\"'”])(?P<end>[.!?])(?=\s|$)|(?P<stop>[;\n])")
_NUMBER = re.compile(r"\d[\d,./-]*")
_WORD = re.compile(r"\w+")
_VERB_FORM = re.compile(r"[a-z]+(?:ed|ing|ly)")  # "derived", "using", "usually": no untyped value
_WORD_AND_DOT = re.compile(r"\w+\.?")
_TOKEN = re.compile(r"(?<![\w-])-{0,2}\w+(?:[.@/:-]\w+)*")  # ("--dsymutil" is one word, no label's dash)
_AUXILIARIES = frozenset("has have had was were is are also then later".split())
_PARENTHESIS = re.compile(r"\([^()]*\)")
_LABEL_END = (":", "=", "#", "|", "-", "–", "—")
# What opens a definition after a value: "(the Licensor)", "is the", "was a", "as the".
# (after an abbreviation's period: "Cymbal Inc. (the Licensor)"; a comma only before "the": "X, the Licensor", not
# "Rasheeq, a font from …", which says what kind of thing it is, not which one)
_DEFINITION = re.compile(
    r"^\.?\s*(?:,\s*(?=the\b)|\(|(?:is|was|are|were|as|being|will be)\b)\s*(?:(?:the|a|an|its|our|their)\b)?",
    re.IGNORECASE,
)
# what a measured value is a quantity of: "61.4 gigawatt hours of electricity" (a unit of up to three words, then "of")
_MEASURE_OF = re.compile(r"^(?:\s*[^\W\d_]+){0,3}?\s+of\b", re.IGNORECASE)
_CELL = " | "
_EMPTY_CELLS = frozenset({"", "—", "-"})
_WHO = frozenset("who whom".split())
# Words that tell one attribute from another of its kind: a label may not leave them out ("METER READING" is not the
# previous meter reading, "Balance" not the previous balance).
_CONTRASTIVE = frozenset(
    "default previous current last next first new old prior minimum maximum min max initial final original total net "
    "gross".split()
)
_BY_DEFAULT = re.compile(r"^\W*(?:\w+\W+)?(?:by|per)\s+default\b", re.IGNORECASE)
_NEGATIONS = frozenset("not no never without none nor cannot n't".split())
_NEGATION_WORD = re.compile(r"\b\w+(?:n't)?\b(?![.:#]|\s*\d)")  # ("No. 001", "NO: 12", "no 5" abbreviate a number)
# Words right before a value that make it a bound, not the value (-> the question's words that ask for that bound).
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
_DOES_WHAT = re.compile(r"what (?:does|do|did|will) (?:the |a |an )?(.+?) do\s*\??")
_NUMBER_WORDS = frozenset("number numbers numero nummer numéro número".split())
_MONTH_ONLY = re.compile(MONTH, re.IGNORECASE)
# A default stated on its own: "Default value is", "The default is", "Defaults to", "(default:".
_DEFAULT_IS = re.compile(r"(?:the\s+)?default(?:\s+value)?(?:\s+(?:is|are|was))?\s*[:=]?|defaults?\s+to", re.IGNORECASE)
_OWNING = frozenset("of for".split())
_FROM = frozenset("from of by".split())
_LINKS = frozenset(
    "is are was were be to equals called named by of for from".split()
)  # what may link an untyped value to its name
_COPULAS = frozenset(
    "is are was were be been being will shall can may must set equals equal about approximately around roughly".split()
)
# Words that name the document or the field, not whose attribute is asked ("on the invoice", "the form's date").
_NOT_A_SUBJECT = (
    frozenset(
        map(
            stem,
            "document page file form invoice receipt bill statement manual guide report letter contract agreement "
            "patent passport license licence card stub sheet credential store shop brevet facture factura rechnung "
            "recibo quittung formulaire formulario contrat contrato vertrag pasaporte passeport reisepass "
            # the person a form or a bill is about, whom the document names
            "patient customer client".split(),
        )
    )
    | LABEL_WORDS
)
_PREPOSITIONS = frozenset("according regarding concerning".split())
_CAPTION_WORDS = frozenset(
    map(stem, "name address street city town state province country zip code post office".split())
)
# Words a date's phrase holds around its value: "second week of October 2019", "end of May".
_DATE_WORDS = frozenset("first second third fourth last week weeks month end beginning early mid late".split())
TITLE_LINES = 10  # the first lines of a document, where it says what it is
_DOCUMENT_NOUN = re.compile(
    r"\b(?:form|receipt|invoice|bill|stub|statement|letter|contract|agreement|patent|passport|licen[cs]e|report|"
    r"schedule|certificate|card|credential|manual|guide|slip|policy|facture|factura|rechnung|brevet)s?\b"
)
_SUBORDINATE = re.compile(r",\s*(?:before|after|when|while|if|once|until|so that|because)\b")
_DESCRIBING_AFTER = re.compile(r"\s+(?:on|about|for|regarding|with|of|that)\s+(.*)$")


@dataclass(frozen=True)
class Verification:
    """How the passage states the claim's value as the thing asked (`how`: LABEL, CELL, SENTENCE), for which part of
    the question, and the value; or, unverified, why not."""

    how: str | None
    part: int | None = None
    value: str | None = None
    why: str | None = None

    @property
    def verified(self) -> bool:
        return self.how is not None


@dataclass(frozen=True)
class _Unit:
    """A line, a sentence or a table row of a passage (a row with the heads of its columns), and where its lines
    start (a value opening a line under its label line is the label's)."""

    text: str
    heads: tuple[str, ...] = ()
    line_starts: frozenset[int] = frozenset()

    @property
    def row(self) -> bool:
        return _CELL in self.text


class RelationCheck:
    """Verifies claims against their passages for one question: `kind` finds a claim's values of the kind asked,
    `scope_words` a document's title, where a subject word may be said instead of beside the value."""

    def __init__(self, asked: Asked, kind: KindCheck, scope_words: ScopeWords):
        self.asked = asked
        self._kind = kind
        self._scope_words = scope_words
        self._gap_words = STOPWORDS | QUESTION_WORDS | asked.known
        self._asked_tokens = asked.known | {f for c in asked.question.clues for f in c.forms}
        self._describing = _describing_words(asked.text)
        self._subjects = {id(p): self._subject_of(p) for p in asked.parts}
        self._specific = {id(p): self._specific_of(p) for p in asked.parts}
        self._owners = {id(p): _owning_names(asked, p) for p in asked.parts}
        self._document_names = _document_names(asked)
        self._code_names = {  # (the name's words -> the code as the question writes it, its dashes left out)
            tuple(w.casefold() for w in _WORD.findall(m.group())): m.group().lstrip("-")
            for m in CODE_NAME.finditer(asked.question.text)
        }
        self._negated = bool(asked.known & _NEGATIONS)  # ("which option does not …": a negation is asked)
        # ("which release of R": the question says whose; "a release of C11" is another's)
        self._owned_focus = any(
            re.search(rf"\b{re.escape(c.word)}\w*\s+of\b", fold(asked.text)) for p in asked.parts for c in p.focus
        )
        does = _DOES_WHAT.fullmatch(fold(asked.text).strip())
        self._does_what = does.group(1) if does else ""  # ("what does rand(-1) do": what a thing does is asked)
        # ("who wrote it": the verb is the focus, and the value its agent)
        first = asked.question.text.split(maxsplit=2)
        self._agents = {
            id(p)
            for p in asked.parts
            if first[:1]
            and fold(first[0]) in _WHO
            and p.focus
            and len(first) > 1
            and fold(first[1]).strip("?") == p.focus[0].word
        }

    def __call__(self, text: str, segments: Sequence[Segment], part: Part | None = None) -> Verification:
        if self._does_what and (done := self._what_it_does(text, segments)):
            return done
        parts = [(i, p) for i, p in enumerate(self.asked.parts) if part is None or p is part]
        parts = parts or [(0, part)]  # (a part of another reading of the question)
        units = [(segment, _copied_from(text, list(_units(segment)))) for segment in segments]
        for index, asked in parts:
            values = self._values(asked, text)
            for segment, copied in units:
                for unit in copied:
                    for value in values:
                        if how := self._states(asked, unit, value, segment):
                            return Verification(how, index, _plain(value))
        asked_about = " ".join(c.word for p in self.asked.parts for c in p.focus) or "what is asked"
        return Verification(None, why=f"its passage does not state it as the {asked_about} asked")

    def _what_it_does(self, text: str, segments: Sequence[Segment]) -> Verification | None:
        """ "What does rand(-1) do?": a sentence of the passage whose subject is rand(-1), then its verb ("rand(-1)
        resets both seeds …"), the claim's own."""
        subject = self._does_what
        for segment in segments:
            for unit in _units(segment):
                said = fold(unit.text)
                if said.startswith(subject) and said[len(subject) :][:1] == " " and fold(text) in said:
                    return Verification(SENTENCE, 0, _plain(unit.text[len(subject) :]))
        return None

    def _values(self, part: Part, text: str) -> list[str]:
        """The claim's values of the kind asked, as written (a value the question states is none)."""
        if part.kind is Kind.ANY:
            return _untyped_values(text, self.asked.known)
        spans = [_whole_words(text, a, b) for a, b in self._kind.spans(part, text)]
        # (grown to its whole word, a value may be one the question states: "PIC16" of "the PIC16 port")
        values = list(
            dict.fromkeys(v for a, b in spans if (v := text[a:b].strip()) and v.casefold() not in self.asked.known)
        )
        if part.kind is Kind.NAME:  # (a month is no one's name: "Date of Patent: *Nov. 27, 2018")
            values = [v for v in values if not _MONTH_ONLY.fullmatch(v)]
        return values

    def _states(self, part: Part, unit: _Unit, value: str, segment: Segment) -> str | None:
        if self._truncated(value, segment):
            return None
        for start in _occurrences(unit.text, value):
            end = start + len(value)
            if unit.row:
                if self._names_held(part, unit.text, segment, row=True) and (
                    how := self._cell(part, unit, start, end, segment)
                ):
                    return how
                continue
            lead, trail = _lead(unit.text, start), _trail(unit.text, end)
            # (where the value is: its label, back to the colon of another label before it, and what follows it)
            around = f"{lead.rpartition(': ')[2] if lead.count(':') > 1 else lead} {unit.text[start:end]} {trail}"
            if not self._names_held(part, around, segment):
                continue
            if not self._subject_held(part, f"{lead} {trail}", segment):
                continue
            if self._qualified(lead, trail, value):
                continue
            # (a value opening its line is labelled by the line above it, where that line names what is asked)
            above = _line_before(unit, start)
            line_start = (
                start in unit.line_starts and _label_alone(above) and self._named_before(part, above, trail, True)
            )
            if line_start or self._named_before(part, lead, trail) or self._default_of(part, unit.text[:start], lead):
                if self._ambiguous(lead, trail, segment):
                    continue
                return LABEL if _labels(lead) or line_start else SENTENCE
            if part.kind is not Kind.ANY and self._defined_after(part, trail):
                return SENTENCE  # (an untyped value has no kind to tell it from the words before a definition)
            if id(part) in self._agents and _does(trail, part.focus[0]):
                return SENTENCE  # "Dinu Gherman contributed this script", "Andy Robinson has refined it"
        return None

    def _truncated(self, value: str, segment: Segment) -> bool:
        """A field Document AI extracted whose value its document's text holds only inside a longer one ("Application
        number: 453,945" where the patent says "Appl. No.: 15/453,945"): the extraction cut it."""
        if segment.kind != "field" or not any(ch.isdigit() for ch in value):
            return False
        texts = [s.text for s in self._scope_words.context if s.kind != "field" and same_document(s, segment)]
        inside = [t for t in texts if value.casefold() in t.casefold()]
        return bool(inside) and not any(next(_occurrences(t, value), None) is not None for t in inside)

    def _ambiguous(self, lead: str, trail: str, segment: Segment) -> bool:
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
        return len(set(found)) > 1 and not _owned_here(self.asked, f"{lead} {trail}")

    def _qualified(self, lead: str, trail: str, value: str) -> bool:
        """The value's clause says it is not the attribute, or only a bound of it, or whose it is, where the question
        says nothing of the kind: a negation ("22 nebulae whose distances could not be estimated"), a bound of time or
        size right before it ("Since version 1.4.0", "prior to 1.4.0", "more than 20"), or, where the question says
        whose attribute it asks ("which release of R"), "of" before a name ("a bugfix release of C11": C11 is what
        was released, not the release)."""
        clause = f"{lead.rpartition(',')[2]} {trail.partition(',')[0]}"
        if not self._negated and any(m.group().casefold() in _NEGATIONS for m in _NEGATION_WORD.finditer(clause)):
            return True
        before = [w.casefold() for w in _WORD.findall(lead)][-BOUND_REACH:]
        bounds = (" ".join(before[i : i + n]) for n in (1, 2) for i in range(len(before)))
        if any(b in _BOUNDS and not _BOUNDS[b] & self.asked.known for b in bounds):
            return True
        return (
            self._owned_focus
            and before[-1:] == ["of"]
            and not _labels(lead)
            and any(ch.isalpha() for ch in value)
            and not _NUMBER.match(value)
        )

    def _default_of(self, part: Part, before: str, lead: str) -> bool:
        """ "… sets the height of each line. Default value is 1cm.": a default stated on its own, after the sentences
        of its item (the line) that name the attribute."""
        if not _DEFAULT_IS.fullmatch(lead) or not any("default" in c.forms for c in part.focus):
            return False
        item = before[: before.rfind(lead)] if lead else before
        return self._names(part, f"{item} default", labelled=False)

    def _names_held(self, part: Part, said: str, segment: Segment, *, row: bool = False) -> bool:
        """The names that say which of the attribute is asked are said where the value is (`said`), or by the
        document's title (a licence's holder): "the *Harvard* estimate", "units of *Tool A*", "*Lundmark's*
        solution", "the *--tool* option" (as written: "--segment-merging-interval" is another option); a name the
        document is of is the scope check's."""
        names = self._owners.get(id(part))
        if names is None:
            names = _owning_names(self.asked, part)
        if id(part) in self._agents:  # "who wrote the Instant Python course": what was written is the unit's
            names = tuple(n for n in self.asked.scope_names if n not in self._document_names)
        if not names:
            return True
        here = names_of(said)
        missing = [n for n in names if not self._code_held(n, said) or not names_held(n, here)]
        if not missing or row:
            return not missing  # (a row's name is its own: "Tool A" of another row is no answer)
        if any(n in self._code_names for n in missing):
            return False  # (an option or an identifier is said where its value is, not by a manual's first page)
        if self._qualified_otherwise(part, said):
            return False  # ("Qualified dividends" is not "Section 199A dividends", whoever the title names)
        title = names_of(self._scope_words.title(segment, lines=None))
        return all(names_held(n, title) for n in missing)

    def _qualified_otherwise(self, part: Part, said: str) -> bool:
        """A word of its own right before the focus where the value is ("*Qualified* dividends: …"): the label names
        another one of that kind than the question's owner does ("Section 199A dividends")."""
        specific = self._specific.get(id(part)) or self._specific_of(part)
        if not specific or id(part) in self._agents:
            return False  # (a verb, "originally wrote", is qualified by its adverb, not by another one's name)
        words = _WORD.findall(said)
        for i, word in enumerate(words[1:], 1):
            if claim_words(word).holds(specific[-1]):  # (the head: "dividends" of "Section 199A dividends")
                before = words[i - 1]
                low = before.casefold()
                if not before.isalpha() or len(before) < 3 or low in self._gap_words or low in _COPULAS:
                    return False
                held = claim_words(before)  # ("Montant total" of "the total amount": the question's word, in French)
                return not any(held.holds(c) for c in self.asked.question.clues)
        return False

    def _code_held(self, name: tuple[str, ...], said: str) -> bool:
        """A name written as code is said as written, whole: "--segment-merging" is not "--segment-merging-interval"."""
        code = self._code_names.get(name)
        return code is None or re.search(rf"(?<![\w-])-*{re.escape(code)}(?![\w-])", said, re.IGNORECASE) is not None

    def _cell(self, part: Part, unit: _Unit, start: int, end: int, segment: Segment) -> str | None:
        """The row's label and the head of the value's column name the attribute; the subject is the row's."""
        cells = unit.text.split(_CELL)
        offset, column = 0, None
        for i, cell in enumerate(cells):
            if offset <= start and end <= offset + len(cell):
                column = i
            offset += len(cell) + len(_CELL)
        if column is None or (unit.heads and len(unit.heads) != len(cells)):
            return None  # (a head over several columns, "Conso kWh Prix €HT/kWh Montant EHT": which is whose?)
        label = next((c for c in cells[:column] if c.strip() not in _EMPTY_CELLS and not _NUMBER.search(c)), "")
        head = unit.heads[column] if column < len(unit.heads) else ""
        said = f"{head} {label}"
        if self._names(part, said, labelled=True) and self._subject_held(part, said, segment):
            return CELL
        return None

    def _names(self, part: Part, text: str, whole: str | None = None, *, labelled: bool = True) -> bool:
        """`text` names the attribute asked: its role's label ("TO:"); or its specific focus words (those not a verb
        of the question), all of them, or its head noun alone where the whole label (`whole`) says nothing else
        ("TERMS:" for the payment terms); with none, a word of its focus and the question's verb ("Amount enclosed"),
        or, in a label, a word of its subject ("VIGENCIA" for the year it is valid)."""
        if part.role and part.role in names_of(text).tokens:
            return True
        words = claim_words(text)
        specific = self._specific.get(id(part))
        if specific is None:
            specific = self._specific_of(part)
        if specific:
            held = [c for c in specific if words.holds(c)]
            if len(held) == len(specific):
                return True
            missing = [c for c in specific if c not in held]
            relaxed = len(missing) == 1 and words.holds(specific[-1]) and missing[0].word not in _CONTRASTIVE
            return relaxed and not self._says_more(claim_words(whole if whole is not None else text))
        verbs = [v for v in (*self.asked.question.verbs, *part.relation[:1]) if v not in {c.word for c in part.focus}]
        if verbs and not any(stem(v) in words.stems for v in verbs):
            return False  # "what amount was enclosed": an amount, enclosed
        subject = self._subjects.get(id(part), ()) if labelled else ()
        focus = [c for c in part.focus if part.kind is not Kind.PHONE or c.word not in _NUMBER_WORDS]
        if not any(words.holds(c) for c in (*focus, *subject)):  # ("ACCOUNT NUMBER" is no phone's label)
            return False
        # (a generic focus, "date", is any date: a label that says which, "DOB", names another one than asked)
        return not (labelled and self._says_more(claim_words(text)))

    def _says_more(self, words: Words) -> bool:
        """A label says more than the question: a content word of its own ("BALANCE DUE" for the previous balance)."""
        return any(
            w not in self._gap_words and not any(ch.isdigit() for ch in w) for w in words.tokens - self._asked_tokens
        )

    def _specific_of(self, part: Part) -> list[Clue]:
        """The focus words a label must say: not the generic ones (a value says "date" itself), nor a verb of the
        question ("the total *paid*"), unless nothing else is left ("When was it *filed*?")."""
        specific = [c for c in part.focus if c.word not in part.generic]
        specific = [c for c in specific if not c.forms & LABEL_WORDS] or specific  # ("the default *value*")
        nouns = [c for c in specific if c.word not in self.asked.question.verbs] or specific
        # ("which font does it use by default": the default font, not any font it may use)
        default = [c for c in self.asked.question.clues if c.word == "default" and c not in nouns]
        return [*default, *nouns] if nouns else nouns

    def _named_before(self, part: Part, lead: str, trail: str = "", line_start: bool = False) -> bool:
        """The lead names the attribute (or ends on the question's verb: "written by", "used for"), and nothing but
        function words, field names or a parenthesis stand between that and the value."""
        clean = _PARENTHESIS.sub(" ", lead)
        found = list(_WORD_AND_DOT.finditer(clean))  # ("Appl." keeps its dot: an abbreviation)
        words = [m.group() for m in found]
        labelled = _labels(lead) or line_start
        for cut in range(1, len(words) + 1):  # (the shortest tail of the lead that names it; "Appl. No." as written)
            tail = clean[found[-cut].start() :]
            if _says_relation(tail, part.relation) and self._relation_names(part, clean):
                return True
            if self._names(part, _by_default(tail, trail), clean, labelled=labelled):
                if (
                    part.kind is Kind.NAME
                    and id(part) in self._agents
                    and not labelled
                    and words[-1].casefold() != "by"
                ):
                    return False  # "who wrote it": its agent, before the verb or after "by", not its object
                return self._clear_gap(part, words[-cut:], labelled) and (
                    part.kind not in (Kind.ANY, Kind.NAME) or labelled or _links(lead, words[-cut:])
                )
        if part.kind in (Kind.PHONE, Kind.EMAIL):  # a number's shape says what it is: "LOS GATOS - (408) 356-3757"
            names = [n for n in self.asked.scope_names if n not in self._document_names]
            return any(tuple(fold(w) for w in words[-len(n) :]) == n for n in names)
        return False

    def _relation_names(self, part: Part, lead: str) -> bool:
        """The question's verb ends the lead ("used for", "written by"): it says what is asked where the verb is what
        is asked, or the lead names the rest too ("Default equation" is no default float placement)."""
        specific = self._specific.get(id(part)) or self._specific_of(part)
        verb = {stem(part.relation[0])}
        rest = [c for c in specific if not c.forms & verb]
        return not rest or all(claim_words(lead).holds(c) for c in rest)

    def _clear_gap(self, part: Part, tail: list[str], labelled: bool) -> bool:
        """After the last word naming the attribute, only function words, the question's own words, copulas, field
        names and numbers (a form's box code) before the value: "Governing law: laws of New York", not "sector - as
        set forth on Schedule A"."""
        relation = {stem(w) for w in part.relation}
        specific = self._specific.get(id(part)) or self._specific_of(part)
        # (what named the attribute: its focus; its subject where a generic focus named it, "kWh" of "kWh X $ 0.13")
        naming = part.focus if specific else (*part.focus, *self._subjects.get(id(part), ()))
        last = max(
            (i for i, w in enumerate(tail) if any(claim_words(w).holds(c) for c in naming) or stem(w) in relation),
            default=-1,
        )
        for word in tail[last + 1 :]:
            low = word.rstrip(".").casefold()
            if low in _NEGATIONS:
                return False  # "crop marks is not set to zero": not the value
            if low in self._gap_words or low in _COPULAS or _NUMBER.fullmatch(word) or len(word) == 1:
                continue
            if part.kind is Kind.DATE and low in _DATE_WORDS:
                continue
            if labelled and (stem(low) in LABEL_WORDS or stem(low) in ATTRIBUTES or stem(low) in _CAPTION_WORDS):
                continue  # "City, town or post office, state, and ZIP code:": a caption naming several fields
            return False
        return True

    def _defined_after(self, part: Part, trail: str) -> bool:
        """What follows the value names the attribute: a definition ("Cymbal Inc. (the Licensor)", "xdg-open is the
        default viewer", "5/29/18 is subject to late payment charges"), what an amount is of ("61.4 gigawatt hours of
        electricity"), or, for a count, what it counts ("46 extra-galactic nebulae"); only the question's own words or
        function words before the naming word."""
        match = _DEFINITION.match(trail)
        if match is None and part.kind in (Kind.AMOUNT, Kind.NUMBER):
            match = _MEASURE_OF.match(trail)
        if match is None and not self.asked.asks_count:
            return False
        words = _WORD.findall(trail[match.end() :] if match else trail)[: DEFINITION_REACH + 2]
        for cut in range(1, len(words) + 1):
            head = words[:cut]
            if self._names(part, " ".join(head), " ".join(words), labelled=False):
                return all(w.casefold() in self._gap_words or w.casefold() in _COPULAS for w in head[:-1])
        return False

    def _subject_of(self, part: Part) -> tuple[Clue, ...]:
        """The question's words that say whose attribute is asked, beyond its focus, its names and its verbs:
        "earlier", "application" of "the earlier application's filing date"."""
        named = {w for name in self.asked.question.names for w in name}
        verbs = {stem(w) for w in (*part.relation, *self.asked.question.verbs, *NOT_RELATIONS)}
        focus = {c for p in self.asked.parts for c in p.focus}  # (the other parts' focus is theirs)
        # ("the total …, before the amount already paid is taken off": a clause saying which total, not whose)
        main = _SUBORDINATE.split(fold(self.asked.text), maxsplit=1)[0]
        in_main = {w for w in _WORD.findall(main)}
        return tuple(
            c
            for c in self.asked.question.clues
            if c not in focus
            and c.word in in_main
            and c.word not in named
            and c.word not in self._describing
            and stem(c.word) not in verbs
            and not c.forms & _NOT_A_SUBJECT
            and not any(ch.isdigit() for ch in c.word)
            and not is_cjk(c.word)  # (CJK is read as characters and their pairs: no word of a subject)
            and c.word not in _PREPOSITIONS
        )

    def _subject_held(self, part: Part, said: str, segment: Segment) -> bool:
        """At least SUBJECT_SHARE of the subject's words are said around the value or by the document's title:
        "the *earlier application*" is not the patent its title names."""
        subject = self._subjects.get(id(part))
        if subject is None:
            subject = self._subject_of(part)
        if len(subject) < SUBJECT_WORDS:
            # (one word is as often the document's own as another thing's: it is only looked for in the whole of what
            # is known of the document, "dblatex" in a manual of GNU Prolog)
            return not subject or _said_in(subject[0], self._scope_words(segment, stems=True))
        here = claim_words(f"{said}\n{self._scope_words.title(segment, TITLE_LINES)}")
        return sum(here.holds(c) for c in subject) >= SUBJECT_SHARE * len(subject)


def _units(segment: Segment) -> Iterator[_Unit]:
    """The lines of a segment (a line of several sentences, its sentences), its sentences across lines (its lines
    joined), its table rows with their heads, and the pairs its boxes show side by side."""
    lines = [" ".join(line.split()) for line in segment.text.splitlines() if line.strip()]
    heads = tuple(c.strip() for c in lines[0].split(_CELL)) if segment.kind == "table" and lines else ()
    for line in lines:
        if _CELL in line:
            yield _Unit(line, heads)
            continue
        sentences = _sentences(line)
        for _, sentence in sentences if len(sentences) > 1 else [(0, line)]:
            yield _Unit(sentence)
    if len(lines) > 1:
        joined, starts, offset = [], set(), 0
        for line in lines:
            starts.add(offset)
            joined.append(line)
            offset += len(line) + 1
        text = " ".join(joined)
        for start, sentence in _sentences(text):
            yield _Unit(sentence, (), frozenset(s - start for s in starts if start <= s < start + len(sentence)))
    for pair in layout_pairs(segment):
        yield _Unit(pair.text, tuple(c.strip() for c in pair.header.split(_CELL)) if pair.row else ())


def _line_before(unit: _Unit, start: int) -> str:
    """The line above a value that opens its line, in a unit of lines joined."""
    before = [s for s in unit.line_starts if s < start]
    return unit.text[max(before) : start].strip() if before else ""


def _sentences(text: str) -> list[tuple[int, str]]:
    """The sentences of a text with where each starts (a sentence's text is stripped on the right only)."""
    out, start = [], 0
    for match in _BOUNDARY.finditer(text):
        out.append((start, text[start : match.end()].rstrip()))
        start = match.end()
    out.append((start, text[start:].rstrip()))
    return [(s, t) for s, t in out if t.strip()]


def _copied_from(claim: str, units: list[_Unit]) -> list[_Unit]:
    """The units a claim was copied from (its text is theirs, spaces aside); all of them for a claim written anew (a
    model's paraphrase): an extractive answer is verified by what it shows, not by another line of its passage."""
    said = " ".join(fold(claim).split())
    copied = [u for u in units if said in " ".join(fold(u.text).split())]
    return copied or units


def _label_alone(line: str) -> bool:
    """A label line with no value of its own ("ADDRESS:", "Balance Due"), not "ADDRESS: 111 Main Street", which labels
    its own value and not the line under it."""
    _, colon, value = line.partition(":")
    return not colon or not value.strip()


def _occurrences(text: str, value: str) -> Iterator[int]:
    """Where `value` is in `text`, as a whole word run (case-folded); a number not inside a longer one ("10" is not in
    "10,182,182")."""
    pattern = re.compile(r"(?<!\w)(?<!\w/)(?<!\d[.,])" + re.escape(value) + r"(?![\w]|[.,/]\d)", re.IGNORECASE)
    for match in pattern.finditer(text):
        yield match.start()


def _lead(text: str, start: int) -> str:
    """The words right before a value, back to a clause's end or another value, at most REACH words."""
    before = text[:start]
    # (a form asks, then labels the answer: "Are you taking any medication? (If yes, describe): Vyvanse")
    ends = [m for m in _BOUNDARY.finditer(before) if not (m.group("end") == "?" and before.rstrip().endswith(":"))]
    cut = max((m.end() for m in ends), default=0)
    # (a number between, then words: they are its own label; a number of the label, "Total du 11/12/2022:", is not)
    cut = max([cut, *(m.end() for m in _NUMBER.finditer(before) if re.search(r"[^\W\d_]", before[m.end() :]))])
    return " ".join(before[cut:].split()[-REACH:])


def _trail(text: str, end: int) -> str:
    """The words right after a value, up to a clause's end: where a definition of it would be."""
    after = text[end:]
    stop = _BOUNDARY.search(after)
    cut = (stop.start("end") if stop.group("end") else stop.start("stop")) if stop else len(after)
    return " ".join(after[:cut].split()[: DEFINITION_REACH + 3])


_VERB_FORMS = {"wrote": "written", "write": "written", "writes": "written"}


def _links(lead: str, tail: list[str]) -> bool:
    """An untyped value follows its attribute through a label's colon or a copula: "Terms: 6 month contract", "the
    default viewer is xdg-open", "X defaults to Y", not "distances are estimated for only 24"."""
    if lead.rstrip().endswith(_LABEL_END):
        return True
    return bool(tail) and tail[-1].casefold() in _LINKS


def _says_relation(text: str, relation: tuple[str, ...]) -> bool:
    """The question's verb and its preposition end `text` ("written by", "used for", "filed on"), in any form."""
    if not relation:
        return False
    words = [w.casefold() for w in _WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS or w in relation[1:]]
    if len(content) < len(relation):
        return False
    verb, *rest = content[-len(relation) :]
    forms = {stem(relation[0]), stem(_VERB_FORMS.get(relation[0], relation[0]))}
    return stem(_VERB_FORMS.get(verb, verb)) in forms and rest == list(relation[1:])


def _untyped_values(text: str, known: frozenset[str]) -> list[str]:
    """What an untyped claim gives: its words after its label, or its words the question does not hold (a version
    or a path is one word: "3.7", "/etc/msmtprc")."""
    head, colon, rest = text.rpartition(":")
    body = f"{rest} {head}" if colon and len(head) <= 120 else text
    words = [
        w
        for w in _TOKEN.findall(body)
        if w.casefold() not in known and w.casefold() not in STOPWORDS and not _VERB_FORM.fullmatch(w)
    ]
    return list(dict.fromkeys(words))[:UNTYPED_VALUES]


def _said_in(clue: Clue, words: Words) -> bool:
    """The clue is one of the words, or, for a long word, one of them as OCR may have read it ("PRNTER")."""
    if words.holds(clue):
        return True
    if len(clue.word) < FUZZY_CHARS:
        return False
    return process.extractOne(clue.word, words.tokens, scorer=fuzz.ratio, score_cutoff=FUZZY_SCORE) is not None


def _by_default(tail: str, trail: str) -> str:
    """ "The small distance is 256 bytes by default": a default said after its value names the attribute too."""
    return f"{tail} default" if _BY_DEFAULT.match(trail) else tail


def _labels(lead: str) -> bool:
    """The lead ends as a label does: a colon, a dash, an equals sign, or a word in capitals ("VIGENCIA")."""
    stripped = lead.rstrip()
    last = stripped.rsplit(maxsplit=1)[-1] if stripped else ""
    return stripped.endswith(_LABEL_END) or (len(last) > 1 and last.isalpha() and last.isupper())


def _owned_here(asked: Asked, text: str) -> bool:
    """A name the question gives is said around the value: it tells which of two same labels is asked."""
    here = names_of(text)
    return any(names_held(n, here) for n in asked.scope_names)


def _does(trail: str, verb: Clue) -> bool:
    """The trail opens with the verb (after an auxiliary): "contributed this", "has refined the"."""
    words = [w.casefold() for w in _WORD.findall(trail)[:3]]
    words = words[1:] if words[:1] and words[0] in _AUXILIARIES else words
    return bool(words) and claim_words(words[0]).holds(verb)


def _document_names(asked: Asked) -> frozenset[tuple[str, ...]]:
    """The question's names that name its document: right before or after a kind of document ("Company ABC's
    invoice 001", "invoice 23413561D", "the EDF bill")."""
    words = [w for w in _WORD.findall(fold(asked.text)) if w != "s"]
    documents = {i for i, w in enumerate(words) if _DOCUMENT_NOUN.fullmatch(w)}
    named = set()
    for name in asked.scope_names:
        for i in range(len(words) - len(name) + 1):
            if tuple(words[i : i + len(name)]) != name:
                continue
            after_document = i - 1 in documents or (i >= 2 and words[i - 1] in _FROM and i - 2 in documents)
            if i + len(name) in documents or after_document:  # "the invoice from Company ABC"
                named.add(name)
    return frozenset(named)


def _owning_names(asked: Asked, part: Part) -> tuple[tuple[str, ...], ...]:
    """The question's names that own or qualify the part's focus, written next to it: right before it ("the Harvard
    estimate", "Lundmark's solution"), or after it and "of", "for" ("units of Tool A")."""
    words = [w for w in _WORD.findall(fold(asked.text)) if w != "s"]
    documents = {i for i, w in enumerate(words) if _DOCUMENT_NOUN.fullmatch(w)}
    focus = {i for i, w in enumerate(words) if any(claim_words(w).holds(c) for c in part.focus)}
    owning = []
    for name in asked.scope_names:
        for i in range(len(words) - len(name) + 1):
            if tuple(words[i : i + len(name)]) != name:
                continue
            end = i + len(name)
            if end in documents or i - 1 in documents:
                break  # "the EDF contract", "patent US 10,142,938": the document's name
            before = end in focus
            after = i - 1 in focus or (i >= 2 and words[i - 1] in _OWNING and i - 2 in focus)
            after = after or (i >= 3 and words[i - 1] == "the" and words[i - 2] in _OWNING and i - 3 in focus)
            if before or after:
                owning.append(name)
                break
    return tuple(owning)


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """A value's span grown to the word it is part of: "E00007730", not "00007730"."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    while start > 0 and (text[start - 1].isalnum() or _joins_digits(text, start - 1)):
        start -= 1
    while end < len(text) and (text[end].isalnum() or _joins_digits(text, end)):
        end += 1
    return start, end


def _joins_digits(text: str, at: int) -> bool:
    """A slash, a dot or a dash between two digits is inside one value: "03/2017", "15/453,945"."""
    return text[at] in "/.-" and 0 < at < len(text) - 1 and text[at - 1].isdigit() and text[at + 1].isdigit()


def _describing_words(question: str) -> frozenset[str]:
    """The words of a question that describe the document it asks of, not whose attribute it asks: "voter" of "her
    voter credential", "health intake" of "the health intake form", "item table" of "the form with the item
    table", "uploading applications" of "the patent on uploading applications"."""
    low = fold(question)
    words: set[str] = set()
    for match in _DOCUMENT_NOUN.finditer(low):
        words.update(_WORD.findall(low[max(0, match.start() - 40) : match.start()])[-3:])
        after = _DESCRIBING_AFTER.match(low, match.end())
        if after:
            words.update(_WORD.findall(after.group(1)))
    return frozenset(words)


def _plain(value: str) -> str:
    return re.sub(r"\W+", "", fold(value))
