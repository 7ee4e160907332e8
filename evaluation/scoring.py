"""The one scorer of answers (design §12): `segcite eval` and bench/bench_answers.py both score through it.

Per question: right (an expected answer is in the answer, normalised: evaluation.normalize), wrong (answered
without it), not found; for an unanswerable question, answered or not. The answer is read as a reader reads it:
without its citation markers (`[1]` never answers "1") and SEG tags. Each shown citation is good when its quote
holds the answer (where it has no quote, when its page does), in the document the question expects. Pure: plain
data in and out; the figures of many scores are evaluation.figures'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluation.normalize import Expected, holds, holds_all
from evaluation.questions import Question, Source
from ingest import take_seg_tags
from query import parse_markers

NOT_FOUND_TEXT = "I could not find an answer"  # query.NOT_FOUND's start: what answers said before status
RIGHT, WRONG, NOT_FOUND = "right", "wrong", "not_found"
ANSWERED = "answered"  # an unanswerable question that got an answer
DECLINED = "declined"  # an unanswerable question that got "not found": what it should get
ERROR = "error"  # the answer failed, or did not come


@dataclass(frozen=True)
class CitationScore:
    number: int
    document: str
    page_idx: int
    good: bool
    quote: str


@dataclass
class Score:
    question: Question
    outcome: str  # RIGHT, WRONG, NOT_FOUND, ANSWERED, DECLINED, ERROR
    answer_status: str | None = None  # metadata.answer_status where the answer has one
    citations: list[CitationScore] = field(default_factory=list)
    seconds: float | None = None
    tokens: int | None = None
    error: str | None = None

    @property
    def good_citations(self) -> int:
        return sum(c.good for c in self.citations)


def answer_found(payload: Mapping[str, Any]) -> bool:
    """Whether the answer says it found something: `metadata.answer_status` where it exists (issue 31); before it,
    an answer is "not found" when it shows no citation or says it could not find one (bench_answers' rule)."""
    metadata = payload.get("metadata") or {}
    status = metadata.get("answer_status")
    if status is not None:
        return status != "not_found"
    return bool(metadata.get("citations")) and NOT_FOUND_TEXT not in (payload.get("content") or "")


def answer_text(content: str, citation_count: int) -> str:
    """The answer as a reader reads it: its SEG tags and its citation markers (clusters of `[n]` with n in
    1..citation_count; any n when it shows no citation) left out, so `[1]` never answers "1". A bracketed number
    no citation has (`[2023]` beside one citation) is text."""
    text, _ = take_seg_tags(content)
    highest = citation_count or None
    pieces, position = [], 0
    for cluster in parse_markers(text, citation_count).clusters:
        if all(1 <= n <= (highest or n) for n in cluster.numbers):
            pieces.append(text[position : cluster.start].rstrip())
            position = cluster.end
    return "".join(pieces) + text[position:]


def on_source(place: tuple[str, int] | None, sources: Sequence[Source]) -> bool:
    """The (file name, 0-based page) is on one of the sources (a source without pages: any page of it)."""
    if place is None:
        return False
    name, page = place
    return any((s.document is None or s.document == name) and (s.pages is None or page in s.pages) for s in sources)


PageText = Callable[[str, int], str | None]  # (file name, 0-based page) -> that page's text, None when unknown


def holds_part(text: str, expected: Expected) -> bool:
    """The text holds a part of the expected answer: an alternative of one of its items (a citation backs one part
    of an answer of several)."""
    return any(holds(text, alternative) for item in expected for alternative in item)


def citation_good(question: Question, place: tuple[str, int], quote: str, page_text: PageText | None = None) -> bool:
    """Whether a shown citation holds the answer: in a document the question expects (any, where it names none),
    its quote holds (a part of) the answer; a citation without a quote, its page does: an expected page, or one
    whose text holds the answer (`page_text` given). A citation of an unanswerable question's answer never
    holds one."""
    if not question.answerable:
        return False
    name, page = place
    documents = {s.document for s in question.sources}
    if None not in documents and documents and name not in documents:
        return False
    if quote.strip():
        return holds_part(quote, question.expected)
    if on_source(place, question.sources):
        return True
    text = page_text(name, page) if page_text is not None else None
    return text is not None and holds_part(text, question.expected)


def quote_of(citation: Mapping[str, Any]) -> str:
    """The passages a citation highlights (`quote` and `quotes`, each once), joined; empty when it has none."""
    passages = [(citation.get("quote") or {}).get("text") or ""]
    passages += [(q or {}).get("text") or "" for q in citation.get("quotes") or ()]
    return "\n".join(dict.fromkeys(p for p in passages if p.strip()))


def score_answer(
    question: Question,
    payload: Mapping[str, Any] | None,
    filenames: Mapping[str, str],
    *,
    seconds: float | None = None,
    error: str | None = None,
    page_text: PageText | None = None,
) -> Score:
    """One question's score; `payload` is the published answer (`content`, `metadata`), None when it failed
    (`error` says why); `filenames` maps document ids to the file names questions use; `page_text`, where given,
    lets a citation without a quote on another page that holds the answer count as good."""
    if payload is None:
        return Score(question, ERROR, seconds=seconds, error=error or "no answer")
    metadata = payload.get("metadata") or {}
    shown = metadata.get("citations") or []
    citations = []
    for c in shown:
        name = filenames.get(c["document_id"], c["document_id"])
        quote = quote_of(c)
        good = citation_good(question, (name, int(c["page_idx"])), quote, page_text)
        shown_quote = quote or c.get("snippet_preview") or ""
        citations.append(CitationScore(int(c.get("number") or 0), name, int(c["page_idx"]), good, shown_quote))
    found = answer_found(payload)
    if not question.answerable:
        outcome = ANSWERED if found else DECLINED
    elif metadata.get("answer_status") == "not_found":  # it says it found nothing, whatever its text quotes
        outcome = NOT_FOUND
    elif holds_all(answer_text(payload.get("content") or "", len(shown)), question.expected):
        outcome = RIGHT
    else:
        outcome = WRONG if found else NOT_FOUND
    return Score(question, outcome, metadata.get("answer_status"), citations, seconds, tokens_used(metadata))


def tokens_used(metadata: Mapping[str, Any]) -> int | None:
    """The tokens the provider reported for this answer (`metadata.usage`), None where it reported none."""
    usage = metadata.get("usage")
    if not isinstance(usage, Mapping):
        return None
    total = usage.get("total_tokens")
    if total is None and ("prompt_tokens" in usage or "completion_tokens" in usage):
        total = int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    return int(total) if total is not None else None


def page_texts(segments: Iterable[tuple[str, int, str]]) -> PageText:
    """A `page_text` over (file name, 0-based page, text) triples: the texts of a page joined."""
    pages: dict[tuple[str, int], list[str]] = {}
    for name, page, text in segments:
        pages.setdefault((name, page), []).append(text)
    joined = {where: "\n".join(texts) for where, texts in pages.items()}
    return lambda name, page: joined.get((name, page))
