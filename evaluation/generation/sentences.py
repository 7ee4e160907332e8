"""Questions from sentences that state a value of a named thing: "the default line width is 0.5bp", "ngraph
defaults to 100", "the tutorial was written by Charles Staats", "the agreement renews for five (5) years". The
question names the subject in the sentence's own words and asks for the value; the value is the answer. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from evaluation.generation.entries import parts
from evaluation.generation.text import STOPWORDS, Document, sentences
from evaluation.generation.values import NAME, SETTING_WORDS, Candidate, value_after
from evaluation.generation.wording import phrase, the_term
from evaluation.questions import SegmentRef

MAX_SUBJECT_WORDS = 8
MAX_SENTENCE_CHARS = 1000  # longer: a run of text the splitter could not cut, no statement
# Words that name no one thing alone (`the default value`, `the output file`).
GENERIC = frozenset(
    "value values setting settings default defaults size number name type mode option options result output input "
    "file files limit parameter parameters argument arguments command commands variable field item data case way "
    "example first last following next previous above below new old other same current minimum maximum max min "
    "total overall average usual typical initial final actual real behaviour behavior costs cost thing things".split()
)
# Words a subject never runs past on its left: they start a clause, not a noun phrase.
_DETERMINERS = frozenset("the a an its their his her our your my these those this".split())
# Words a subject runs past on its left (`the separation between these boxplots`).
_INSIDE = _DETERMINERS | frozenset("of for in on between to with at from per".split())
_BOUNDARY = STOPWORDS - _INSIDE | frozenset("now currently always still usually normally generally often".split())
# A subject right after one of these is a supposition (`if the parameter j is 0, ...`), not a statement.
_CONDITIONS = frozenset("if when unless whether while once until suppose assuming whenever where".split())
# A sentence starting with one of these states a value only under its condition or scope (`On a visual class with a
# depth > 8bit the maximal number of colors is 0x100`).
_SCOPES = _CONDITIONS | {"on", "for", "with", "in", "under", "after", "before"}
_CLAUSE_WORDS = frozenset("if when unless whether because while where which that who than".split())
_PREPOSITIONS = frozenset("of for in on to with by at from between per".split())
_NEGATIONS = frozenset("no not none neither nor".split())
_DEICTIC = frozenset("this these those such".split())
_PRONOUNS = frozenset("it this that these those they there which he she we you one each both".split())
_NOT_A_SUBJECT = re.compile(r"[()\[\]{}=<>|;:!?]|^\W|\d$")
_SUBJECT_WORD = re.compile(r"^(?:[\w\"'“”‘’./#+\-]+|<\w+>)$")
_PLACEHOLDER = re.compile(r"<\w+>")  # `<gamma> defaults to 1.5`: a named parameter
_NOUNS = (
    "value|setting|size|width|length|number|name|type|mode|limit|font|color|colour|style|format|level|range|scale|"
    "order|position|location|unit|units|direction|precision|separator|encoding|rate|interval|timeout|path|port"
)
_DATE = (
    r"(?:(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.? \d{1,2},? \d{4}|\d{1,2} (?:January|February|March|"
    r"April|May|June|July|August|September|October|November|December) \d{4}|\d{4}-\d{2}-\d{2}|(?:1[6-9]|20)\d\d)"
)


@dataclass(frozen=True)
class Statement:
    """One way a sentence states a value: where its subject is (group `subject`, else the noun phrase right before
    the match), how its value is read, and the question asked of it (a format over the match's groups)."""

    pattern: re.Pattern[str]
    question: str
    value: Callable[[re.Match[str]], tuple[str, ...] | None]
    subject_of: Callable[[str], str | None] | None = None  # None: the group `subject`
    name_only: bool = False  # the group `subject` is a name (`the default font size is`), never words of a clause
    of_a_name: bool = False  # what it says of its subject is true wherever the name is used (an abbreviation)


def _rest(plain_word: bool) -> Callable[[re.Match[str]], tuple[str, ...] | None]:
    return lambda m: value_after(m["rest"], plain_word=plain_word)


def _whole_rest(m: re.Match[str]) -> tuple[str, ...] | None:
    """The value is all of `rest` (`is 16 MB by default`, never `is 16 MB larger by default`)."""
    answers = value_after(m["rest"], plain_word=False)
    return answers if answers and answers[0] == m["rest"].strip() else None


def _group(name: str) -> Callable[[re.Match[str]], tuple[str, ...] | None]:
    return lambda m: (m[name].strip(),)


def _duration(m: re.Match[str]) -> tuple[str, ...] | None:
    answers = value_after(m["rest"], plain_word=False)
    return answers if answers and any(c.isdigit() for c in "".join(answers)) else None


def _meaning(m: re.Match[str]) -> tuple[str, ...] | None:
    """What an abbreviation stands for: a quoted phrase, or words that start with capitals (`Portable Document
    Format`)."""
    if quoted := re.match(r"""\s*["“'‘](?P<v>[^"”'’]{3,60})["”'’]""", m["rest"]):
        return (quoted["v"],)
    words = re.match(r"\s*(?P<v>[A-Z][\w-]*(?: (?:[a-z]{1,3} )?[A-Z][\w-]*){1,6})", m["rest"])
    return (words["v"],) if words else None


def _named_value(m: re.Match[str]) -> tuple[str, ...] | None:
    """`Memcheck is the default tool`: the value names a thing (`This is the default` points at one)."""
    value = m["value"].strip("\"“”'‘’")
    return (value,) if value.casefold() not in STOPWORDS and not value.isdigit() else None


def _short(m: re.Match[str]) -> tuple[str, ...] | None:
    """An abbreviation: a short token, not a word of the sentence (`may be abbreviated as indicated`)."""
    short = m["short"].strip("\"'‘’`")
    return (short,) if short.casefold() not in STOPWORDS and not short.endswith("ed") else None


def _code(m: re.Match[str]) -> tuple[str, ...] | None:
    """Words of code (`set history size N`, `-e "call scriptfile"`), never words of a sentence."""
    code = m["code"].strip()
    words = re.sub(r"\"[^\"]*\"", "", code).split()  # what a quoted command says is code too
    return (code,) if len(code.split()) <= 8 and not STOPWORDS & {w.casefold() for w in words} else None


def _code_before(text: str) -> str | None:
    """The code a sentence starts with, up to its verb: `set historysize N`, `-c` (after `Historysize
    (Deprecated).`, which the splitter leaves on: a sentence there starts in lower case)."""
    text = re.split(r"[.;:]\s", text)[-1]
    words = text.split()
    if (
        not 0 < len(words) <= 4
        or STOPWORDS & {w.casefold() for w in words}
        or not (text[:1].islower() or text[:1] == "-")
    ):
        return None
    return " ".join(words)


def _before(through_and: bool = False) -> Callable[[str], str | None]:
    return lambda text: subject_before(text, through_and=through_and)


def _definite(text: str) -> str | None:
    """A subject that starts with `the`: `the maximum line length is 255` names one thing, `a line is 3` not."""
    subject = subject_before(text)
    return subject if subject and subject.split()[0].casefold() == "the" else None


STATEMENTS = (
    Statement(re.compile(r"\s(?P<verb>defaults?) to\s(?P<rest>.+)$"), "What {does} {subject} default to?",
              _rest(plain_word=True), _before()),
    Statement(re.compile(rf"(?:^|\s)[Tt]he default (?:(?P<noun>{_NOUNS}) )?(?:of|for) (?P<subject>[^,;:()]{{2,60}}?) "
                         r"(?P<verb>is|are) (?P<rest>.+)$"),
              "What {verb} the default {noun} of {subject}?", _rest(plain_word=True)),
    Statement(re.compile(r"\s(?P<verb>has|have) a default (?:value |setting )?of\s(?P<rest>.+)$"),
              "What is the default value of {subject}?", _rest(plain_word=True), _before()),
    Statement(re.compile(r"(?:^|\s)(?P<subject>[Tt]he [\w\-]+['’]s default [\w\- ]{2,30}?) (?P<verb>is|are) "
                         r"(?P<rest>.+)$"),
              "What {verb} {subject}?", _rest(plain_word=True)),
    Statement(re.compile(r"(?P<subject><\w+>|--?\w[\w\-]*)[^,;()]{0,60}\((?:[^(),]{1,30}, )?(?:the )?default"
                         r"(?: is|:|=)? (?P<rest>[^()]{1,40})\)"),
              "What is the default value of {subject}?", _rest(plain_word=True)),
    Statement(re.compile(r"(?:^|\s)[Tt]he default (?P<subject>[\w\-]+(?: [\w\-]+){0,3}?) (?P<verb>is|are) "
                         r"(?P<rest>.+)$"),
              "What {verb} the default {subject}?", _rest(plain_word=True), name_only=True),
    Statement(re.compile(r"^[Bb]y default,? (?P<subject>[^,;:()]{2,60}?) (?P<verb>is|are) "
                         r"(?:set to |assumed to be |taken to be )?(?P<rest>.+)$"),
              "What {verb} {subject} by default?", _rest(plain_word=False)),
    Statement(re.compile(r"\s(?P<verb>is|are) (?P<rest>[^,;]{1,40}?) by default\b"),
              "What {verb} {subject} by default?", _whole_rest, _before()),
    Statement(re.compile(r"\s(?P<verb>is|was|were|are) (?:originally |initially |first |mainly |largely |jointly )?"
                         r"(?P<made>written|developed|created|designed|maintained|invented|authored|founded|"
                         r"implemented|edited|translated|illustrated|published) by (?P<name>" + NAME + ")"),
              "Who {made_verb} {subject}?", _group("name"), _before(through_and=True)),
    Statement(re.compile(r"\s(?P<verb>renews|lasts|runs|expires|continues|remains in effect) for "
                         r"(?:a (?:term|period) of |an additional |a further )?(?P<rest>.+)$"),
              "For how long does {subject} {base}?", _duration, _before()),
    Statement(re.compile(r"\s(?P<verb>is|are) valid for (?P<rest>.+)$"), "For how long {verb} {subject} valid?",
              _duration, _before()),
    Statement(re.compile(r"\s(?P<verb>is|are|was|were) (?:equal to |about |approximately |exactly )?"
                         r"(?P<rest>(?=[$€£\d]|(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve) \().+)$"),
              "What {verb} {subject}?", _rest(plain_word=False), _definite),
    Statement(re.compile(r"\s(?P<verb>is|are) set to\s(?P<rest>.+)$"), "What {verb} {subject} set to?",
              _rest(plain_word=False), _definite),
    Statement(re.compile(r"\s(?P<verb>is|was|were|are) (?P<event>introduced|added|deprecated|removed|new|available) "
                         r"(?:in|since|as of|with|from) (?:version|release|v)\.? ?(?P<version>\d+(?:\.\d+)*[a-z]?)\b"),
              "In which version {verb} {subject} {event}?", _group("version"), _before()),
    Statement(re.compile(r"\s(?P<verb>is|are) (?:restricted|limited) to (?:at most |a maximum of )?(?P<rest>.+)$"),
              "What {verb} {subject} limited to?", _rest(plain_word=False), _definite),
    Statement(re.compile(r"\s(?:may|can) be abbreviated (?:as |to )?(?P<short>[\"'‘’`]?[\w\-]{1,12}[\"'’`]?)[.,;)]"),
              "How can {subject} be abbreviated?", _short, _before(), of_a_name=True),
    Statement(re.compile(r"\s(?P<verb>is|are) (?:a )?(?:synonyms?|an alias|aliases) (?:for|of) (?P<rest>.+)$"),
              "What {verb} {subject} a synonym for?", _rest(plain_word=False), _before(), of_a_name=True),
    Statement(re.compile(r"\s(?P<verb>is|are) (?:exactly )?equivalent to (?P<code>[^,;]{1,60}?)\.?$"),
              "What {verb} {subject} equivalent to?", _code, _code_before, of_a_name=True),
    Statement(re.compile(r"^(?P<value>[\"“'‘]?[\w\-.]+[\"”'’]?) (?P<verb>is|are) the default "
                         r"(?P<subject>[a-z]+(?: [a-z]+)?)[.,;]"),
              "What {verb} the default {subject}?", _named_value, name_only=True),
    Statement(re.compile(r"\s(?P<verb>stands|is short|is an abbreviation|is an acronym) for (?P<rest>.+)$"),
              "What does {subject} stand for?", _meaning, _before(), of_a_name=True),
    Statement(re.compile(rf"\s(?P<verb>is|was|were) (?P<event>made|signed|dated|released|published|issued|executed|"
                         rf"founded|established|effective) (?:on|as of|in) (?P<date>{_DATE})\b"),
              "When {verb} {subject} {event}?", _group("date"), _before()),
    Statement(re.compile(r"(?:^|\s)[Tt]he (?P<role>author|authors|maintainer|creator|editor|publisher|developer|"
                         r"owner|licensor|licensee) of (?P<subject>[^,;:()]{2,60}?) (?P<verb>is|are|was|were) "
                         r"(?P<name>" + NAME + ")"),
              "Who {verb} the {role} of {subject}?", _group("name")),
)  # fmt: skip
_DEPRECATED = re.compile(r"\bdeprecated (?:in|since|as of) (?:version |release |v)?(?P<version>\d+(?:\.\d+)+)", re.I)
_TOPIC_DEFAULT = re.compile(
    r"(?:^|[;,(] ?)(?:[Tt]he default(?: value| setting)? is|[Dd]efault is|[Dd]efaults to|[Ii]t defaults to|"
    r"[Dd]efault:) (?P<rest>.+)$"
)
# A defined term in brackets after what it names, as contracts write them: `(the “Agreement”)`, `("Licensor")`.
_DEFINED_TERM = re.compile(
    r"\s*\((?:the |hereinafter |each a |collectively )?[“\"'‘][^”\"'’()]{1,40}[”\"'’][^()]{0,40}\)"
)
_BASE = {"renews": "renew", "lasts": "last", "runs": "run", "expires": "expire", "continues": "continue"}
_MADE = {"written": "wrote", "maintained": "maintains"}


def sentence_questions(
    document: Document, segment: SegmentRef, section: str | None
) -> tuple[list[Candidate], str | None]:
    """Every statement of a value in the segment's sentences, as a question, and the section in force at the
    segment's end (`section`: the one at its start). A sentence that states a default without a subject (`The
    default is 500 threads.`) is of the entry it is in, printed in this segment (an option, a setting's heading)."""
    found = []
    cut, section = parts(document.lines.get(segment.segment_id, []), section)
    for part in cut:
        if part.section and not document.holds(segment.page_idx, part.section):
            part.section = None  # a section its page never names: a question cannot name it
        for sentence in sentences(part.lines):
            sentence = sentence.strip()
            said = list(statements(sentence))
            answers = topic_default(sentence) if not said else None
            if answers and part.topic and part.topic != part.section and _setting(part.topic):  # an option, a term
                said = [(f"What is the default value of {the_term(part.topic)}?", part.topic, answers, False)]
            elif answers and part.topic and _setting(part.topic) and _one_default(part.lines):  # a heading here
                said = [(f"In the section on {part.topic}, what is the default?", part.topic, answers, True)]
            named = part.topic
            if not said and named and _setting(named) and (version := _DEPRECATED.search(sentence)):
                asked = f"In which version was {the_term(named)} deprecated?"  # `Fontpath ... [DEPRECATED in 5.4]`
                said = [(asked, named, (version["version"],), True)]
            for text, subject, answers, scoped in said:
                origin: dict[str, Any] = {"from": "sentence", "statement": sentence}
                if scoped:
                    origin["scoped"] = True  # of its section or of a name: one value, whatever else the text has
                if part.section:
                    origin["section"] = part.section  # the heading it is under: a question may name it
                found.append(Candidate("sentence", segment.document, segment.page_idx, segment.segment_id, text,
                                       subject, answers, origin))  # fmt: skip
    return found, section


def _one_default(lines: list[str]) -> bool:
    """The section's text (in this segment) speaks of one default: `the default` of it is that one."""
    return len(re.findall(r"\bdefaults?\b", " ".join(lines), re.IGNORECASE)) == 1


def _setting(topic: str) -> bool:
    """A topic that names a setting: one word (`Samples`, `--num-callers`), or a command (`set x name`), not a
    section's title (`Low-level plotting commands`)."""
    return len(topic.split()) == 1 or topic[0].islower()


def topic_default(sentence: str) -> tuple[str, ...] | None:
    """The value of `The default is 500 threads.`, `Defaults to "x".`, `...; the default is 1.`, or None."""
    match = _TOPIC_DEFAULT.search(sentence)
    return value_after(match["rest"], plain_word=True) if match else None


def statements(sentence: str) -> Iterator[tuple[str, str, tuple[str, ...], bool]]:
    """(question, subject, answers, whether it is true of its subject's name anywhere) for each statement of a
    value the sentence makes that STATEMENTS know."""
    if len(sentence) > MAX_SENTENCE_CHARS or sentence.split(" ", 1)[0].casefold().strip(",") in _SCOPES:
        return  # `If set angles degrees is given, the default range is [0:360]`: true only if
    sentence = _DEFINED_TERM.sub("", sentence)  # `This Agreement (the "Agreement") is made on ...`
    for statement in STATEMENTS:
        for match in statement.pattern.finditer(sentence):
            if _CONDITIONS & {w.casefold() for w in re.split(r"[,;:]", sentence[: match.start()])[-1].split()}:
                continue  # `... a circle if the axes are equal and the aspect ratio is 1`: a supposition
            if statement.subject_of is None:
                subject = match["subject"] if _subject_ok(match["subject"]) else None
                if subject and statement.name_only and STOPWORDS & set(subject.casefold().split()):
                    subject = None  # `the default settings at the time a plot is drawn`: no name of one thing
            else:
                before = re.sub(r",?\s+(?:which|that|who)$", "", sentence[: match.start()])
                subject = statement.subject_of(before)
            answers = statement.value(match) if subject else None
            if subject and answers:
                if answers[0].casefold() in SETTING_WORDS and "by default" in statement.question:
                    yield f"What is the default state of {phrase(subject)}?", subject, answers, False  # not `What is`
                else:
                    yield _asked(statement.question, match, subject), subject, answers, statement.of_a_name


def _asked(template: str, match: re.Match[str], subject: str) -> str:
    groups = {k: v or "" for k, v in match.groupdict().items()}
    verb = groups.get("verb", "")
    fill = {
        **groups,
        "subject": phrase(subject),
        "does": "does" if verb == "defaults" else "do",
        "noun": groups.get("noun") or "value",
        "base": _BASE.get(verb, verb.replace("remains", "remain")),
        "made_verb": _MADE.get(groups.get("made", ""), groups.get("made", "")),
    }
    return template.format(**fill)


def subject_before(text: str, *, through_and: bool = False) -> str | None:
    """The noun phrase that ends `text` (at most MAX_SUBJECT_WORDS words, not running past a clause's start or a
    punctuation mark; past a preposition when it starts with a determiner: `the separation between these
    boxplots`; past `and` / `or` when `through_and`: `assemblers and linkage editors`), or None when it is none
    (a pronoun, a dangling word, a phrase with a bracket, a supposition: `if the parameter j`)."""
    words: list[str] = []
    stopped_at = ""
    for word in reversed(text.split()):
        folded = word.casefold()
        inside = folded in _INSIDE or (through_and and folded in {"and", "or"} and words)
        if word[-1] in ",;:.)]}" or (folded in _BOUNDARY and not inside) or not _SUBJECT_WORD.match(word):
            stopped_at = folded
            break
        words.append(word)
        if len(words) > MAX_SUBJECT_WORDS:
            return None
    if stopped_at in _CONDITIONS:
        return None
    words.reverse()
    while words and words[0].casefold() in _PREPOSITIONS:
        words.pop(0)
    folded = [w.casefold() for w in words]
    # `the medium model the address space`: two noun phrases side by side; the subject is the last.
    for n in range(len(words) - 1, 0, -1):
        if folded[n] in _DETERMINERS and folded[n - 1] not in _PREPOSITIONS:
            words, folded = words[n:], folded[n:]
            break
    # A phrase with a preposition in it is a noun phrase from its determiner on: `the separation between ...`.
    if any(w in _PREPOSITIONS for w in folded) and folded[0] not in _DETERMINERS:
        return None
    subject = " ".join(words)
    return subject if _subject_ok(subject, through_and=through_and) else None


def _subject_ok(subject: str, *, through_and: bool = False) -> bool:
    words = subject.split()
    if not words or len(words) > MAX_SUBJECT_WORDS or _NOT_A_SUBJECT.search(_PLACEHOLDER.sub("x", subject)):
        return False
    folded = [w.casefold().strip("\"'“”‘’") for w in words]
    if folded[0] == "this" and len(words) > 1 and words[1][:1].isupper():
        folded = folded[1:]  # `This License Agreement`: a document naming itself, not a pointer to the sentence before
    if folded[0] in _PRONOUNS | _NEGATIONS or folded[-1] in STOPWORDS or (_CLAUSE_WORDS | _DEICTIC) & set(folded):
        return False  # `it`, `no hints`, `the estimates from this data`: no thing a reader can name alone
    if folded[0] in {"a", "an"} and not through_and:
        return False  # `an optional integer parameter that defaults to 1`: one of many, not one thing
    return any(w not in STOPWORDS | GENERIC for w in folded)
