"""Evaluation questions: read from a user's JSON lines, or generated from a workspace's segments without a model
(design §12). Pure: plain data in, plain data out; the caller reads and writes the files.

A question file is JSON lines, one question each:
    {"question": "...", "answers": ["any", "of these"], "document"?: "file name", "page"?: 1-based page}
    {"question": "...", "unanswerable": true}
Generated questions carry more, so a user can read, fix and keep them: `id`, `kind` (field, table,
unanswerable, model) and `source` (where the question came from: segment, document, page, how it was made).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluation.normalize import Expected, holds, plain
from ingest.tables import EMPTY_CELL  # a table's empty cell, as table segments write it

KINDS = ("field", "table", "unanswerable", "user", "model")
_ISO_SUFFIX = re.compile(r"^(?P<written>.+?) \((?P<iso>\d{4}-\d{2}-\d{2})\)$")
# Names no workspace is likely to hold: an unanswerable probe asks about one of them (checked absent first).
_UNKNOWN_NAMES = (
    "Zephyrine Holloway Ltd",
    "Quillon Marrowby GmbH",
    "Orsolya Vantreight",
    "Brackenfield Lumen Co.",
    "Ysolde Karvanen",
    "Tamsworth Oberlin SA",
)
_UNKNOWN_LABELS = (
    "vessel IMO number",
    "patient's blood type",
    "aircraft tail number",
    "seismic zone classification",
    "wine vintage",
    "satellite launch date",
)


class QuestionFileError(ValueError):
    """A question file that cannot be read; the message names the line."""


@dataclass(frozen=True)
class Source:
    """Where an answer is: a document (its file name) and its pages (0-based; None: any page)."""

    document: str | None
    pages: frozenset[int] | None = None


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    kind: str  # one of KINDS
    expected: Expected = ()  # empty: unanswerable
    sources: tuple[Source, ...] = ()
    origin: Mapping[str, Any] = field(default_factory=dict)  # generated: where it came from

    @property
    def answerable(self) -> bool:
        return bool(self.expected)

    def to_json(self) -> dict[str, Any]:
        """One line of a question file (what `parse_question_lines` reads back)."""
        line: dict[str, Any] = {"id": self.id, "question": self.text, "kind": self.kind}
        if not self.answerable:
            line["unanswerable"] = True
        elif len(self.expected) == 1:
            line["answers"] = list(self.expected[0])
        else:
            line["answers_all"] = [list(item) for item in self.expected]
        documents = sorted({s.document for s in self.sources if s.document})
        if len(documents) == 1:
            line["document"] = documents[0]
            pages = sorted({p for s in self.sources if s.pages for p in s.pages})
            if len(pages) == 1:
                line["page"] = pages[0] + 1
            elif pages:
                line["pages"] = [p + 1 for p in pages]
        if self.origin:
            line["source"] = dict(self.origin)
        return line


def parse_question_lines(lines: Iterable[str], name: str) -> list[Question]:
    """A question file's lines; `name` is the file as the user gave it, for errors. Blank lines and `#` lines are
    skipped; anything else that is not a question is refused with its line number."""
    import orjson

    questions: list[Question] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{name}, line {number}"
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise QuestionFileError(f"{where}: not JSON ({exc})") from None
        questions.append(_question(item, where, f"q{len(questions) + 1:03d}"))
    if not questions:
        raise QuestionFileError(f"{name}: no questions in this file")
    return questions


def _question(item: Any, where: str, default_id: str) -> Question:
    if not isinstance(item, dict):
        raise QuestionFileError(f'{where}: a question is an object {{"question": ..., "answers": [...]}}')
    text = item.get("question")
    if not isinstance(text, str) or not text.strip():
        raise QuestionFileError(f'{where}: "question" must be a non-empty string')
    unanswerable = item.get("unanswerable") is True
    expected = _expected(item, where)
    if unanswerable == bool(expected):
        raise QuestionFileError(f'{where}: give "answers" (a list of accepted answers) or "unanswerable": true')
    document = item.get("document")
    if document is not None and not isinstance(document, str):
        raise QuestionFileError(f'{where}: "document" must be a file name')
    pages = _pages(item, where)
    sources = (Source(document, pages),) if document is not None or pages is not None else ()
    kind = item.get("kind") if item.get("kind") in KINDS else "user"
    origin = item.get("source") if isinstance(item.get("source"), dict) else {}
    return Question(str(item.get("id") or default_id), text.strip(), kind, expected, sources, origin)


def _expected(item: dict[str, Any], where: str) -> Expected:
    if "answers_all" in item:  # every item required, each a list of alternatives
        raw = item["answers_all"]
        if not isinstance(raw, list) or not all(isinstance(i, list) and i for i in raw):
            raise QuestionFileError(f'{where}: "answers_all" must be a list of lists of answers')
        return tuple(tuple(map(str, i)) for i in raw)
    raw = item.get("answers")
    if raw is None:
        return ()
    if isinstance(raw, str | int | float):
        raw = [raw]
    if not isinstance(raw, list) or not raw or not all(isinstance(a, str | int | float) for a in raw):
        raise QuestionFileError(f'{where}: "answers" must be a non-empty list of accepted answers')
    return (tuple(map(str, raw)),)


def _pages(item: dict[str, Any], where: str) -> frozenset[int] | None:
    raw = item.get("pages", item.get("page"))
    if raw is None:
        return None
    values = raw if isinstance(raw, list) else [raw]
    if not values or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in values):
        raise QuestionFileError(f'{where}: "page" is a page number from 1 (or "pages", a list of them)')
    return frozenset(p - 1 for p in values)


# --- generation -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SegmentRef:
    """What generation needs of a segment (its JSON form or a Segment: both have these)."""

    segment_id: str
    document: str  # file name
    page_idx: int
    kind: str
    text: str


def segment_refs(segments: Iterable[Any], filenames: Mapping[str, str]) -> list[SegmentRef]:
    refs = []
    for s in segments:
        get = s.get if isinstance(s, Mapping) else lambda k, s=s: getattr(s, k)
        document_id = get("document_id")
        refs.append(
            SegmentRef(
                get("segment_id"), filenames.get(document_id, document_id), get("page_idx"), get("kind"), get("text")
            )
        )
    return refs


@dataclass
class _Candidates:
    fields: dict[str, list[Question]] = field(default_factory=lambda: defaultdict(list))  # by document
    tables: dict[str, list[Question]] = field(default_factory=lambda: defaultdict(list))
    probes: list[Question] = field(default_factory=list)


def generate(segments: Sequence[SegmentRef], count: int, seed: int = 0) -> list[Question]:
    """`count` questions (fewer when the workspace holds fewer): about 60% from fields, 25% from tables, 15%
    unanswerable probes, spread over the documents in turn; the same segments and seed give the same questions."""
    rng = random.Random(seed)
    candidates = _Candidates()
    _field_questions(segments, candidates)
    _table_questions(segments, candidates)
    _probe_questions(segments, candidates, rng)
    wanted = {"field": round(count * 0.6), "table": round(count * 0.25)}
    wanted["unanswerable"] = count - wanted["field"] - wanted["table"]
    chosen = _spread(candidates.fields, wanted["field"], rng) + _spread(candidates.tables, wanted["table"], rng)
    probes = candidates.probes[:]
    rng.shuffle(probes)
    chosen += probes[: wanted["unanswerable"]]
    if len(chosen) < count:  # a kind ran short: the others fill in
        taken = {q.id for q in chosen}
        rest = [q for by in (candidates.fields, candidates.tables) for qs in by.values() for q in qs] + probes
        chosen += [q for q in rest if q.id not in taken][: count - len(chosen)]
    return chosen[:count]


def _spread(by_document: Mapping[str, list[Question]], count: int, rng: random.Random) -> list[Question]:
    """Up to `count` questions, one document after another, so every document is asked about."""
    pools = {d: rng.sample(qs, len(qs)) for d, qs in sorted(by_document.items())}
    out: list[Question] = []
    while len(out) < count and any(pools.values()):
        for document in sorted(pools):
            if pools[document] and len(out) < count:
                out.append(pools[document].pop())
    return out


def _the(label: str) -> str:
    """`the Total amount`, but `My name` as it is (a form that speaks to its reader)."""
    first = label.split()[0].casefold()
    return label if first in {"my", "your", "our", "his", "her", "their", "the"} else f"the {label}"


def _label_ok(label: str) -> bool:
    letters = sum(c.isalpha() for c in label)
    return letters >= 3 and letters >= sum(c.isdigit() for c in label)


def _field_questions(segments: Sequence[SegmentRef], out: _Candidates) -> None:
    """`What is the <label>?` for each label of each document, with every value that document gives it; the
    document is named when several documents have that label."""
    values: dict[tuple[str, str], dict[str, list[SegmentRef]]] = defaultdict(lambda: defaultdict(list))
    for s in segments:
        if s.kind != "field" or ": " not in s.text:
            continue
        label, value = s.text.split(": ", 1)
        if not _label_ok(label) or not any(c.isalnum() for c in value) or "; " in value:
            continue  # several parts: which one is "the" value is unclear
        values[(plain(label), s.document)][value].append(s)
    documents_with: dict[str, set[str]] = defaultdict(set)
    for key, document in values:
        documents_with[key].add(document)
    for (key, document), found in sorted(values.items()):
        refs = [r for rs in found.values() for r in rs]
        label = refs[0].text.split(": ", 1)[0]  # as this document writes it
        named = len(documents_with[key]) > 1
        text = f"What is {_the(label)} in {document}?" if named else f"What is {_the(label)}?"
        answers: list[str] = []
        for value in found:
            iso = _ISO_SUFFIX.match(value)
            answers.extend([iso["written"], iso["iso"]] if iso else [value])
        pages = frozenset(r.page_idx for r in refs)
        origin = {
            "from": "field",
            "segment_id": refs[0].segment_id,
            "document": document,
            "page": refs[0].page_idx + 1,
            "label": label,
        }
        question_id = f"field:{refs[0].segment_id}"
        question = Question(
            question_id, text, "field", (tuple(dict.fromkeys(answers)),), (Source(document, pages),), origin
        )
        out.fields[document].append(question)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split(" | ")]


def _table_questions(segments: Sequence[SegmentRef], out: _Candidates) -> None:
    """`What is the <column header> for <row header> in <document>?` from each table segment: its first row as
    the column headers, a row's first filled cell as its header; rows whose header repeats in the table, and
    cells that are empty or repeat the header, are left out."""
    for s in segments:
        if s.kind != "table":
            continue
        lines = [_cells(line) for line in s.text.split("\n") if line.strip()]
        if len(lines) < 2:
            continue
        header, body = lines[0], lines[1:]
        row_heads = [next(((i, c) for i, c in enumerate(row) if c and c != EMPTY_CELL), None) for row in body]
        counts = defaultdict(int)
        for head in row_heads:
            if head:
                counts[plain(head[1])] += 1
        for number, (row, head) in enumerate(zip(body, row_heads, strict=True)):
            if head is None or len(row) != len(header) or counts[plain(head[1])] > 1 or not _label_ok(head[1]):
                continue
            first, row_header = head
            for column in range(first + 1, len(row)):
                cell, column_header = row[column], header[column]
                if cell in ("", EMPTY_CELL) or not _label_ok(column_header) or plain(cell) == plain(row_header):
                    continue
                if plain(column_header) == plain(cell):
                    continue
                text = f"What is the {column_header} for {row_header} in {s.document}?"
                origin = {
                    "from": "table",
                    "segment_id": s.segment_id,
                    "document": s.document,
                    "page": s.page_idx + 1,
                    "row": row_header,
                    "column": column_header,
                }
                question_id = f"table:{s.segment_id}:{number + 1}:{column}"
                sources = (Source(s.document, frozenset({s.page_idx})),)
                out.tables[s.document].append(Question(question_id, text, "table", ((cell,),), sources, origin))


def _probe_questions(segments: Sequence[SegmentRef], out: _Candidates, rng: random.Random) -> None:
    """Unanswerable by construction: a label no segment speaks of, or a workspace's own label asked of a name no
    segment holds (the answer a model gives from another document is a wrong one)."""
    everything = "\n".join(s.text for s in segments)
    labels = sorted({s.text.split(": ", 1)[0] for s in segments if s.kind == "field" and ": " in s.text})
    # Short labels that read as labels (`Total amount`), not a sentence a form field's name happened to be.
    labels = [label for label in labels if _label_ok(label) and len(label.split()) <= 4 and label[-1:].isalnum()]
    names = [n for n in _UNKNOWN_NAMES if not holds(everything, n.split()[0])]
    for number, label in enumerate(_UNKNOWN_LABELS):
        words = [w for w in label.replace("'s", "").split() if len(w) > 3]
        if not any(holds(everything, w) for w in words):
            text = f"What is the {label}?"
            out.probes.append(Question(f"unanswerable:label:{number}", text, "unanswerable", (), (), {"from": "probe"}))
    for number, name in enumerate(names):
        for label in rng.sample(labels, min(len(labels), 4)):
            text = f"What is {_the(label)} of {name}?"
            origin = {"from": "probe", "label": label, "name": name}
            question_id = f"unanswerable:{number}:{plain(label)}"
            out.probes.append(Question(question_id, text, "unanswerable", (), (), origin))
