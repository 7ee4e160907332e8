"""Whether the words around a value name the attribute asked: a label or the question's verb before it ("Balance
Due:", "written by"), with nothing between them and the value but function words, field names or a parenthesis; a
definition after it ("(the Licensor)", "is the default viewer"); a default stated on its own."""

from __future__ import annotations

import re

from query.fit.relation.reading import NEGATIONS, QuestionReading
from query.fit.relation.units import DEFINITION_REACH, NUMBER, WORD
from query.fit.words import ATTRIBUTES, LABEL_WORDS, claim_words, names_of
from query.language.question import Clue, Kind, Part, Words, stem
from query.language.terms import STOPWORDS, fold

_WORD_AND_DOT = re.compile(r"\w+\.?")
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
# Words that tell one attribute from another of its kind: a label may not leave them out ("METER READING" is not the
# previous meter reading, "Balance" not the previous balance).
_CONTRASTIVE = frozenset(
    "default previous current last next first new old prior minimum maximum min max initial final original total net "
    "gross".split()
)
_BY_DEFAULT = re.compile(r"^\W*(?:\w+\W+)?(?:by|per)\s+default\b", re.IGNORECASE)
_NUMBER_WORDS = frozenset("number numbers numero nummer numéro número".split())
# A default stated on its own: "Default value is", "The default is", "Defaults to", "(default:".
_DEFAULT_IS = re.compile(r"(?:the\s+)?default(?:\s+value)?(?:\s+(?:is|are|was))?\s*[:=]?|defaults?\s+to", re.IGNORECASE)
_LINKS = frozenset(
    "is are was were be to equals called named by of for from".split()
)  # what may link an untyped value to its name
COPULAS = frozenset(
    "is are was were be been being will shall can may must set equals equal about approximately around roughly".split()
)
_CAPTION_WORDS = frozenset(
    map(stem, "name address street city town state province country zip code post office".split())
)
# Words a date's phrase holds around its value: "second week of October 2019", "end of May".
_DATE_WORDS = frozenset("first second third fourth last week weeks month end beginning early mid late".split())
_VERB_FORMS = {"wrote": "written", "write": "written", "writes": "written"}
_SENTENCE_END = re.compile(r"[.;:!?](?:\s|$)")
_DETERMINERS = frozenset("the a an its their his her our".split())
DOER_REACH = 2  # words between the one that does it and its verb ("SBCL *currently* uses")
DOER_SHARE = 0.5  # of the doer's words ("SBCL" of "the SBCL project")


