"""report.html and the summary tables from a made report (issue 32): what a question or an answer holds is shown
as text, never as markup; each failure is there with its citations; the comparison shows each change."""

from __future__ import annotations

from evaluation import Question, Source, score_answer
from worker.evalrun.asking import Asked, Run
from worker.evalrun.html import render_report
from worker.evalrun.report import build_report, comparison_table, summary_table, with_comparison
from worker.stores.rows import MessageRow, MessageStatus, Role
from worker.view import AnswerView, PageView

NAMES = {"d1": "r&d <1>.json"}
EVIL = Question("e", "What is <script>alert(1)</script>?", "user", (("42",),), (Source("r&d <1>.json", None),))
FINE = Question("f", "What is the total?", "field", (("7",),), (Source("r&d <1>.json", frozenset({0})),))


def message(payload: dict) -> MessageRow:
    return MessageRow("m", "c", "w", Role.ASSISTANT, "q", payload["content"], MessageStatus.DONE, payload["metadata"])


def made_report() -> dict:
    citation = {
        "number": 1,
        "document_id": "d1",
        "page_idx": 2,
        "quote": {"text": "<b>41</b>"},
        "boxes": [{"page_idx": 2, "x0": 0.1, "y0": 0.2, "x1": 0.5, "y1": 0.25}],
    }
    wrong = {"content": "It is <img src=x onerror=alert(1)> 41 [1]", "metadata": {"citations": [citation]}}
    right = {"content": "Total: 7", "metadata": {"citations": []}}
    scores = [score_answer(EVIL, wrong, NAMES, seconds=0.5), score_answer(FINE, right, NAMES, seconds=0.25)]
    asked = {
        "e": Asked(EVIL, "c-1", "m-1", message(wrong), seconds=0.5),
        "f": Asked(FINE, "c-2", "m-2", message(right), seconds=0.25),
    }
    run = Run(list(asked.values()), seconds=1.0)
    about = {"workspace": {"name": "w<s>", "id": "x"}, "answerer": {"provider": "extractive", "model": None}}
    return build_report(run, scores, asked, about)


def test_the_page_escapes_what_it_shows_and_lists_each_failure() -> None:
    report = made_report()
    assert [q["outcome"] for q in report["questions"]] == ["wrong", "right"]
    page_view = PageView("d1", 2, 8.5, 11.0, None, [report_citation()])
    views = {"m-1": AnswerView(EVIL.text, "", [report_citation()], NAMES, [page_view])}
    page = render_report(report, views)
    assert "<script>alert(1)</script>" not in page and "What is &lt;script&gt;alert(1)&lt;/script&gt;?" in page
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;b&gt;41&lt;/b&gt;" in page and "r&amp;d &lt;1&gt;.json" in page and "w&lt;s&gt;" in page
    assert page.count('<article class="failure"') == 1 and 'id="q-e"' in page and 'id="q-f"' not in page
    assert page.count("<svg ") == 5
    assert 'class="highlight" data-citation="1"' in page and "left:10.0000%;top:20.0000%" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def report_citation() -> dict:
    return {
        "number": 1,
        "document_id": "d1",
        "page_idx": 2,
        "boxes": [{"page_idx": 2, "x0": 0.1, "y0": 0.2, "x1": 0.5, "y1": 0.25}],
    }


def test_the_tables_show_each_kind_and_each_change() -> None:
    old, new = made_report(), made_report()
    new["summary"]["right_rate"] = 1.0
    with_comparison(new, old, "before/report.json")
    lines = summary_table(old).splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["field", "user", "all"]
    assert lines[-1].split()[1:5] == ["2", "1", "50%", "1"]
    changes = {line.split()[0]: line for line in comparison_table(new).splitlines()[1:]}
    assert changes["right_rate"].split()[1:] == ["50%", "100%", "+50.0", "pt", "better"]
    assert changes["latency_p50_s"].split()[1:] == ["0.25s", "0.25s", "+0.00s"]
    assert "Compared with before/report.json" in render_report(new, {})
