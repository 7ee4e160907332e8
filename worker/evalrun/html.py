"""report.html: one self-contained file (design §12): the figures, a chart per measure as inline SVG, and every
failed question with its answer, its citations and the cited page with the quote highlighted, drawn by
`segcite view`'s own rendering (worker.view). No network (the same Content-Security-Policy as `view`), no build.

A page image cited by several failures is inlined once: each figure names it, and a few lines of script set the
images' sources from one table.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from worker.evalrun.report import KIND_ORDER
from worker.view import AnswerView, page_figure
from worker.view_assets import VIEW_STYLE

COLORS = {
    "right": "#15803d",
    "wrong": "#b91c1c",
    "not_found": "#a3a3a3",
    "error": "#7c3aed",
    "declined": "#15803d",
    "answered": "#b91c1c",
}
OUTCOME_LABELS = {
    "right": "right",
    "wrong": "wrong",
    "not_found": "not found",
    "error": "error",
    "declined": "said not found (right: unanswerable)",
    "answered": "answered (wrong)",
}
_DATA_SRC = re.compile(r'src="(data:[^"]+)"')


def render_report(report: Mapping[str, Any], views: Mapping[str, AnswerView]) -> str:
    """The page; `views` maps the message ids of failed answers to what `segcite view` would show of them."""
    images: dict[str, int] = {}
    parts = [_head(report)]
    parts.append('<main class="report">')
    parts.append(_overview(report))
    parts.append(_figures_tables(report))
    parts.append(_calibration_table(report))
    if "comparison" in report:
        parts.append(_comparison(report["comparison"]))
    parts.append('<section class="charts" aria-label="Charts">')
    parts.append(_outcomes_chart(report))
    parts.append(_citations_chart(report))
    parts.append(_documents_chart(report))
    parts.append(_latency_chart(report))
    parts.append(_calibration_chart(report))
    parts.append("</section>")
    failed = [q for q in report["questions"] if q["failed"]]
    parts.append(f'<section class="failures" aria-label="Failed questions"><h2>Failed questions ({len(failed)})</h2>')
    if not report["questions"]:
        parts.append("<p>None: no question was asked.</p>")
    elif not failed:
        parts.append("<p>None: every question scored right.</p>")
    for q in failed:
        cited = views.get(q.get("message_id") or "")
        parts.append(_failure(q, cited, views.get(f"source:{q['id']}"), images))
    parts.append("</section></main>")
    parts.append(_images_script(images))
    parts.append("</body></html>\n")
    return "".join(parts)


def _head(report: Mapping[str, Any]) -> str:
    workspace = report.get("workspace", {}).get("name", "")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy"\n'
        " content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        '<link rel="icon" href="data:,">\n'
        f"<title>segcite eval: {html.escape(workspace)}</title>\n<style>{VIEW_STYLE}{_STYLE}</style></head><body>\n"
    )


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.0f}%"


def _overview(report: Mapping[str, Any]) -> str:
    run = report["run"]
    answerer = report.get("answerer") or {}
    lines = [
        f"workspace <b>{html.escape(str(report.get('workspace', {}).get('name', '')))}</b>",
        f"answerer <b>{html.escape(str(answerer.get('provider', '')))}</b>"
        + (f" ({html.escape(str(answerer['model']))})" if answerer.get("model") else ""),
        f"{run['finished']} of {run['questions']} questions finished in {run['seconds']:.0f} s",
        f"written {html.escape(str(report.get('created_at', '')))}",
    ]
    stopped = '<p class="note">Stopped before the end (Ctrl-C): only the finished questions are scored.</p>'
    generation = report.get("generation") or {}
    short = not report["summary"]["answerable"] or (
        generation and generation["answerable"] < generation["answerable_wanted"]
    )
    headline = report.get("headline") or ""
    css = "headline warning" if short else "headline"
    shown = f'<p class="{css}">{html.escape(headline)}</p>' if headline else ""
    return (
        f'<header class="overview"><h1>segcite eval</h1>{shown}'
        + "<p>"
        + " · ".join(lines)
        + "</p>"
        + (stopped if run["interrupted"] else "")
        + (f'<p class="note">Stopped: {html.escape(run["gave_up"])}</p>' if run.get("gave_up") else "")
        + "</header>"
    )


def _groups(report: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    kinds = sorted(report["by_kind"], key=lambda k: KIND_ORDER.index(k) if k in KIND_ORDER else 99)
    return [(k, report["by_kind"][k]) for k in kinds] + [("all", report["summary"])]


def _figures_tables(report: Mapping[str, Any]) -> str:
    """The figures per kind and for all, in two tables narrow enough for a laptop's screen: the answers, then
    their citations and speed; with follow-ups, the answers of follow-ups apart from the questions asked first."""
    groups = _groups(report)
    tables = _table("Answers", ANSWER_FIGURES, [(name, _answer_cells(f)) for name, f in groups])
    tables += _table("Citations and speed", CITATION_FIGURES, [(name, _citation_cells(f)) for name, f in groups])
    if report.get("by_turn"):
        turns = [*report["by_turn"].items(), ("all", report["summary"])]
        tables += _table("Follow-ups apart", ANSWER_FIGURES, [(name, _answer_cells(f)) for name, f in turns])
    return f'<section aria-label="Figures"><h2>Figures</h2><div class="tables">{tables}</div></section>'


ANSWER_FIGURES = ("questions", "right", "wrong", "not found", "unanswerable answered")
CITATION_FIGURES = ("citation precision", "citation recall", "latency p50", "latency p95", "tokens")


def _answer_cells(f: Mapping[str, Any]) -> list[str]:
    return [
        f"{f['questions']}" + (f" ({f['errors']} errors)" if f["errors"] else ""),
        f"{f['right']} ({_pct(f['right_rate'])})" if f["answerable"] else "–",
        f"{f['wrong']} ({_pct(f['wrong_rate'])})" if f["answerable"] else "–",
        f"{f['not_found']} ({_pct(f['not_found_rate'])})" if f["answerable"] else "–",
        f"{f['unanswerable_answered']} of {f['unanswerable']}" if f["unanswerable"] else "–",
    ]


def _citation_cells(f: Mapping[str, Any]) -> list[str]:
    return [
        f"{_pct(f['citation_precision'])} of {f['citations']}" if f["citations"] else "–",
        _pct(f["citation_recall"]),
        "–" if f["latency_p50_s"] is None else f"{f['latency_p50_s']:.2f} s",
        "–" if f["latency_p95_s"] is None else f"{f['latency_p95_s']:.2f} s",
        "not reported" if f["tokens"] is None else str(f["tokens"]),
    ]


def _table(caption: str, head: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]) -> str:
    """A table of figures: a row per group (`all` in bold), a column per figure."""
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        ('<tr class="total">' if name == "all" else "<tr>")
        + f"<th>{html.escape(name)}</th>"
        + "".join(f"<td>{c}</td>" for c in values)
        + "</tr>"
        for name, values in rows
    )
    shown = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table class="figures">{shown}<tr><th></th>{cells}</tr>{body}</table>'


def _calibration_table(report: Mapping[str, Any]) -> str:
    """Per `answer_status`: how many answers, right and wrong, and the share right (the precision of
    `answered`: what a team trusts or not)."""
    rows = [
        (status, [str(c["answers"]), str(c["right"]), str(c["wrong"]), _pct(c["right_rate"])])
        for status, c in report.get("calibration", {}).items()
    ]
    note = (
        '<p class="note">Right: the expected answer given, or an unanswerable question said "not found". Wrong: a '
        'wrong value, an unanswerable question answered, or "not found" said of an answerable one.</p>'
    )
    return (
        '<section aria-label="Calibration"><h2>Calibration: answers per answer_status</h2><div class="tables">'
        + _table("", ["answers", "right", "wrong", "right share"], rows)
        + "</div>"
        + note
        + "</section>"
    )


def _comparison(comparison: Mapping[str, Any]) -> str:
    rows = []
    for row in comparison["summary"]:
        figure, old, new, change = row["figure"], row["old"], row["new"], row["change"]
        seconds, tokens = figure.endswith("_s"), figure == "tokens"

        def shown(value: float | None, seconds: bool = seconds, tokens: bool = tokens) -> str:
            if value is None:
                return "–"
            return f"{value:.2f} s" if seconds else (f"{value:g}" if tokens else _pct(value))

        if change is None:
            delta = "–"
        elif seconds:
            delta = f"{change:+.2f} s"
        elif tokens:
            delta = f"{change:+g}"
        else:
            delta = f"{100 * change:+.1f} pt"
        css = {True: "better", False: "worse", None: ""}[row["better"]]
        rows.append(
            f"<tr><th>{html.escape(figure)}</th><td>{shown(old)}</td><td>{shown(new)}</td>"
            f'<td class="{css}">{delta}</td></tr>'
        )
    title = html.escape(str(comparison.get("old", "")))
    return (
        f'<section aria-label="Comparison"><h2>Compared with {title}</h2><table class="figures compare">'
        "<tr><th>figure</th><th>old</th><th>this run</th><th>change</th></tr>" + "".join(rows) + "</table></section>"
    )


# --- charts (inline SVG) ------------------------------------------------------------------------------------


def _chart(title: str, body: str, width: int, height: int, legend: Sequence[tuple[str, str]] = ()) -> str:
    keys = "".join(
        f'<span class="key"><i style="background:{color}"></i>{html.escape(label)}</span>' for label, color in legend
    )
    return (
        f'<figure class="chart"><figcaption>{html.escape(title)}</figcaption>'
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" aria-label="{html.escape(title)}" '
        f'xmlns="http://www.w3.org/2000/svg">{body}</svg>'
        + (f'<div class="legend">{keys}</div>' if keys else "")
        + "</figure>"
    )


def _label(x: float, y: float, text: str, anchor: str = "end", css: str = "axis") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{css}">{html.escape(text)}</text>'


def _stacked_bars(
    rows: Sequence[tuple[str, Sequence[tuple[str, int]]]], colors: Mapping[str, str] = COLORS, left: int = 150
) -> tuple[str, int, int]:
    """Horizontal bars, each split into coloured parts with their counts."""
    width, bar, gap = 620, 22, 10
    body = []
    for n, (name, parts) in enumerate(rows):
        y = 10 + n * (bar + gap)
        total = sum(count for _, count in parts) or 1
        body.append(_label(left - 8, y + bar * 0.7, name))
        x = float(left)
        for outcome, count in parts:
            if not count:
                continue
            w = (width - left - 20) * count / total
            tip = f"{name}: {count} {OUTCOME_LABELS.get(outcome, outcome)}"
            body.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colors.get(outcome, "#64748b")}">'
                f"<title>{html.escape(tip)}</title></rect>"
            )
            if w > 18:
                body.append(_label(x + w / 2, y + bar * 0.7, str(count), "middle", "inbar"))
            x += w
    return "".join(body), width, 10 + len(rows) * (bar + gap)


def _outcomes_chart(report: Mapping[str, Any]) -> str:
    rows = []
    for name, f in _groups(report):
        if name == "unanswerable":
            parts = [
                ("declined", f["unanswerable"] - f["unanswerable_answered"]),
                ("answered", f["unanswerable_answered"]),
            ]
        else:
            parts = [("right", f["right"]), ("wrong", f["wrong"]), ("not_found", f["not_found"])]
            if name == "all" and f["unanswerable"]:
                parts += [("declined", f["unanswerable"] - f["unanswerable_answered"])]
                parts += [("answered", f["unanswerable_answered"])]
        rows.append((name, [*parts, ("error", f["errors"])]))
    body, width, height = _stacked_bars(rows)
    legend = [(OUTCOME_LABELS[k], COLORS[k]) for k in ("right", "wrong", "not_found", "answered", "error")]
    return _chart("Answers per kind", body, width, height, legend)


def _rate_bars(
    rows: Sequence[tuple[str, Sequence[tuple[str, float | None, str]]]], left: int = 150
) -> tuple[str, int, int]:
    """Horizontal bars of rates (0..1), one or more per row, with the rate written at the end."""
    width, bar, gap = 620, 14, 10
    body, y = [], 10
    span = width - left - 60
    for tick in (0, 0.5, 1):
        x = left + span * tick
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="4" y2="100%" class="grid"/>')
    for name, bars in rows:
        body.append(_label(left - 8, y + len(bars) * bar * 0.6, name))
        for label, rate, color in bars:
            w = span * (rate or 0)
            body.append(
                f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar - 2}" fill="{color}">'
                f"<title>{html.escape(f'{name}: {label} {_pct(rate)}')}</title></rect>"
            )
            body.append(_label(left + w + 4, y + bar * 0.75, _pct(rate), "start", "value"))
            y += bar
        y += gap
    return "".join(body), width, y


def _citations_chart(report: Mapping[str, Any]) -> str:
    rows = [
        (
            name,
            [
                ("precision", f["citation_precision"], "#2563eb"),
                ("recall", f["citation_recall"], "#f59e0b"),
            ],
        )
        for name, f in _groups(report)
    ]
    body, width, height = _rate_bars(rows)
    legend = [("citation precision", "#2563eb"), ("citation recall (right answers with a good citation)", "#f59e0b")]
    return _chart("Citations per kind", body, width, height, legend)


def _documents_chart(report: Mapping[str, Any]) -> str:
    rows = [
        (_short(name), [("right", f["right_rate"], "#15803d")])
        for name, f in report["by_document"].items()
        if f["answerable"]
    ]
    if not rows:
        return ""
    body, width, height = _rate_bars(rows, left=230)
    return _chart("Right answers per document", body, width, height)


def _short(name: str, limit: int = 30) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _latency_chart(report: Mapping[str, Any]) -> str:
    """A histogram of the latencies up to a little past the 95th percentile (a slow tail would squash the rest into
    one bar; it is counted in the last bar, its end marked `≥`), with p50 and p95 marked, each labelled on a row of
    its own in a band above the bars, where no bar reaches."""
    seconds = sorted(q["latency_s"] for q in report["questions"] if q.get("latency_s") is not None)
    if not seconds:
        return ""
    width, height, left, right, top, bottom = 620, 190, 40, 20, 40, 30
    p50, p95 = report["summary"]["latency_p50_s"], report["summary"]["latency_p95_s"]
    end = max(min(seconds[-1], (p95 or seconds[-1]) * 1.25), 0.001)
    bins = 20
    counts = [0] * bins
    for s in seconds:
        counts[min(bins - 1, int(s / end * bins))] += 1
    most = max(counts)
    span_x, span_y = width - left - right, height - bottom - top
    base = height - bottom
    body = [f'<line x1="{left}" x2="{width - right}" y1="{base}" y2="{base}" class="grid"/>']
    for n, count in enumerate(counts):
        h = span_y * count / most
        x = left + span_x * n / bins
        body.append(
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{span_x / bins - 2:.1f}" height="{h:.1f}" '
            f'fill="#64748b"><title>{count} answers</title></rect>'
        )
    for row, (name, value) in enumerate((("p50", p50), ("p95", p95))):
        if value is None:
            continue
        x = left + span_x * min(value, end) / end
        label_y = 13 + 15 * row
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{label_y + 3}" y2="{base}" class="mark"/>')
        anchor, shift = ("end", -4) if x > left + span_x * 0.6 else ("start", 4)
        body.append(_label(x + shift, label_y, f"{name} {value:.2f} s", anchor, "value"))
    body.append(_label(left, height - 10, "0 s", "start"))
    tail = "≥ " if seconds[-1] > end else ""
    body.append(_label(width - right, height - 10, f"{tail}{end:.2f} s", "end"))
    return _chart("Latency (question written to answer published)", "".join(body), width, height)


def _calibration_chart(report: Mapping[str, Any]) -> str:
    """Per `answer_status`, its answers right and wrong."""
    colors = {"right": "#15803d", "wrong": "#b91c1c"}
    rows = [
        (status, [("right", c["right"]), ("wrong", c["wrong"])])
        for status, c in report.get("calibration", {}).items()
        if c["answers"]
    ]
    if not rows:
        return ""
    body, width, height = _stacked_bars(rows, colors)
    return _chart("Right and wrong per answer_status", body, width, height, list(colors.items()))


# --- failures -----------------------------------------------------------------------------------------------


def _failure(q: Mapping[str, Any], view: AnswerView | None, source: AnswerView | None, images: dict[str, int]) -> str:
    """A failed question: what was asked and expected, the answer, its citations and their pages (`view`), or,
    for an answer without citations, the page the question was made from with its segment marked (`source`)."""
    outcome = q["outcome"]
    parts = [
        f'<article class="failure" id="q-{html.escape(q["id"])}" data-outcome="{html.escape(outcome)}">',
        '<div class="failure-text">',
        f'<h3><span class="badge {html.escape(outcome)}">{html.escape(OUTCOME_LABELS.get(outcome, outcome))}</span> '
        f"{html.escape(q['question'])}</h3>",
        '<dl class="facts">',
        *(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in _facts(q)),
    ]
    parts.append("</dl>")
    if q.get("error"):
        parts.append(f'<p class="note">{html.escape(q["error"])}</p>')
    if q.get("content") is not None:
        parts.append(f'<blockquote class="answer-text">{html.escape(q["content"])}</blockquote>')
    if q["citations"]:
        parts.append('<ol class="cites">')
        for c in q["citations"]:
            mark = "good" if c["good"] else "bad"
            verdict = "holds the answer" if c["good"] else "does not hold the answer"
            parts.append(
                f'<li value="{c["number"]}" class="{mark}"><b>{html.escape(c["document"])}</b>, page {c["page"]} '
                f'<span class="verdict">({verdict})</span><br><q>{html.escape(c["quote"])}</q></li>'
            )
        parts.append("</ol>")
    elif q.get("content") is not None:
        parts.append('<p class="note">No citation shown.</p>')
    if source is not None and source.pages:
        parts.append('<p class="note">Where the answer is: the passage the question was made from, marked.</p>')
    parts.append("</div>")
    shown = view if view is not None and view.pages else source
    if shown is not None and shown.pages:
        parts.append('<div class="pages">')
        for page in shown.pages[:2]:  # the first pages it cites: enough to see what it pointed at
            parts.append(_shared_image(page_figure(page, shown.filenames), images))
        parts.append("</div>")
    parts.append("</article>")
    return "".join(parts)


def _facts(q: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What a failure card says of its question, as (name, escaped value) pairs: what was expected and where, how
    a follow-up was read, the documents it was asked of, and the answer's status and message."""
    expected = q.get("answers") or [" and ".join(alts[0] for alts in q.get("answers_all", []))]
    facts = [
        ("kind", html.escape(q["kind"])),
        ("expected", "nothing: no document answers it" if q.get("unanswerable") else html.escape(" | ".join(expected))),
    ]
    if q.get("document"):
        facts.append(("where", html.escape(q["document"]) + (f", page {q['page']}" if q.get("page") else "")))
    if q.get("follow_up"):
        facts.append(("follow-up", f"in conversation {html.escape(q['conversation'])}"))
    if q.get("standalone_question"):
        facts.append(("read as", html.escape(q["standalone_question"])))
    if q.get("documents"):
        facts.append(("asked of", html.escape(", ".join(q["documents"]))))
    if q.get("answer_status"):
        facts.append(("answer_status", html.escape(q["answer_status"])))
    if q.get("message_id"):
        message, conversation = html.escape(q["message_id"]), html.escape(str(q.get("conversation_id")))
        facts.append(("message", f"<code>{message}</code> in conversation <code>{conversation}</code>"))
    return facts


