"""The figures of scored questions (design §12): rates per group, calibration per `answer_status`, the headline a
report opens with, the comparison of two runs and the thresholds of a CI gate. Pure: plain data in and out."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from evaluation.scoring import ANSWERED, DECLINED, ERROR, NOT_FOUND, RIGHT, WRONG, Score

STATUSES = ("answered", "uncertain", "not_found")  # metadata.answer_status, in the order reports show them
ABSENT = "absent"  # an answer without a status (before issue 31, or a failed one)


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


def calibration(scores: Iterable[Score]) -> dict[str, dict[str, Any]]:
    """Per `answer_status`, how many answers were right and wrong: right is an expected answer given, or an
    unanswerable question declined; wrong is the rest (a wrong value, an unanswerable question answered, an
    answerable one said "not found"). `right_rate` of `answered` is the precision a team trusts or not. Every
    status is there (zeros where none came); `absent` only where answers came without one. Errors are left out."""
    counts: dict[str, list[int]] = {status: [0, 0] for status in STATUSES}
    for s in scores:
        if s.outcome == ERROR:
            continue
        row = counts.setdefault(s.answer_status or ABSENT, [0, 0])
        row[0 if s.outcome in (RIGHT, DECLINED) else 1] += 1
    return {
        status: {"answers": right + wrong, "right": right, "wrong": wrong, "right_rate": _rate(right, right + wrong)}
        for status, (right, wrong) in counts.items()
    }


def headline(questions: int, answerable: int, generation: Mapping[str, Any] | None) -> str:
    """The report's first line: how many questions, how many answerable, and, first, when generation gave fewer
    answerable questions than asked for, or when nothing answerable was asked (then the report measures nothing
    about the documents). `generation` is evaluation.generation.summary's, None without generation."""
    unanswerable = questions - answerable
    if not answerable:
        if generation is not None and generation["generated"] == questions:
            said = f"{questions} questions generated"
        else:
            said = f"{questions} questions"
        return f"{said}, none answerable: this report measures nothing about the documents"
    counts = f"{answerable} answerable, {unanswerable} unanswerable"
    if generation is not None and generation["answerable"] < generation["answerable_wanted"]:
        return (
            f"fewer answerable questions than asked: {generation['asked']} generated questions asked for, the "
            f"workspace gave {generation['answerable']} answerable ones and {generation['unanswerable']} "
            f"unanswerable probes ({questions} questions in all: {counts})"
        )
    if generation is not None and generation["generated"] < generation["asked"]:
        # (every answerable question asked for, fewer unanswerable probes: the workspace names few other things)
        return f"{questions} questions ({generation['asked']} asked for, fewer probes): {counts}"
    return f"{questions} questions: {counts}"


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
    """Why the run falls short of the thresholds (rates in 0..1), empty when it does not. With no answerable
    question scored, both thresholds fail: the run measured nothing they could hold."""
    failures = []
    right, wrong = summary.get("right_rate"), summary.get("wrong_rate")
    if min_right is not None and (right is None or right < min_right):
        failures.append(f"right rate {_shown(right)} is below --min-right {min_right:g}")
    if max_wrong is not None and (wrong is None or wrong > max_wrong):
        failures.append(f"wrong rate {_shown(wrong)} is above --max-wrong {max_wrong:g}")
    return failures


def _shown(rate: float | None) -> str:
    return "n/a (nothing answerable was asked or scored)" if rate is None else f"{rate:.3f}"
