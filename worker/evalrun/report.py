"""report.json (docs/eval-report.md) and the summary table printed at the end of `segcite eval`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from evaluation import Score, calibration, compare, figures, headline
from evaluation.figures import documents_of, grouped
from evaluation.scoring import DECLINED, ERROR, RIGHT
from worker.evalrun.asking import Asked, Run

SCHEMA = "segcite-eval/1"
FIRST, FOLLOW_UP = "first or alone", "follow-up"  # by_turn's groups
KIND_ORDER = ("field", "label", "sentence", "definition", "table", "unanswerable", "user", "model")


def build_report(
    run: Run, scores: Sequence[Score], asked: Mapping[str, Asked], about: Mapping[str, Any]
) -> dict[str, Any]:
    """The whole report; `asked` maps question ids to their runs, `about` says what was evaluated (workspace,
    answerer, where the questions came from, what generation gave, concurrency)."""
    answerable = sum(a.question.answerable for a in run.asked)
    return {
        "schema": SCHEMA,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "headline": headline(len(run.asked), answerable, about.get("generation")),
        "generation": None,
        **about,
        "run": {
            "questions": len(run.asked),
            "finished": len(run.finished),
            "interrupted": run.interrupted,
            "gave_up": run.gave_up,
            "seconds": round(run.seconds, 2),
        },
        "summary": figures(scores),
        "calibration": calibration(scores),
        "by_kind": grouped(scores, lambda s: [s.question.kind]),
        "by_document": grouped(scores, documents_of),
        "by_turn": _by_turn(scores),
        "questions": [_question_row(s, asked[s.question.id]) for s in scores],
    }


def _by_turn(scores: Sequence[Score]) -> dict[str, dict[str, Any]]:
    """Follow-ups scored apart from the questions asked first or alone (design §12); empty without follow-ups."""
    if not any(s.question.follow_up for s in scores):
        return {}
    turns = grouped(scores, lambda s: [FOLLOW_UP if s.question.follow_up else FIRST])
    return {name: turns[name] for name in (FIRST, FOLLOW_UP) if name in turns}


def _question_row(score: Score, asked: Asked) -> dict[str, Any]:
    q = score.question
    message = asked.message
    standalone = (message.metadata or {}).get("standalone_question") if message is not None else None
    return {
        **q.to_json(),
        "outcome": score.outcome,
        "failed": score.outcome not in (RIGHT, DECLINED),
        "answer_status": score.answer_status,
        "conversation_id": asked.conversation_id,
        "message_id": asked.message_id,
        "content": message.content if message is not None else None,
        "standalone_question": standalone if standalone != q.text else None,
        "citations": [
            {"number": c.number, "document": c.document, "page": c.page_idx + 1, "good": c.good, "quote": c.quote}
            for c in score.citations
        ],
        "latency_s": round(score.seconds, 3) if score.seconds is not None else None,
        "tokens": score.tokens,
        "error": score.error if score.outcome == ERROR else None,
    }


def with_comparison(report: dict[str, Any], old: Mapping[str, Any], old_name: str) -> dict[str, Any]:
    """The report with `comparison`: each figure of the old report beside this one's, overall and per kind."""
    kinds = sorted(set(report["by_kind"]) | set(old.get("by_kind", {})), key=_kind_rank)
    report["comparison"] = {
        "old": old_name,
        "old_created_at": old.get("created_at"),
        "old_answerer": old.get("answerer"),
        "summary": compare(old.get("summary", {}), report["summary"]),
        "by_kind": {k: compare(old.get("by_kind", {}).get(k, {}), report["by_kind"].get(k, {})) for k in kinds},
    }
    return report


def _kind_rank(kind: str) -> tuple[int, str]:
    return (KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER), kind)


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


def _sec(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}s"


def summary(report: Mapping[str, Any]) -> str:
    """What `segcite eval` prints at its end: the headline first (how many questions were answerable, and when
    that is fewer than asked, or none), the figures per kind, then the calibration per `answer_status`."""
    tables = [summary_table(report), calibration_table(report)]
    if report.get("by_turn"):
        tables.insert(1, summary_table(report, groups=list(report["by_turn"].items()), first="turn"))
    return "\n\n".join([report["headline"], *tables])


def calibration_table(report: Mapping[str, Any]) -> str:
    """Per `answer_status`: answers, how many right and wrong, and the share right (the precision of `answered`)."""
    rows = [["answer_status", "answers", "right", "wrong", "right share"]]
    for status, c in report["calibration"].items():
        rows.append([status, str(c["answers"]), str(c["right"]), str(c["wrong"]), _pct(c["right_rate"])])
    return _aligned(rows)


def summary_table(
    report: Mapping[str, Any], groups: list[tuple[str, Mapping[str, Any]]] | None = None, first: str = ""
) -> str:
    """One row per kind (or per group of `groups`, headed `first`) and one for all: counts, rates, citation
    precision and recall, latency."""
    header = [
        first,
        "questions",
        "right",
        "wrong",
        "not found",
        "unans. answered",
        "cit. prec.",
        "cit. recall",
        "p50",
        "p95",
    ]
    rows = [header]
    if groups is None:
        groups = [(k, report["by_kind"][k]) for k in sorted(report["by_kind"], key=_kind_rank)]
    for name, f in [*groups, ("all", report["summary"])]:
        unanswered = f"{f['unanswerable_answered']}/{f['unanswerable']}" if f["unanswerable"] else "-"
        rows.append(
            [
                name,
                str(f["questions"]) + (f" ({f['errors']} err)" if f["errors"] else ""),
                f"{f['right']} {_pct(f['right_rate'])}" if f["answerable"] else "-",
                f"{f['wrong']} {_pct(f['wrong_rate'])}" if f["answerable"] else "-",
                f"{f['not_found']} {_pct(f['not_found_rate'])}" if f["answerable"] else "-",
                unanswered,
                _pct(f["citation_precision"]),
                _pct(f["citation_recall"]),
                _sec(f["latency_p50_s"]),
                _sec(f["latency_p95_s"]),
            ]
        )
    return _aligned(rows)


def _figure_value(figure: str, value: float | None) -> str:
    if value is None:
        return "-"
    if figure.endswith("_s"):
        return _sec(value)
    return f"{value:g}" if figure == "tokens" else _pct(value)


def _figure_change(figure: str, change: float | None) -> str:
    if change is None:
        return "-"
    if figure.endswith("_s"):
        return f"{change:+.2f}s"
    return f"{change:+g}" if figure == "tokens" else f"{100 * change:+.1f} pt"


def comparison_table(report: Mapping[str, Any]) -> str:
    """Each compared figure of the old report and this one, with its change and whether it is for the better."""
    rows = [["figure", "old", "new", "change"]]
    for row in report["comparison"]["summary"]:
        figure = row["figure"]
        mark = {True: " better", False: " worse", None: ""}[row["better"]]
        rows.append(
            [
                figure,
                _figure_value(figure, row["old"]),
                _figure_value(figure, row["new"]),
                _figure_change(figure, row["change"]) + mark,
            ]
        )
    return _aligned(rows)


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