def _shared_image(figure: str, images: dict[str, int]) -> str:
    """The figure with its image's data URI replaced by a reference into one table of images."""

    def reference(found: re.Match[str]) -> str:
        number = images.setdefault(found.group(1), len(images))
        return f'data-image="{number}"'

    return _DATA_SRC.sub(reference, figure)


def _images_script(images: Mapping[str, int]) -> str:
    if not images:
        return ""
    import orjson

    table = orjson.dumps(list(images)).decode().replace("</", "<\\/")
    return (
        "<script>\n(function () {\n  var images = "
        + table
        + ';\n  document.querySelectorAll("img[data-image]").forEach(function (img) {\n'
        '    img.src = images[Number(img.getAttribute("data-image"))];\n  });\n})();\n</script>\n'
    )


_STYLE = """
.report { max-width: 1100px; margin: 0 auto; padding: 1.5rem; }
.report h1 { margin: 0 0 .3rem; font-size: 1.5rem; }
.report h2 { font-size: 1.15rem; margin: 1.6rem 0 .6rem; }
.overview p { margin: .2rem 0; color: #57606a; }
.overview .headline { color: #1f2328; font-weight: 600; font-size: 1.05rem; margin: .2rem 0 .5rem; }
.overview .headline.warning { background: #fef3c7; border-left: 4px solid #d97706; padding: .5rem .8rem;
  border-radius: 4px; }
.tables { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.tables > table { max-width: 100%; }
table.figures { border-collapse: collapse; background: #fff; border-radius: 8px; font-size: .9rem; }
table.figures caption { text-align: left; font-weight: 600; padding: 0 0 .3rem; color: #57606a; }
table.figures th, table.figures td { padding: .35rem .6rem; border-bottom: 1px solid #e5e7eb; text-align: right; }
table.figures td { white-space: nowrap; }
table.figures tr:first-child th { vertical-align: bottom; font-weight: 600; max-width: 9rem; }
table.figures th:first-child { text-align: left; }
table.figures tr.total { font-weight: 600; }
td.better { color: #15803d; font-weight: 600; }
td.worse { color: #b91c1c; font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 460px), 1fr)); gap: 1rem;
  margin-top: 1.2rem; }
.chart { margin: 0; background: #fff; border-radius: 8px; padding: .7rem .9rem; }
.chart figcaption { font-weight: 600; margin-bottom: .4rem; color: #1f2328; font-size: .95rem; }
.chart svg { display: block; font: 12px system-ui, sans-serif; }
.chart .axis { fill: #374151; }
.chart .value { fill: #374151; }
.chart .inbar { fill: #fff; font-weight: 600; }
.chart .grid { stroke: #e5e7eb; }
.chart .mark { stroke: #b45309; stroke-dasharray: 4 3; }
.legend { font-size: .8rem; color: #57606a; margin-top: .3rem; }
.key { margin-right: .9rem; white-space: nowrap; }
.key i { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .3rem;
  vertical-align: -1px; }
.failure { background: #fff; border-radius: 8px; padding: .8rem 1rem; margin-bottom: 1rem; overflow-wrap: anywhere; }
.failure h3 { font-size: 1rem; margin: 0 0 .4rem; }
.badge { display: inline-block; border-radius: 4px; padding: 0 .4rem; color: #fff; font-size: .8rem;
  background: #64748b; }
.badge.wrong, .badge.answered { background: #b91c1c; }
.badge.not_found { background: #737373; }
.badge.error { background: #7c3aed; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; font-size: .88rem; margin: 0; }
.facts dt { color: #57606a; }
.facts dd { margin: 0; }
.answer-text { white-space: pre-wrap; }
.cites { font-size: .88rem; padding-left: 1.5rem; }
.cites li.good .verdict { color: #15803d; }
.cites li.bad .verdict { color: #b91c1c; }
.failure { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 440px); gap: 1rem; align-items: start; }
.failure-text { min-width: 0; }
.pages { display: grid; gap: .8rem; }
@media (max-width: 820px) { .failure { grid-template-columns: minmax(0, 1fr); } }
/* `segcite view` shows one page at a time; here every cited page of a failure shows, its highlights on. */
.failure .page-view[hidden] { display: block; }
.failure .highlight { display: block; }
"""