class NamingCheck:
    """Whether the words before or after a value name the attribute a part of the question asks."""

    def __init__(self, reading: QuestionReading) -> None:
        self._reading = reading

    def names(self, part: Part, text: str, whole: str | None = None, *, labelled: bool = True) -> bool:
        """`text` names the attribute asked: its role's label ("TO:"); or its specific focus words (those not a verb
        of the question), all of them, or its head noun alone where the whole label (`whole`) says nothing else
        ("TERMS:" for the payment terms); with none, a word of its focus and the question's verb ("Amount enclosed"),
        or, in a label, a word of its subject ("VIGENCIA" for the year it is valid)."""
        if part.role and part.role in names_of(text).tokens:
            return True
        words = claim_words(text)
        specific = self._reading.specific(part)
        if specific:
            held = [c for c in specific if words.holds(c)]
            if len(held) == len(specific):
                return True
            missing = [c for c in specific if c not in held]
            relaxed = len(missing) == 1 and words.holds(specific[-1]) and missing[0].word not in _CONTRASTIVE
            return relaxed and not self._says_more(claim_words(whole if whole is not None else text))
        question = self._reading.asked.question
        verbs = [v for v in (*question.verbs, *part.relation[:1]) if v not in {c.word for c in part.focus}]
        if verbs and not any(stem(v) in words.stems for v in verbs):
            return False  # "what amount was enclosed": an amount, enclosed
        # (a part of another reading of the question has no subject words here)
        subject = self._reading.subjects.get(id(part), ()) if labelled else ()
        focus = [c for c in part.focus if part.kind is not Kind.PHONE or c.word not in _NUMBER_WORDS]
        if not any(words.holds(c) for c in (*focus, *subject)):  # ("ACCOUNT NUMBER" is no phone's label)
            return False
        # (a generic focus, "date", is any date: a label that says which, "DOB", names another one than asked)
        return not (labelled and self._says_more(claim_words(text)))

    def _says_more(self, words: Words) -> bool:
        """A label says more than the question: a content word of its own ("BALANCE DUE" for the previous balance)."""
        return any(
            w not in self._reading.gap_words and not any(ch.isdigit() for ch in w)
            for w in words.tokens - self._reading.asked_tokens
        )

    def named_before(self, part: Part, lead: str, trail: str = "", line_start: bool = False) -> bool:
        """The lead names the attribute (or ends on the question's verb: "written by", "used for"), and nothing but
        function words, field names or a parenthesis stand between that and the value."""
        clean = _PARENTHESIS.sub(" ", lead)
        found = list(_WORD_AND_DOT.finditer(clean))  # ("Appl." keeps its dot: an abbreviation)
        words = [m.group() for m in found]
        labelled = labels(lead) or line_start
        for cut in range(1, len(words) + 1):  # (the shortest tail of the lead that names it; "Appl. No." as written)
            tail = clean[found[-cut].start() :]
            if says_relation(tail, part.relation) and self._relation_names(part, clean):
                return True
            if self.names(part, _by_default(tail, trail), clean, labelled=labelled):
                if (
                    part.kind is Kind.NAME
                    and self._reading.asks_agent(part)
                    and not labelled
                    and words[-1].casefold() != "by"
                ):
                    return False  # "who wrote it": its agent, before the verb or after "by", not its object
                return self._clear_gap(part, words[-cut:], labelled) and (
                    part.kind not in (Kind.ANY, Kind.NAME) or labelled or _links(lead, words[-cut:])
                )
        if part.kind in (Kind.PHONE, Kind.EMAIL):  # a number's shape says what it is: "LOS GATOS - (408) 356-3757"
            names = [n for n in self._reading.asked.scope_names if n not in self._reading.document_names]
            return any(tuple(fold(w) for w in words[-len(n) :]) == n for n in names)
        return False

    def _relation_names(self, part: Part, lead: str) -> bool:
        """The question's verb ends the lead ("used for", "written by"): it says what is asked where the verb is what
        is asked, or the lead names the rest too ("Default equation" is no default float placement)."""
        specific = self._reading.specific(part)
        verb = {stem(part.relation[0])}
        rest = [c for c in specific if not c.forms & verb]
        return not rest or all(claim_words(lead).holds(c) for c in rest)

    def _clear_gap(self, part: Part, tail: list[str], labelled: bool) -> bool:
        """After the last word naming the attribute, only function words, the question's own words, copulas, field
        names and numbers (a form's box code) before the value: "Governing law: laws of New York", not "sector - as
        set forth on Schedule A"."""
        relation = {stem(w) for w in part.relation}
        specific = self._reading.specific(part)
        # (what named the attribute: its focus; its subject where a generic focus named it, "kWh" of "kWh X $ 0.13")
        naming = part.focus if specific else (*part.focus, *self._reading.subjects.get(id(part), ()))
        last = max(
            (i for i, w in enumerate(tail) if any(claim_words(w).holds(c) for c in naming) or stem(w) in relation),
            default=-1,
        )
        for word in tail[last + 1 :]:
            low = word.rstrip(".").casefold()
            if low in NEGATIONS:
                return False  # "crop marks is not set to zero": not the value
            if low in self._reading.gap_words or low in COPULAS or NUMBER.fullmatch(word) or len(word) == 1:
                continue
            if part.kind is Kind.DATE and low in _DATE_WORDS:
                continue
            if labelled and (stem(low) in LABEL_WORDS or stem(low) in ATTRIBUTES or stem(low) in _CAPTION_WORDS):
                continue  # "City, town or post office, state, and ZIP code:": a caption naming several fields
            return False
        return True

    def defined_after(self, part: Part, trail: str) -> bool:
        """What follows the value names the attribute: a definition ("Cymbal Inc. (the Licensor)", "xdg-open is the
        default viewer", "5/29/18 is subject to late payment charges"), what an amount is of ("61.4 gigawatt hours of
        electricity"), or, for a count, what it counts ("46 extra-galactic nebulae"); only the question's own words or
        function words before the naming word."""
        match = _DEFINITION.match(trail)
        if match is None and part.kind in (Kind.AMOUNT, Kind.NUMBER):
            match = _MEASURE_OF.match(trail)
        if match is None and not self._reading.asked.asks_count:
            return False
        words = WORD.findall(trail[match.end() :] if match else trail)[: DEFINITION_REACH + 2]
        for cut in range(1, len(words) + 1):
            head = words[:cut]
            if self.names(part, " ".join(head), " ".join(words), labelled=False):
                return all(w.casefold() in self._reading.gap_words or w.casefold() in COPULAS for w in head[:-1])
        return False

    def default_of(self, part: Part, before: str, lead: str) -> bool:
        """ "… sets the height of each line. Default value is 1cm.": a default stated on its own, after the sentences
        of its item (the line) that name the attribute."""
        if not _DEFAULT_IS.fullmatch(lead) or not any("default" in c.forms for c in part.focus):
            return False
        item = before[: before.rfind(lead)] if lead else before
        return self.names(part, f"{item} default", labelled=False)


