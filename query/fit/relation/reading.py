"""What the relation check reads of the question, once for all the claims it verifies: the words that may stand
between a value and what names it, whose attribute each part asks (its subject words, the names owning its focus),
the focus words a label must say, the names the question writes as code or gives its document, and what kind of
relation it asks (through a negation, of an agent, of what a thing does)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from query.fit.asked import Asked
from query.fit.relation.units import WORD
from query.fit.words import LABEL_WORDS, claim_words
from query.language.question import CODE_NAME, NOT_RELATIONS, Clue, Part, stem
from query.language.terms import QUESTION_WORDS, STOPWORDS, fold, is_cjk

NEGATIONS = frozenset("not no never without none nor cannot n't".split())
_WHO = frozenset("who whom".split())
_DOES_WHAT = re.compile(r"what (?:does|do|did|will) (?:the |a |an )?(.+?) do\s*\??")
# "Which generator does SBCL use?": the thing asked, then who does it ("SBCL"), then the verb (with its particle)
_DOES_VERB = re.compile(
    r"(?:what|which)\s+\S.*?\s+(?:does|do|did)\s+(?:the\s+|a\s+|an\s+)?(.+?)\s+(\w+)"
    r"(?:\s+(?:to|for|on|with|by|as|in|from|of|at|up|out|into))?\s*\??"
)
# "… proposed by which company?": the verb whose agent is asked
_BY_WHICH = re.compile(r"\b(\w+ed)\s+by\s+(?:which|what)\b")
_OWNING = frozenset("of for".split())
_FROM = frozenset("from of by".split())
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
_DOCUMENT_NOUN = re.compile(
    r"\b(?:form|receipt|invoice|bill|stub|statement|letter|contract|agreement|patent|passport|licen[cs]e|report|"
    r"schedule|certificate|card|credential|manual|guide|slip|policy|facture|factura|rechnung|brevet)s?\b"
)
_SUBORDINATE = re.compile(r",\s*(?:before|after|when|while|if|once|until|so that|because)\b")
_DESCRIBING_AFTER = re.compile(r"\s+(?:on|about|for|regarding|with|of|that)\s+(.*)$")


@dataclass(frozen=True)
class QuestionReading:
    """The question as the relation check reads it (`of`), the per-part readings keyed by the part's id: a part of
    another reading of the question is read when asked of (`subject`, `specific`, `owning_names`)."""

    asked: Asked
    gap_words: frozenset[str]  # what may stand between a value and its name: function words, the question's words
    asked_tokens: frozenset[str]  # the question's words and their forms: a label's word beyond them says more
    describing: frozenset[str]  # the words describing the document asked of
    subjects: Mapping[int, tuple[Clue, ...]]
    specifics: Mapping[int, list[Clue]]
    owners: Mapping[int, tuple[tuple[str, ...], ...]]
    document_names: frozenset[tuple[str, ...]]
    code_names: Mapping[tuple[str, ...], str]  # (the name's words -> the code as the question writes it, no dashes)
    negated: bool  # ("which option does not …": a negation is asked)
    owned_focus: bool  # ("which release of R": the question says whose; "a release of C11" is another's)
    does_what: str  # ("what does rand(-1) do": what a thing does is asked)
    # ("which generator does SBCL use": the words of the one that does it, and the verb; else empty)
    doer: tuple[str, ...]
    doer_verb: str
    agent_verb: str  # ("proposed by which company": the value is said right after "proposed by")
    agents: frozenset[int]  # ("who wrote it": the verb is the focus, and the value its agent)

    @classmethod
    def of(cls, asked: Asked) -> QuestionReading:
        describing = _describing_words(asked.text)
        does = _DOES_WHAT.fullmatch(fold(asked.text).strip())
        first = asked.question.text.split(maxsplit=2)
        doer, verb = _doer(asked, does is not None)
        return cls(
            asked=asked,
            gap_words=STOPWORDS | QUESTION_WORDS | asked.known,
            asked_tokens=asked.known | {f for c in asked.question.clues for f in c.forms},
            describing=describing,
            subjects={id(p): _subject_of(asked, p, describing) for p in asked.parts},
            specifics={id(p): _specific_of(asked, p) for p in asked.parts},
            owners={id(p): _owning_names(asked, p) for p in asked.parts},
            document_names=_document_names(asked),
            code_names={
                tuple(w.casefold() for w in WORD.findall(m.group())): m.group().lstrip("-")
                for m in CODE_NAME.finditer(asked.question.text)
            },
            negated=bool(asked.known & NEGATIONS),
            owned_focus=any(
                re.search(rf"\b{re.escape(c.word)}\w*\s+of\b", fold(asked.text)) for p in asked.parts for c in p.focus
            ),
            does_what=does.group(1) if does else "",
            doer=doer,
            doer_verb=verb,
            agent_verb=by_which.group(1) if (by_which := _BY_WHICH.search(fold(asked.text))) else "",
            agents=frozenset(
                id(p)
                for p in asked.parts
                if first[:1]
                and fold(first[0]) in _WHO
                and p.focus
                and len(first) > 1
                and fold(first[1]).strip("?") == p.focus[0].word
            ),
        )

    def subject(self, part: Part) -> tuple[Clue, ...]:
        subject = self.subjects.get(id(part))
        return _subject_of(self.asked, part, self.describing) if subject is None else subject

    def specific(self, part: Part) -> list[Clue]:
        return self.specifics.get(id(part)) or _specific_of(self.asked, part)

    def owning_names(self, part: Part) -> tuple[tuple[str, ...], ...]:
        names = self.owners.get(id(part))
        return _owning_names(self.asked, part) if names is None else names

    def asks_agent(self, part: Part) -> bool:
        return id(part) in self.agents


def _doer(asked: Asked, does_what: bool) -> tuple[tuple[str, ...], str]:
    """Of "Which generator does SBCL use?": who does it, in words, and the verb, where the verb is the one the
    question's only part relates its focus by (not "what does X do", which asks what is done)."""
    verb = asked.parts[0].relation[:1] if len(asked.parts) == 1 else ()
    found = _DOES_VERB.fullmatch(fold(asked.text).strip())
    if does_what or not found or not verb or found.group(2) != verb[0]:
        return (), ""
    words = tuple(w for w in WORD.findall(found.group(1)) if w not in STOPWORDS)
    return (words, verb[0]) if words else ((), "")


