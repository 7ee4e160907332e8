"""Questions from a text's lines: label/value lines (`Weight (Kg): 2.0`, `Total 9,50€`, `Due Date:` over `Sep 30,
2019`), defaults in brackets (`--num-callers=<number> [default: 12]`), definition lists of options (`--nogcse Will
not do global common subexpression elimination`) and tables read as lines (`Item Qty Price` over `Pears 12
3.50`). Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from evaluation.generation.entries import OPTION_LINE, bracket_default, option_names
from evaluation.generation.text import STOPWORDS, Document, sentences
from evaluation.generation.values import NUMBER, Candidate, value_after
from evaluation.generation.wording import label_ok, the, the_term
from evaluation.questions import SegmentRef

MAX_LABEL_WORDS = 5
MAX_DEFINITION_WORDS = 16
# Labels that introduce text, not a value of the thing the document is about.
_NOT_LABELS = frozenset(
    "note notes example examples syntax usage see also warning caution tip important question hint remark "
    "remarks description summary contents figure table chapter section page step source http https www appendix "
    "part index".split()
)
_LABEL_WORD = re.compile(r"^\(?[^\W\d_][^\W\d_'’\-]*\.?\)?#?$|^#$")
_POSSESSIVES = frozenset("my your our his her their the".split())
# A label's colon: not in a time (`12:30`), an address (`http://`) or a ratio (`1:2`).
_COLON = re.compile(r"(?<=[\w)#.])\s?:(?!//)(?=\s*\S)")
_LATER_LABEL = re.compile(r"(?:^|\s)(?P<label>(?:#\s)?\d{0,2}[a-z]?[^\W\d_][\w'’#.-]*(?:\s\([^()\s]{1,12}\))?)\s?$")
_LEADING_CODE = re.compile(r"^(?:\(\d{1,3}\)\s*|\d{1,2}[a-z]?\s+|\d{1,2}[a-z]?(?=[A-Z]))")  # `(72) `, `4d `, `12RESTR`
_LABEL_INSIDE = re.compile(r"[A-Za-z#)]:")
_WHOLE_NUMBER = re.compile(r"\d[\d ,.]*")
_LABEL_ALONE = re.compile(r"^(?:\(\d{1,3}\)\s*|\d{1,2}[a-z]?\s+)?(?P<label>[^\W\d_][\w .'’()/#&-]{1,40}?)\s*:$")
_MONEY_LINE = re.compile(
    r"^(?P<label>[^\W\d_][^\W\d_ .'/&-]*(?: [^\W\d_][^\W\d_.'/&-]*){0,3}):?\s+"
    r"(?P<value>[$€£]\s?\d[\d,.]*[.,]\d{2}|\d[\d,.]*[.,]\d{2}\s?(?:[$€£]|EUR|USD)?)$"
)
# A card's label in capitals and its code, without a colon: `CLAVE DE ELECTOR ABPRLL65070516M700`.
_CODE_LINE = re.compile(r"^(?P<label>[A-Z]{2,}(?: [A-Z]{2,}){0,3}) (?P<value>(?=\S*\d)(?=\S*[A-Z])[A-Z0-9]{6,})$")
_DATE = re.compile(
    r"\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d", re.I
)
_MONEY = re.compile(rf"[$€£]\s?{NUMBER}|{NUMBER}\s?(?:[$€£]|EUR|USD)|\d[.,]\d\d\b")
# What a label alone on its line asks for, so the line after it is taken only when it is one (a form read out of
# order puts `Sally` under `Date:`).
_LABEL_TYPES = (
    (re.compile(r"\b(?:date|dob|due|exp|expiry|expires|issued|iss|birth|born|dated)\b", re.I), _DATE),
    (re.compile(r"\b(?:total|subtotal|amount|balance|price|cost|tax|fee|paid|charge|sum)\b", re.I), _MONEY),
    (re.compile(r"(?:\bno\b\.?|\bnumber\b|#|\bid\b|\bcode\b|\baccount\b|\bphone\b|\btel\b|\bzip\b)", re.I), r"\d"),
)
_MODALS = frozenset("will can may must should does".split())
# Verbs a definition list's entry starts with (`Generate code for ...`): its question says what the option does.
_VERBS = frozenset(
    """add allow append apply assume build call cause change check compile create define delete disable display do
    dump emit enable exclude force generate give ignore include keep limit link list load make mark omit output pass
    place prevent print produce put read remove rename report reset return run save search select send set show skip
    sort specify start stop suppress switch tell trace treat turn undefine use warn write execute exit quit open
    close draw plot wait restore convert copy move""".split()
)
# A program's marks in a line: an address, valgrind's `==1234==`, a text graph's axis (`0 +------>`), a prompt.
_PROGRAM_MARK = re.compile(r"\b0x[0-9A-Fa-f]{4,}\b|^==\d+==|\+-{5,}|^\((?:gdb|lldb|pdb)\)|^\$ |^>>> ")
# (not a bare `Output:`, which a spec sheet prints as a label over its value)
_EXAMPLE_INTRO = re.compile(r"(?:like this|as follows|an example|for example|e\.g\.)\s*:\s*$", re.IGNORECASE)
_EXAMPLE_REACH = 8  # lines above a label line searched for what introduces its example
# Words by which a sentence speaks of what the text said before it: out of its text, a question of it means nothing.
_POINTS_BACK = re.compile(r"\b(?:such|both|these|those|above|aforementioned|former|latter)\b", re.IGNORECASE)
_NUMERIC_CELL = re.compile(rf"^(?:[$€£]?{NUMBER}%?|{NUMBER}\s?[$€£])$")


def line_questions(document: Document, segment: SegmentRef) -> Iterator[Candidate]:
    """Every label/value line, default in brackets, option of a definition list and table row of the segment."""
    lines = document.lines.get(segment.segment_id, [])

    def candidate(kind: str, text: str, subject: str, answers: tuple[str, ...], **origin: str) -> Candidate:
        origin = {"from": kind, **origin}
        return Candidate(kind, segment.document, segment.page_idx, segment.segment_id, text, subject, answers, origin)

    for n, line in enumerate(lines):
        pairs = [] if _in_example(lines, n) else _label_values(line, lines[n + 1] if n + 1 < len(lines) else None)
        for label, answers in pairs:
            yield candidate("label", f"What is {the(label)}?", label, answers, label=label)
        if found := bracket_default(line):
            term, answers = found
            yield candidate("label", f"What is the default value of {the_term(term)}?", term, answers,
                            label=term, statement=line)  # fmt: skip
    for terms, definition in _definitions(lines):
        asked = _what_it_does(definition)
        if asked:
            yield candidate("definition", f"Which option {asked}?", asked, terms, definition=definition)
    for row, column, cell in _text_table(lines):
        text = f"What is the {column} for {row}?"
        yield candidate("table", text, f"{row} {column}", (cell,), row=row, column=column, **{"from": "text_table"})


def _in_example(lines: Sequence[str], n: int) -> bool:
    """Line `n` is in an example a manual prints (a program's output, a script), whose `Label: value` lines say
    nothing of the thing the document is about (`Locks held: none`, `Massif arguments: (none)`): lines beside it
    hold a program's marks (addresses, `==1234==`, a graph's axis, a comment's `#`), or the lines above it run back,
    without a sentence's end, to one that introduces an example (`The first part of the output looks like this:`)."""
    beside = [lines[k] for k in range(max(0, n - 2), min(len(lines), n + 3)) if k != n]
    if any(_PROGRAM_MARK.search(line) for line in beside):
        return True
    if lines[n].startswith("#") and sum(line.startswith("#") for line in beside) >= 2:
        return True  # a script's comments
    for line in reversed(lines[max(0, n - _EXAMPLE_REACH) : n]):
        if _EXAMPLE_INTRO.search(line):
            return True
        if line.rstrip().endswith("."):
            return False
    return False


def _label_values(line: str, next_line: str | None) -> list[tuple[str, tuple[str, ...]]]:
    """(label, answers) of each `Label: value` of the line (a card prints several on one: `9 CLASS:D 12RESTR: NONE`,
    `# of cartons: 1 Weight (Kg): 2.0`), of `Label amount`, or of `Label:` alone over a value of its kind."""
    pairs = _pairs(line)
    if pairs:
        return [(label, (value,)) for label, value in pairs if _is_label(label) and _is_value(value)]
    if (match := _MONEY_LINE.match(line) or _CODE_LINE.match(line)) and _is_label(match["label"]):
        return [(match["label"], (match["value"],))]
    if next_line is not None and (match := _LABEL_ALONE.match(line)) and _is_label(match["label"]):
        value = next_line.strip()
        if len(value.split()) <= 6 and ":" not in value:
            for label_kind, value_kind in _LABEL_TYPES:
                if label_kind.search(match["label"]):
                    return [(match["label"].strip(), (value,))] if re.search(value_kind, value) else []
            if _WHOLE_NUMBER.fullmatch(value):  # `Answer:` over `42`: a number is the value of any label
                return [(match["label"].strip(), (value,))]
    return []


def _pairs(line: str) -> list[tuple[str, str]]:
    """The line cut at its labels' colons: the first label is all before the first colon, a later one the word
    (with its unit in brackets: `Weight (Kg)`) before its colon; each value runs to the next label."""
    colons = [m for m in _COLON.finditer(line) if not (line[m.start() - 1].isdigit() and line[m.end() :][:1].isdigit())]
    if not colons:
        return []
    starts = [0]
    for colon in colons[1:]:
        label = _LATER_LABEL.search(line[: colon.start()])
        if label is None or label.start("label") <= starts[-1]:
            return []
        starts.append(label.start("label"))
    pairs = []
    for n, colon in enumerate(colons):
        label = _LEADING_CODE.sub("", line[starts[n] : colon.start()].strip())
        end = starts[n + 1] if n + 1 < len(colons) else len(line)
        pairs.append((label.strip(), line[colon.end() : end].strip().rstrip(".;,")))
    return pairs


def _is_value(value: str) -> bool:
    """One value as a form prints it: short, not a sentence, not a row of numbers, no label of its own inside."""
    words = value.split()
    if not words or len(words) > 8 or value.endswith(("?", ":")) or _LABEL_INSIDE.search(value):
        return False
    if not (value[0].isalnum() or value[0] in "\"'“‘$€£+-(#<["):
        return False  # `_( 190)`: a speck read before it
    if re.fullmatch(r"\((?:none|null|empty|nil|n/a)\)", value, re.IGNORECASE):
        return False  # `(none)`: a placeholder a program prints, no value
    if sum(bool(re.fullmatch(NUMBER, w)) for w in words) >= 3:
        return False  # `80.02 79.94 79.98 ...`: a row of data, not one value
    sentence_like = any(w.casefold() in STOPWORDS for w in words)  # `You are`: words of a sentence
    return len(words) == 1 or not sentence_like or bool(value_after(value, plain_word=False) or _DATE.search(value))


def _is_label(label: str) -> bool:
    """A form's or a list's label: a few words of letters (`Weight (Kg)`, `LIC #`, `Due Date`) starting with a
    capital, not a word of a sentence or a line of code (`at 0x40F6BBCC`, `n-i-bz libmpiwrap.c`)."""
    label = label.strip()
    words = label.split()
    return (
        0 < len(words) <= MAX_LABEL_WORDS
        and (label[0].isupper() or label.startswith("# "))
        and not (len(words[-1]) <= 2 and words[-1].islower())  # `Charge oa`: a speck read as letters
        and label.count("(") == label.count(")")
        and all(_LABEL_WORD.match(word) for word in words)
        and (words[0].casefold() not in STOPWORDS or words[0].casefold() in _POSSESSIVES)
        and words[0].casefold().strip("()") not in _NOT_LABELS
        and (words[-1].casefold() not in STOPWORDS or words[-1] in {"No", "No.", "NO", "NO."})  # `Passport No.`
    )


def _definitions(lines: Sequence[str]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(the option's names, the first sentence of its definition) of each entry of a definition list of
    options; an entry's definition runs on over the lines up to the next entry."""
    entries: list[tuple[tuple[str, ...], list[str]]] = []
    for line in lines:
        if match := OPTION_LINE.match(line):
            names = option_names(match["terms"])
            entries.append((names, [match["definition"]]))
        elif entries and not entries[-1][1][-1].endswith((".", "!", "?", ":")) and line[:1].islower():
            entries[-1][1].append(line)  # the definition runs on; a line starting a sentence of its own does not
        elif entries:
            entries[-1] = (entries[-1][0], [*entries[-1][1], "\n"])  # the entry's first sentence ended
    for names, definition in entries:
        first = sentences(definition[: definition.index("\n")] if "\n" in definition else definition)[:1]
        if first:
            yield names, first[0].strip()


def _what_it_does(definition: str) -> str | None:
    """A definition that says what its option does, as the rest of `Which option ...?`: `Generate code for X.` ->
    `generates code for X`, `tells the program ...` as it is; None for one that does not start with a verb (in
    lower case, only a verb's third person), or is long."""
    words = definition.rstrip(".").split()
    if not words or len(words) > MAX_DEFINITION_WORDS or any(c in definition for c in "[]{}"):
        return None
    if _POINTS_BACK.search(definition):
        return None  # `shows the contents of both sets following any such event`: of what the text said before
    first = words[0].casefold()
    if not words[0][:1].isupper() and _third_person_of(first) not in _VERBS:
        return None  # `--history-level=none is the opposite extreme`: a sentence about an option, not an entry
    if first in _MODALS or _third_person_of(first) in _VERBS:
        verb = first
    elif first in _VERBS:
        verb = _third_person(first)
    else:
        return None
    return " ".join([verb, *words[1:]])


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _third_person_of(word: str) -> str | None:
    """The base verb a third person form is of (`generates` -> `generate`), None for a word that is not one."""
    for ending, base in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(ending) and _third_person(word[: len(word) - len(ending)] + base) == word:
            return word[: len(word) - len(ending)] + base
    return None


def _text_table(lines: Sequence[str]) -> Iterator[tuple[str, str, str]]:
    """(row, column, cell) of a table read as lines: a header of one-word column names over at least two rows of
    a label and as many numbers (`Item Qty Price` / `Pears 12 3.50`)."""
    n = 0
    while n < len(lines) - 2:
        header = lines[n].split()
        rows = []
        for line in lines[n + 1 :]:
            row = _row(line, len(header))
            if row is None:
                break
            rows.append(row)
        header_ok = 2 <= len(header) <= 8 and all(label_ok(word) and word.isalpha() for word in header)
        if len(rows) < 2 or len({len(cells) for _, cells in rows}) != 1 or not header_ok:
            n += 1
            continue
        columns = header[-len(rows[0][1]) :]
        for label, cells in rows:
            for column, cell in zip(columns, cells, strict=True):
                yield label, column, cell
        n += len(rows) + 1


def _row(line: str, header_width: int) -> tuple[str, list[str]] | None:
    """(label, numbers) of a table's row read as a line: a label of words, then numbers, one per column after the
    first (or per column, where the header names no label column)."""
    words = line.split()
    cells: list[str] = []
    while words and _NUMERIC_CELL.match(words[-1]):
        cells.insert(0, words.pop())
    label = " ".join(words)
    if not cells or not label or not label_ok(label) or len(words) > MAX_LABEL_WORDS or label[-1] in ",;:":
        return None
    if not (label[0].isalpha() or label[0] in "\"'“‘") or len(cells) not in (header_width, header_width - 1):
        return None  # `87014 LIMOGES Cedex 1`: an address, not a row
    if len(cells) == 1 and not re.fullmatch(r"[$€£]?\d+[.,]\d+%?[$€£]?", cells[0]):
        return None  # one whole number after words: a postal code, a page number, not a table's cell
    return label, cells