def _links(lead: str, tail: list[str]) -> bool:
    """An untyped value follows its attribute through a label's colon or a copula: "Terms: 6 month contract", "the
    default viewer is xdg-open", "X defaults to Y", not "distances are estimated for only 24"."""
    if lead.rstrip().endswith(_LABEL_END):
        return True
    return bool(tail) and tail[-1].casefold() in _LINKS


def says_relation(text: str, relation: tuple[str, ...]) -> bool:
    """The question's verb and its preposition end `text` ("written by", "used for", "filed on"), in any form."""
    if not relation:
        return False
    words = [w.casefold() for w in WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS or w in relation[1:]]
    if len(content) < len(relation):
        return False
    verb, *rest = content[-len(relation) :]
    forms = {stem(relation[0]), stem(_VERB_FORMS.get(relation[0], relation[0]))}
    return stem(_VERB_FORMS.get(verb, verb)) in forms and rest == list(relation[1:])


def _by_default(tail: str, trail: str) -> str:
    """ "The small distance is 256 bytes by default": a default said after its value names the attribute too."""
    return f"{tail} default" if _BY_DEFAULT.match(trail) else tail


def labels(lead: str) -> bool:
    """The lead ends as a label does: a colon, a dash, an equals sign, or a word in capitals ("VIGENCIA")."""
    stripped = lead.rstrip()
    last = stripped.rsplit(maxsplit=1)[-1] if stripped else ""
    return stripped.endswith(_LABEL_END) or (len(last) > 1 and last.isalpha() and last.isupper())


def does(trail: str, verb: Clue) -> bool:
    """The trail opens with the verb (after an auxiliary): "contributed this", "has refined the"."""
    words = [w.casefold() for w in WORD.findall(trail)[:3]]
    words = words[1:] if words[:1] and words[0] in _AUXILIARIES else words
    return bool(words) and claim_words(words[0]).holds(verb)


def done_by_doer(reading: QuestionReading, part: Part, lead: str, trail: str) -> bool:
    """ "Which generator does SBCL use?" answered by "SBCL currently uses the Mersenne Twister as its random number
    generator": in the value's sentence, the question's doer, at most DOER_REACH words, the question's verb, at most
    a determiner, then the value; and the sentence names some of what is asked ("generator")."""
    if not reading.doer:
        return False
    clause = _SENTENCE_END.split(lead)[-1]
    words = [w.casefold() for w in WORD.findall(clause)]
    while words and words[-1] in _DETERMINERS:
        words.pop()
    verb = reading.doer_verb
    base = verb.removesuffix("e")
    if not words or words[-1] not in {verb, f"{verb}s", f"{verb}d", f"{base}es", f"{base}ed"}:
        return False
    before = words[-2 - DOER_REACH : -1]
    doer = [w for w in reading.doer if w in before]
    if not doer or len(doer) < DOER_SHARE * len(reading.doer):
        return False
    sentence = claim_words(f"{clause} {_SENTENCE_END.split(trail)[0]}")
    return any(sentence.holds(c) for c in reading.specific(part) if c.word != reading.doer_verb)
