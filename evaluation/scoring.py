"""The one scorer of answers (design §12): `segcite eval` and bench/bench_answers.py both score through it.

Per question: right (an expected answer is in the answer, normalised: evaluation.normalize), wrong (answered
without it), not found; for an unanswerable question, answered or not. Each shown citation is good when it is on a
page the question expects (its document and page), or, where the question expects none, when its quote holds the
answer. Then figures per group (all, per kind, per document). Pure: plain data in and out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluation.normalize import holds_all
from evaluation.questions import Question, Source

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


def on_source(place: tuple[str, int] | None, sources: Sequence[Source]) -> bool:
    """The (file name, 0-based page) is on one of the sources (a source without pages: any page of it)."""
    if place is None:
        return False
    name, page = place
    return any((s.document is None or s.document == name) and (s.pages is None or page in s.pages) for s in sources)


PageText = Callable[[str, int], str | None]  # (file name, 0-based page) -> that page's text, None when unknown


def citation_good(question: Question, place: tuple[str, int], quote: str, page_text: PageText | None = None) -> bool:
    """Whether a shown citation holds the answer: in an expected document, on an expected page or on a page whose
    text holds the answer (`page_text` given); where the question expects no document or page, its quote holds
    the answer. A citation of an unanswerable question's answer never holds one."""
    if not question.answerable:
        return False
    if not question.sources:
        return holds_all(quote, question.expected)
    name, page = place
    for source in question.sources:
        if source.document is not None and source.document != name:
            continue
        if source.pages is not None and page in source.pages:
            return True
        if page_text is not None:
            if holds_all(page_text(name, page) or "", question.expected):
                return True
        elif source.pages is None:
            return True  # any page of the document, and no page text to check it against
    return False


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
    lets a citation on another page that holds the answer count as good (a form repeated on every page)."""
    if payload is None:
        return Score(question, ERROR, seconds=seconds, error=error or "no answer")
    metadata = payload.get("metadata") or {}
    citations = []
    for c in metadata.get("citations") or []:
        name = filenames.get(c["document_id"], c["document_id"])
        quote = (c.get("quote") or {}).get("text") or c.get("snippet_preview") or ""
        good = citation_good(question, (name, int(c["page_idx"])), quote, page_text)
        citations.append(CitationScore(int(c.get("number") or 0), name, int(c["page_idx"]), good, quote))
    found = answer_found(payload)
    if not question.answerable:
        outcome = ANSWERED if found else DECLINED
    elif metadata.get("answer_status") == "not_found":  # it says it found nothing, whatever its text quotes
        outcome = NOT_FOUND
    elif holds_all(payload.get("content") or "", question.expected):
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


# --- figures ----------------------------------------------------------------------------------------------


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of the values, None for none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def figures(scores: Sequence[Score]) -> dict[str, Any]:
    """The measures of a group of scored questions (the schema is docs/eval-report.md's `figures`)."""
    answerable = [s for s in scores if s.question.answerable and s.outcome != ERROR]
    unanswerable = [s for s in scores if not s.question.answerable and s.outcome != ERROR]
    right = sum(s.outcome == RIGHT for s in answerable)
    wrong = sum(s.outcome == WRONG for s in answerable)
    not_found = sum(s.outcome == NOT_FOUND for s in answerable)
    shown = sum(len(s.citations) for s in scores)
    good = sum(s.good_citations for s in scores)
    right_cited = sum(s.good_citations > 0 for s in answerable if s.outcome == RIGHT)
    answered = sum(s.outcome == ANSWERED for s in unanswerable)
    seconds = [s.seconds for s in scores if s.seconds is not None and s.outcome != ERROR]
    tokens = [s.tokens for s in scores if s.tokens is not None]
    statuses: dict[str, int] = {}
    for s in scores:
        if s.outcome != ERROR:
            key = s.answer_status or "absent"
            statuses[key] = statuses.get(key, 0) + 1
    p50, p95 = percentile(seconds, 50), percentile(seconds, 95)
    return {
        "questions": len(scores),
        "errors": sum(s.outcome == ERROR for s in scores),
        "answerable": len(answerable),
        "right": right,
        "wrong": wrong,
        "not_found": not_found,
        "right_rate": _rate(right, len(answerable)),
        "wrong_rate": _rate(wrong, len(answerable)),
        "not_found_rate": _rate(not_found, len(answerable)),
        "unanswerable": len(unanswerable),
        "unanswerable_answered": answered,
        "unanswerable_answered_rate": _rate(answered, len(unanswerable)),
        "citations": shown,
        "citations_good": good,
        "citation_precision": _rate(good, shown),
        "citation_recall": _rate(right_cited, right),
        "answer_status": dict(sorted(statuses.items())),
        "latency_p50_s": round(p50, 3) if p50 is not None else None,
        "latency_p95_s": round(p95, 3) if p95 is not None else None,
        "tokens": sum(tokens) if tokens else None,
    }


def grouped(scores: Iterable[Score], key: Callable[[Score], Iterable[str]]) -> dict[str, dict[str, Any]]:
    """Figures per group; a score may belong to several groups (a question over several documents)."""
    groups: dict[str, list[Score]] = {}
    for s in scores:
        for name in key(s):
            groups.setdefault(name, []).append(s)
    return {name: figures(group) for name, group in sorted(groups.items())}


def documents_of(score: Score) -> list[str]:
    """The documents a question is about: its sources, else the documents its answer cited, else none named."""
    named = sorted({s.document for s in score.question.sources if s.document})
    return named or sorted({c.document for c in score.citations}) or ["(no document)"]


def page_texts(segments: Iterable[tuple[str, int, str]]) -> PageText:
    """A `page_text` over (file name, 0-based page, text) triples: the texts of a page joined."""
    pages: dict[tuple[str, int], list[str]] = {}
    for name, page, text in segments:
        pages.setdefault((name, page), []).append(text)
    joined = {where: "\n".join(texts) for where, texts in pages.items()}
    return lambda name, page: joined.get((name, page))


# --- comparing and gating ---------------------------------------------------------------------------------

# The figures a comparison shows, and whether a higher value is better.
COMPARED = {
    "right_rate": True,
    "wrong_rate": False,
    "not_found_rate": False,
    "unanswerable_answered_rate": False,
    "citation_precision": True,
    "citation_recall": True,
    "latency_p50_s": False,
    "latency_p95_s": False,
    "tokens": False,
}


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each compared figure of two `figures` dicts: old, new, change, and whether the change is for the better."""
    rows = []
    for name, higher_is_better in COMPARED.items():
        before, after = old.get(name), new.get(name)
        change = round(after - before, 4) if before is not None and after is not None else None
        better = None if not change else (change > 0) == higher_is_better
        rows.append({"figure": name, "old": before, "new": after, "change": change, "better": better})
    return rows


def gate(summary: Mapping[str, Any], min_right: float | None, max_wrong: float | None) -> list[str]:
    """Why the run falls short of the thresholds (rates in 0..1), empty when it does not."""
    failures = []
    right, wrong = summary.get("right_rate"), summary.get("wrong_rate")
    if min_right is not None and (right is None or right < min_right):
        failures.append(f"right rate {_shown(right)} is below --min-right {min_right:g}")
    if max_wrong is not None and (wrong is None or wrong > max_wrong):
        failures.append(f"wrong rate {_shown(wrong)} is above --max-wrong {max_wrong:g}")
    return failures


def _shown(rate: float | None) -> str:
    return "n/a (no answerable question scored)" if rate is None else f"{rate:.3f}"
