"""report.html and the summary tables from a made report (issues 32, 42): what a question or an answer holds is
shown as text, never as markup; each failure is there with its citations; the comparison shows each change; the
headline and the calibration per answer_status come first; the page fits a 1280 and an 800 px wide window."""

from __future__ import annotations

import pytest
from test_view import CHROMIUM, LAUNCH_ARGS

from evaluation import Question, Source, score_answer
from worker.evalrun.asking import Asked, Run
from worker.evalrun.html import render_report
from worker.evalrun.report import build_report, comparison_table, summary, summary_table, with_comparison
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


def test_follow_ups_are_scored_apart_and_show_how_they_were_read() -> None:
    first = Question("a", "What is the total on invoice 7?", "user", (("7",),), conversation="inv")
    then = Question("b", "And its tax?", "user", (("1",),), conversation="inv", follow_up=True)
    read_as = "And its tax on invoice 7?"
    payloads = {
        "a": {"content": "Total: 7", "metadata": {"citations": []}},
        "b": {
            "content": "Tax: 2",
            "metadata": {"citations": [], "answer_status": "answered", "standalone_question": read_as},
        },
    }
    scores = [score_answer(q, payloads[q.id], NAMES, seconds=0.5) for q in (first, then)]
    asked = {q.id: Asked(q, "c-1", f"m-{q.id}", message(payloads[q.id]), seconds=0.5) for q in (first, then)}
    report = build_report(
        Run(list(asked.values()), seconds=1.0), scores, asked, {"workspace": {"name": "w", "id": "x"}}
    )
    assert {name: (f["questions"], f["right"], f["wrong"]) for name, f in report["by_turn"].items()} == {
        "first or alone": (1, 1, 0),
        "follow-up": (1, 0, 1),
    }
    rows = {q["id"]: q for q in report["questions"]}
    assert (rows["a"]["standalone_question"], rows["b"]["standalone_question"]) == (None, read_as)
    assert (rows["b"]["conversation"], rows["b"]["follow_up"]) == ("inv", True)
    turns = summary(report).split("\n\n")[2].splitlines()
    assert [line.split()[0] for line in turns] == ["turn", "first", "follow-up", "all"]
    assert turns[2].split()[1:5] == ["1", "0", "0%", "1"]
    page = render_report(report, {})
    assert "<caption>Follow-ups apart</caption>" in page
    assert f"<dt>read as</dt><dd>{read_as}</dd>" in page and "<dt>follow-up</dt><dd>in conversation inv</dd>" in page
    assert made_report()["by_turn"] == {}  # no follow-up: nothing apart


# --- the layout, in Chromium (issue 42: the figures overflowed at 1280 px; the latency chart's labels overlapped)

KINDS = ("field", "label", "sentence", "definition", "table", "unanswerable", "user")
FILES = {f"d{n}": name for n, name in enumerate(["gnuplot.pdf", "a-utility-bill-of-april-2018-scanned.pdf", "r.jpg"])}


def busy_report() -> dict:
    """A report with every kind, several documents, every answer_status, a slow tail of latencies and a
    comparison: the most a page has to fit."""
    scores, asked = [], {}
    for n in range(70):
        kind, document = KINDS[n % len(KINDS)], FILES[f"d{n % 3}"]
        if kind == "unanswerable":
            q = Question(f"q{n}", f"What is the wine vintage of item {n}?", kind)
        else:
            q = Question(f"q{n}", f"What is the default of option {n}?", kind, ((str(n),),), (Source(document, None),))
        status = ("answered", "answered", "uncertain", "not_found")[n % 4]
        cited = [{"number": 1, "document_id": f"d{n % 3}", "page_idx": n % 5, "quote": {"text": f"option {n}"}}]
        payload = {
            "content": f"It is {n + n % 2} [1]." if status != "not_found" else "I could not find an answer.",
            "metadata": {"citations": cited if status != "not_found" else [], "answer_status": status},
        }
        seconds = 0.4 + (n % 9) * 0.2 if n % 10 else 30.0 + n  # a slow tail
        scores.append(score_answer(q, payload, FILES, seconds=seconds))
        asked[q.id] = Asked(q, f"c-{n}", f"m-{n}", message(payload), seconds=seconds)
    generation = {"asked": 100, "generated": 60, "answerable": 50, "unanswerable": 10, "answerable_wanted": 85}
    about = {
        "workspace": {"name": "manuals", "id": "x"},
        "answerer": {"provider": "extractive", "model": None},
        "generation": generation,
    }
    report = build_report(Run(list(asked.values()), seconds=90.0), scores, asked, about)
    return with_comparison(report, build_report(Run(list(asked.values())), scores, asked, about), "old/report.json")


# Every text of every chart inside its chart and apart from the others; every table inside the page's column and
# not scrolled; nothing wider than the window.
LAYOUT_PROBLEMS = """() => {
  const problems = [];
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5
    && a.bottom <= b.bottom + 0.5;
  const apart = (a, b) => a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5
    || b.bottom <= a.top + 0.5;
  for (const svg of document.querySelectorAll("svg")) {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].map(t => [t.textContent, t.getBoundingClientRect()]);
    texts.forEach(([text, r], i) => {
      if (!inside(r, box)) problems.push(`${svg.getAttribute("aria-label")}: "${text}" outside its chart`);
      texts.slice(i + 1).forEach(([other, s]) => {
        if (!apart(r, s)) problems.push(`${svg.getAttribute("aria-label")}: "${text}" over "${other}"`);
      });
    });
  }
  const column = document.querySelector("main").getBoundingClientRect();
  for (const table of document.querySelectorAll("table")) {
    const name = table.innerText.slice(0, 30);
    if (!inside(table.getBoundingClientRect(), column)) problems.push(`table "${name}" overflows`);
    if (table.scrollWidth > table.clientWidth + 1) problems.push(`table "${name}" scrolls`);
  }
  const wide = document.documentElement.scrollWidth - window.innerWidth;
  if (wide > 0) problems.push(`the page is ${wide} px wider than the window`);
  return problems;
}"""


def test_the_report_fits_the_screen_at_1280_and_800_pixels(tmp_path) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    if not CHROMIUM.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    report = busy_report()
    page_file = tmp_path / "report.html"
    page_file.write_text(render_report(report, {}), encoding="utf-8")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        try:
            for width in (1280, 800):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(page_file.as_uri())
                page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
                assert page.evaluate(LAYOUT_PROBLEMS) == [], width
                assert page.locator("svg").count() == 5
                headline = page.locator(".headline.warning")
                assert headline.inner_text().startswith("fewer answerable questions than asked: 100 generated")
                calibration = page.locator("section[aria-label=Calibration] table tr")
                answered = report["calibration"]["answered"]
                shown = [str(answered[k]) for k in ("answers", "right", "wrong")]
                assert calibration.nth(1).inner_text().split() == ["answered", *shown, f"{answered['right_rate']:.0%}"]
                assert answered["answers"] == 36 and answered["right"] + answered["wrong"] == 36
                page.close()
        finally:
            browser.close()
