"""Evaluation questions: what a question is, a user's question file read, and the segments generation reads
(design §12). Pure: plain data in, plain data out; the caller reads and writes the files.

A question file is JSON lines, one question each:
    {"question": "...", "answers": ["any", "of these"], "document"?: "file name", "page"?: 1-based page}
    {"question": "...", "unanswerable": true}
and optionally `"conversation": "name"` (consecutive lines with one name are asked in order in one conversation; all
but the first are follow-ups, scored apart) and `"documents": ["file name", ...]` (the question is asked of those
documents alone, design §5.10).
Generated questions carry more, so a user can read, fix and keep them: `id`, `kind` (one of KINDS) and `source`
(where the question came from: segment, document, page, how it was made).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evaluation.normalize import Expected

# field: a Document AI field; label: a label/value line of a text; sentence: a sentence stating a value;
# definition: an entry of a definition list; table: a table's cell; unanswerable: a probe no document answers;
# user: the user's own; model: written by the configured model.
KINDS = ("field", "label", "sentence", "definition", "table", "unanswerable", "user", "model")


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
    conversation: str | None = None  # the name of the conversation it is asked in; None: a conversation of its own
    follow_up: bool = False  # an earlier line of its conversation was asked before it
    documents: tuple[str, ...] = ()  # the documents (file names or ids) it is asked of; empty: the whole workspace

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
        if self.conversation is not None:
            line["conversation"] = self.conversation
        if self.follow_up:
            line["follow_up"] = True
        if self.documents:
            line["documents"] = list(self.documents)
        if self.origin:
            line["source"] = dict(self.origin)
        return line


def parse_question_lines(lines: Iterable[str], name: str) -> list[Question]:
    """A question file's lines; `name` is the file as the user gave it, for errors. Blank lines and `#` lines are
    skipped; anything else that is not a question is refused with its line number."""
    import orjson

    questions: list[Question] = []
    conversations: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{name}, line {number}"
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise QuestionFileError(f"{where}: not JSON ({exc})") from None
        question = _question(item, where, f"q{len(questions) + 1:03d}")
        if question.conversation is not None:
            question = replace(question, follow_up=question.conversation in conversations)
            conversations.add(question.conversation)
        questions.append(question)
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
    conversation = item.get("conversation")
    if conversation is not None and (not isinstance(conversation, str) or not conversation.strip()):
        raise QuestionFileError(f'{where}: "conversation" must be a name (lines with one name make one conversation)')
    return Question(
        str(item.get("id") or default_id),
        text.strip(),
        kind,
        expected,
        sources,
        origin,
        conversation.strip() if conversation is not None else None,
        documents=_documents(item, where),
    )


def _documents(item: dict[str, Any], where: str) -> tuple[str, ...]:
    raw = item.get("documents")
    if raw is None:
        return ()
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list) or not values or not all(isinstance(d, str) and d.strip() for d in values):
        raise QuestionFileError(f'{where}: "documents" must be a list of file names (the documents to ask of)')
    return tuple(d.strip() for d in values)


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


# --- what generation reads ---------------------------------------------------------------------------------


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