def _subject_of(asked: Asked, part: Part, describing: frozenset[str]) -> tuple[Clue, ...]:
    """The question's words that say whose attribute is asked, beyond its focus, its names and its verbs:
    "earlier", "application" of "the earlier application's filing date"."""
    named = {w for name in asked.question.names for w in name}
    verbs = {stem(w) for w in (*part.relation, *asked.question.verbs, *NOT_RELATIONS)}
    focus = {c for p in asked.parts for c in p.focus}  # (the other parts' focus is theirs)
    # ("the total …, before the amount already paid is taken off": a clause saying which total, not whose)
    main = _SUBORDINATE.split(fold(asked.text), maxsplit=1)[0]
    in_main = {w for w in WORD.findall(main)}
    return tuple(
        c
        for c in asked.question.clues
        if c not in focus
        and c.word in in_main
        and c.word not in named
        and c.word not in describing
        and stem(c.word) not in verbs
        and not c.forms & _NOT_A_SUBJECT
        and not any(ch.isdigit() for ch in c.word)
        and not is_cjk(c.word)  # (CJK is read as characters and their pairs: no word of a subject)
        and c.word not in _PREPOSITIONS
    )


def _specific_of(asked: Asked, part: Part) -> list[Clue]:
    """The focus words a label must say: not the generic ones (a value says "date" itself), nor a verb of the
    question ("the total *paid*"), unless nothing else is left ("When was it *filed*?")."""
    specific = [c for c in part.focus if c.word not in part.generic]
    specific = [c for c in specific if not c.forms & LABEL_WORDS] or specific  # ("the default *value*")
    nouns = [c for c in specific if c.word not in asked.question.verbs] or specific
    # ("which font does it use by default": the default font, not any font it may use)
    default = [c for c in asked.question.clues if c.word == "default" and c not in nouns]
    return [*default, *nouns] if nouns else nouns


def _question_words(asked: Asked) -> list[str]:
    """The question's words, folded, a possessive's "s" left out ("Company ABC's invoice")."""
    return [w for w in WORD.findall(fold(asked.text)) if w != "s"]


def _written_at(words: list[str], name: tuple[str, ...]) -> Iterator[int]:
    """Where a name is written among the question's words."""
    for i in range(len(words) - len(name) + 1):
        if tuple(words[i : i + len(name)]) == name:
            yield i


def _document_names(asked: Asked) -> frozenset[tuple[str, ...]]:
    """The question's names that name its document: right before or after a kind of document ("Company ABC's
    invoice 001", "invoice 23413561D", "the EDF bill")."""
    words = _question_words(asked)
    documents = {i for i, w in enumerate(words) if _DOCUMENT_NOUN.fullmatch(w)}
    named = set()
    for name in asked.scope_names:
        for i in _written_at(words, name):
            after_document = i - 1 in documents or (i >= 2 and words[i - 1] in _FROM and i - 2 in documents)
            if i + len(name) in documents or after_document:  # "the invoice from Company ABC"
                named.add(name)
    return frozenset(named)


def _owning_names(asked: Asked, part: Part) -> tuple[tuple[str, ...], ...]:
    """The question's names that own or qualify the part's focus, written next to it: right before it ("the Harvard
    estimate", "Lundmark's solution"), or after it and "of", "for" ("units of Tool A")."""
    words = _question_words(asked)
    documents = {i for i, w in enumerate(words) if _DOCUMENT_NOUN.fullmatch(w)}
    focus = {i for i, w in enumerate(words) if any(claim_words(w).holds(c) for c in part.focus)}
    owning = []
    for name in asked.scope_names:
        for i in _written_at(words, name):
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


_ASKED_VERB = re.compile(r"\b(?:does|do|did|will|would|can)\b")
_PREPOSITIONS_OF_PLACE = frozenset("on in of from for at to with by according".split())


def _describing_words(question: str) -> frozenset[str]:
    """The words of a question that describe the document it asks of, not whose attribute it asks: "voter" of "her
    voter credential", "health intake" of "the health intake form", "item table" of "the form with the item
    table", "uploading applications" of "the patent on uploading applications"."""
    low = fold(question)
    words: set[str] = set()
    for match in _DOCUMENT_NOUN.finditer(low):
        # ("… does print-gc-statistics report?": the question's verb; "… on the electric bill?": a document)
        auxiliary = list(_ASKED_VERB.finditer(low, 0, match.start()))
        between = WORD.findall(low[auxiliary[-1].end() : match.start()]) if auxiliary else []
        if auxiliary and not low[match.end() :].strip(" ?") and not set(between) & _PREPOSITIONS_OF_PLACE:
            continue
        words.update(WORD.findall(low[max(0, match.start() - 40) : match.start()])[-3:])
        after = _DESCRIBING_AFTER.match(low, match.end())
        if after:
            words.update(WORD.findall(after.group(1)))
    return frozenset(words)
