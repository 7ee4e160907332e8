"""Where a text's entries start: headings (`9.3.41.51 set x name`, or `Samples` alone on its line between
paragraphs), options of a definition list (`--nogcse Will not ...`) and terms with their default in brackets
(`--num-callers=<number> [default: 12]`). An entry's topic is what a sentence of it that names no subject speaks
of (`The default is "x".`); a heading is never glued to the sentence after it. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaluation.generation.text import STOPWORDS
from evaluation.generation.wording import label_ok

BRACKET_DEFAULT = re.compile(r"^(?P<term>.{1,60}?)\s*[\[(]default:?\s+(?P<value>[^\])]{1,40})[\])]", re.I)
OPTION = r"--?[A-Za-z0-9][\w\-+.]*(?:[= ]?<[^>]*>(?:,<[^>]*>)*|=\S*| \"[^\"]{1,30}\")?"
OPTION_LINE = re.compile(rf"^(?P<terms>{OPTION}(?:,?\s+{OPTION})*)\s+(?P<definition>[^\s\-\[(].*)$")
ARGUMENT = re.compile(r"[= ]?<[^>]*>|=\S*| \"[^\"]*\"")  # `=<number>`, ` <filename>`, `=yes`, ` "command"`
NOT_TERMS = frozenset("note example syntax usage see warning caution tip important".split())
_NUMBERED = re.compile(r"^\d{1,2}(?:\.\d{1,3}){1,4}\.?\s+(?P<title>[^\W\d][^\n]{1,50})$")  # `9.3.41.51 set x name`
_OPTION_TERM = re.compile(r"^--?\w[\w\-+.]*(?:[ ,/]+--?\w[\w\-+.]*)*$")  # `-I --include`
_IDENTIFIER = re.compile(r"^(?:[A-Za-z]+(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z]\w*)$")  # `GLP_ON`, `emptyTableAction`
_C_TYPES = re.compile(r"^(?:(?:const|unsigned|signed|long|short|static|struct|enum)\s+)*"
                      r"(?:int|double|float|char|void|bool|size_t|long|short)\s*\**\s*")  # fmt: skip
_TOPIC = re.compile(r"^(?:[A-Za-z_][\w.\-]*|<\w+>)(?: [a-z_][\w.\-]*){0,3}$")  # `Samples`, `set x name`
_CLAUSE_END = (".", ",", ";", ":", "!", "?")
_ENDS = (".", ":", "!", "?", ")", '"', "'", "”", "’")  # how a paragraph's last line ends


def bracket_default(line: str) -> tuple[str, tuple[str, ...]] | None:
    """(term, answers) of `--tool=<toolname> [default: memcheck]` or `double tol bnd (default: 1e-7)`."""
    match = BRACKET_DEFAULT.match(line)
    if match is None:
        return None
    typed = _C_TYPES.match(match["term"].strip())
    term = ARGUMENT.sub("", _C_TYPES.sub("", match["term"].strip())).strip(" ,:")
    value = re.split(r",\s", match["value"])[0].strip().rstrip(".")  # (`definite,possible` is one value)
    value = re.sub(r"^[A-Za-z_]\w*\s?=\s?(?=\S)", "", value)  # `(default threshold = 0)` -> `0`
    if not value or not label_ok(term):
        return None
    # An option, a typed parameter (`double tol bnd`) or an identifier; a plain word may be the end of a sentence
    # wrapped onto the line (`bar (default "Figure <n>")` of `... shown in the title bar`).
    if not (_OPTION_TERM.match(term) or (typed and typed.group()) or _IDENTIFIER.match(term)):
        return None
    if not term.startswith("-") and any(w.casefold() in STOPWORDS | NOT_TERMS for w in term.split()):
        return None
    return term, (value,)


def option_names(terms: str) -> tuple[str, ...]:
    """`-v, --verbose` -> (`-v`, `--verbose`); `-I<path>` -> (`-I`,)."""
    return tuple(ARGUMENT.sub("", t).strip(",") for t in re.findall(OPTION, terms))


def entry(line: str, before: str | None, after: str | None) -> tuple[str | None, str, bool] | None:
    """(topic, the rest of the line, whether it is a heading) of a line that starts an entry, None for any other
    line; `before` and `after` are the lines around it (a heading alone on its line stands between paragraphs).
    The topic is None where a heading names no setting (`Screenshot 3`, `Color space checking`)."""
    if (match := _NUMBERED.match(line)) and not line.endswith(_CLAUSE_END):
        return _topic(match["title"]), "", True
    if _alone(line, before, after):
        return _topic(line), "", True
    if not starts_entry(before):
        return None  # `bar (default "Figure <n>")`: a sentence wrapped onto this line, not an entry
    if match := OPTION_LINE.match(line):
        return option_names(match["terms"])[0], match["definition"], False
    if _OPTION_TERM.match(line.strip()) and option_names(line):
        return option_names(line)[0], "", False  # `-s` alone on its line, its definition below
    if found := bracket_default(line):
        return found[0], line[BRACKET_DEFAULT.match(line).end() :].strip(), False  # type: ignore[union-attr]
    return None


def starts_entry(before: str | None) -> bool:
    """A line after this one may start an entry: there is none, or it ends a sentence, a heading or an entry."""
    return before is None or before.endswith(_ENDS) or bool(OPTION_LINE.match(before) or bracket_default(before))


def _alone(line: str, before: str | None, after: str | None) -> bool:
    """A heading without a number: a few words starting with a capital, no punctuation at its end, before a line
    that starts a paragraph, and after a paragraph's end, or (after an example, which ends without one) before a
    line that opens its section: `Syntax:`, or one naming it (`Jpeg` over `set terminal jpeg ...`)."""
    words = line.split()
    if not (
        0 < len(words) <= 4
        and len(line) <= 40
        and line[0].isupper()
        and not line.endswith(_CLAUSE_END)
        and words[-1].casefold() not in STOPWORDS
        and after is not None
        and after[:1].isupper()
    ):
        return False
    opens = after.casefold().startswith(("syntax:", "usage:")) or line.casefold() in after.casefold()
    return before is None or before.endswith(_ENDS) or opens


def _topic(title: str) -> str | None:
    return title if _TOPIC.match(title) and title.casefold() not in NOT_TERMS else None


@dataclass
class Part:
    """Lines of a segment under one entry: its topic (the entry it is of, printed in this segment: an option, a
    term, a heading), and its section (the last heading before it in reading order, over segments and pages)."""

    topic: str | None
    section: str | None
    lines: list[str] = field(default_factory=list)


def parts(lines: Sequence[str], section: str | None) -> tuple[list[Part], str | None]:
    """A segment's lines cut at each line that starts an entry, and the section in force at their end; `section`
    is the one in force where they start. A topic is read in the segment that prints it, never carried over
    from another (which may be of another page): only a section is, to name where a question is."""
    cut = [Part(None, section)]
    for n, line in enumerate(lines):
        before = lines[n - 1] if n else None
        after = lines[n + 1] if n + 1 < len(lines) else None
        if started := entry(line, before, after):
            topic, rest, heading = started
            section = topic if heading else section
            cut.append(Part(topic, section, [rest] if rest else []))
        else:
            cut[-1].lines.append(line)
    return [part for part in cut if part.lines], section
