"""The one scorer (issues 32, 42): made answers scored right, wrong, not found, read without their citation markers
and SEG tags; a citation good when its quote holds the answer; `answer_status` where answers carry it; the figures,
the calibration per status, the headline, the comparison of two runs and the thresholds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from evaluation import Question, Source, calibration, compare, figures, gate, headline, holds, score_answer
from evaluation.figures import STATUSES
from evaluation.scoring import ANSWERED, DECLINED, ERROR, NOT_FOUND, RIGHT, WRONG, answer_text, page_texts

NAMES = {"d1": "invoice.json", "d2": "receipt.json"}
TOTAL = Question("t", "What is the total?", "field", (("$1,767.97",),), (Source("invoice.json", frozenset({0})),))
PAGES = page_texts(
    [
        ("invoice.json", 0, "Tax (10%): $1,767.97"),
        ("invoice.json", 1, "Terms and conditions"),
        ("invoice.json", 4, "Copy. Tax (10%): 1767.97 USD"),
        ("receipt.json", 0, "Total 1,767.97"),
    ]
)


def answer(content: str, *cited: tuple[str, int, str], status: str | None = None) -> dict[str, Any]:
    citations = [
        {"number": n, "document_id": d, "page_idx": p, "quote": {"text": q}} for n, (d, p, q) in enumerate(cited, 1)
    ]
    metadata: dict[str, Any] = {"citations": citations}
    if status is not None:
        metadata["answer_status"] = status
    return {"content": content, "metadata": metadata}


@pytest.mark.parametrize(
    ("text", "value", "held"),
    [
        ("The tax is $1,767.97.", "1767.97", True),
        ("Montant total: 62,86 € [1]", "62,86 €", True),
        ("Total: 1 767,97 EUR", "$1,767.97", True),
        ("Total: 1767.970", "1767.97", True),
        ("Total: 17679.7", "1767.97", False),
        ("due on October 1, 2020", "2020-10-01", True),
        ("due on 01.10.2020", "2020/10/01", True),
        ("due on 1 oct. 2020", "10/01/2020", True),
        ("due on 2020-10-02", "2020-10-01", False),
        ("JOHN   Smith", "john smith", True),
        ("instead", "tea", False),
        ("invoice INV-00123", "00123", True),
        ("invoice 123", "00123", False),
        ("12.5 %", "12.5%", True),
    ],
)
def test_values_are_compared_after_normalising(text: str, value: str, held: bool) -> None:
    assert holds(text, value) is held


def test_right_wrong_and_not_found() -> None:
    right = score_answer(TOTAL, answer("Tax (10%): $1767.97 [1]", ("d1", 0, "Tax (10%): $1,767.97")), NAMES)
    assert (right.outcome, [c.good for c in right.citations]) == (RIGHT, [True])
    wrong = score_answer(TOTAL, answer("Total: $2,140.00 [1]", ("d1", 0, "Total: $2,140.00")), NAMES)
    assert wrong.outcome == WRONG
    missing = score_answer(TOTAL, answer("I could not find an answer to this question in your documents."), NAMES)
    assert (missing.outcome, missing.citations) == (NOT_FOUND, [])
    failed = score_answer(TOTAL, None, NAMES, error="the answer failed: LLM unavailable")
    assert (failed.outcome, failed.error) == (ERROR, "the answer failed: LLM unavailable")


def test_a_citation_holds_the_answer_when_its_quote_does() -> None:
    on_terms = answer("$1,767.97 [1] [2]", ("d1", 1, "Terms"), ("d2", 0, "Total 1,767.97"))
    scored = score_answer(TOTAL, on_terms, NAMES, page_text=PAGES)
    assert scored.outcome == RIGHT  # the answer holds the value...
    assert [c.good for c in scored.citations] == [False, False]  # ...its citations do not: a quote without it, a file
    # On the expected page, a quote that does not hold the answer is not a good citation (issue 42: the report
    # said "holds the answer" of it); on another page of the expected document, one that holds it is (a copy).
    beside = answer("$1,767.97 [1] [2]", ("d1", 0, "Terms and conditions"), ("d1", 4, "Copy. Tax (10%): 1767.97 USD"))
    assert [c.good for c in score_answer(TOTAL, beside, NAMES).citations] == [False, True]
    # Without a quote, its page decides: an expected page, or one whose text holds the answer.
    unquoted = {
        "content": "$1,767.97 [1] [2] [3]",
        "metadata": {
            "citations": [
                {"number": 1, "document_id": "d1", "page_idx": 0},
                {"number": 2, "document_id": "d1", "page_idx": 4, "quote": {"text": ""}},
                {"number": 3, "document_id": "d1", "page_idx": 1, "snippet_preview": "Tax (10%): $1,767.97"},
            ]
        },
    }
    assert [c.good for c in score_answer(TOTAL, unquoted, NAMES, page_text=PAGES).citations] == [True, True, False]
    assert [c.good for c in score_answer(TOTAL, unquoted, NAMES).citations] == [True, False, False]
    # No page expected: the quote must hold the answer.
    anywhere = Question("a", "What is the total?", "user", (("1767.97",),))
    cited = answer("1767.97 [1] [2]", ("d2", 0, "Total 1,767.97"), ("d1", 1, "Terms and conditions"))
    assert [c.good for c in score_answer(anywhere, cited, NAMES).citations] == [True, False]
    # A citation of several passages (`quotes`) holds the answer when one of them does.
    quoted = answer("$1,767.97 [1]", ("d1", 0, "Tax (10%):"))
    quoted["metadata"]["citations"][0]["quotes"] = [{"text": "Tax (10%):"}, {"text": "$1,767.97"}]
    assert [c.good for c in score_answer(TOTAL, quoted, NAMES).citations] == [True]


def test_the_answer_is_read_without_its_markers_and_seg_tags() -> None:
    # Issue 42: "[1]" scored right for the answer "1".
    one = Question("m", "What number does the manual give?", "user", (("1",),))
    gv = "The UNIX PostScript viewer gv supports this (via a SIGHUP signal) [1]."
    scored = score_answer(one, answer(gv, ("d1", 0, "gv supports this (via a SIGHUP signal)")), NAMES)
    assert (scored.outcome, [c.good for c in scored.citations]) == (WRONG, [False])
    clustered = answer("Yes [1][2], see [1], [2].", ("d1", 0, "x"), ("d1", 0, "y"))
    assert score_answer(one, clustered, NAMES).outcome == WRONG
    tagged = answer("It is set [SEG=4f1c2b8e-0d6a-4e0f-9c55-0b7f1a2e3d4c:1] in the file.", ("d1", 0, "x"))
    assert score_answer(one, tagged, NAMES).outcome == WRONG
    # A bracketed number no citation has is text; so is a number the answer says.
    year = Question("y", "Which year?", "user", (("2023",),))
    assert score_answer(year, answer("Released in [2023] [1].", ("d1", 0, "x")), NAMES).outcome == RIGHT
    assert score_answer(one, answer("It is 1 [1].", ("d1", 0, "It is 1")), NAMES).outcome == RIGHT
    assert " ".join(answer_text("Paris [1] is nice [2][3]. [SEG=abc:1] Yes [9]", 3).split()) == "Paris is nice. Yes [9]"


def test_answer_status_decides_found_where_the_answer_has_it() -> None:
    probe = Question("u", "What is the vessel's IMO number?", "unanswerable")
    cited_refusal = answer("Nothing says so [1]", ("d1", 0, "x"), status="not_found")
    assert score_answer(probe, cited_refusal, NAMES).outcome == DECLINED
    assert score_answer(probe, answer("IMO 9074729 [1]", ("d1", 0, "x")), NAMES).outcome == ANSWERED
    assert score_answer(probe, answer("I could not find an answer to this question."), NAMES).outcome == DECLINED
    uncertain = score_answer(TOTAL, answer("Total: $2,140.00", status="uncertain"), NAMES)
    assert (uncertain.outcome, uncertain.answer_status) == (WRONG, "uncertain")
    said_none = score_answer(TOTAL, answer("Total: $2,140.00 [1]", ("d1", 0, "x"), status="not_found"), NAMES)
    assert said_none.outcome == NOT_FOUND


def test_figures_compare_and_gate() -> None:
    probe = Question("u", "What is the IMO number?", "unanswerable")
    scores = [
        score_answer(TOTAL, answer("$1,767.97 [1]", ("d1", 0, "Tax: $1,767.97")), NAMES, seconds=1.0),
        score_answer(TOTAL, answer("$1,767.97 [1]", ("d1", 1, "Terms")), NAMES, seconds=2.0),
        score_answer(TOTAL, answer("$9 [1]", ("d1", 0, "Tax: $1,767.97")), NAMES, seconds=3.0),
        score_answer(TOTAL, answer("I could not find an answer."), NAMES, seconds=4.0),
        score_answer(probe, answer("IMO 1 [1]", ("d2", 0, "IMO 1")), NAMES, seconds=5.0),
        score_answer(TOTAL, None, NAMES, error="timed out"),
    ]
    f = figures(scores)
    assert (f["questions"], f["errors"], f["answerable"], f["right"], f["wrong"], f["not_found"]) == (6, 1, 4, 2, 1, 1)
    assert (f["right_rate"], f["wrong_rate"], f["not_found_rate"]) == (0.5, 0.25, 0.25)
    assert (f["unanswerable"], f["unanswerable_answered"], f["unanswerable_answered_rate"]) == (1, 1, 1.0)
    # Good: the first's, and the wrong answer's (it quotes the passage that holds the answer).
    assert (f["citations"], f["citations_good"], f["citation_precision"]) == (4, 2, 0.5)
    assert f["citation_recall"] == 0.5  # one of the two right answers has a good citation
    assert (f["latency_p50_s"], f["latency_p95_s"]) == (3.0, 5.0)
    assert f["answer_status"] == {"absent": 5} and f["tokens"] is None

    better = dict(f, right_rate=0.75, latency_p50_s=2.5)
    rows = {r["figure"]: r for r in compare(f, better)}
    assert rows["right_rate"] == {"figure": "right_rate", "old": 0.5, "new": 0.75, "change": 0.25, "better": True}
    assert rows["latency_p50_s"]["better"] is True and rows["wrong_rate"]["change"] == 0

    assert gate(f, 0.5, 0.25) == []
    assert gate(f, 0.6, 0.2) == [
        "right rate 0.500 is below --min-right 0.6",
        "wrong rate 0.250 is above --max-wrong 0.2",
    ]


def documented_keys(heading: str) -> set[str]:
    """The keys in backticks in the first column of the first table after `heading` in docs/eval-report.md."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "eval-report.md").read_text()
    section = text[text.index(heading) :]
    rows = re.search(r"\n(\|.*\n)+", section).group(0).strip().splitlines()[2:]
    return {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}


def test_the_figures_are_the_documented_ones() -> None:
    assert set(figures([score_answer(TOTAL, None, NAMES)])) == documented_keys("Figures (`summary`")


def test_calibration_counts_right_and_wrong_per_answer_status() -> None:
    probe = Question("u", "What is the IMO number?", "unanswerable")
    made = [
        (TOTAL, answer("$1,767.97 [1]", ("d1", 0, "Tax: $1,767.97"), status="answered")),  # right
        (TOTAL, answer("$1,767.97 [1]", ("d1", 0, "Tax: $1,767.97"), status="answered")),  # right
        (TOTAL, answer("$9 [1]", ("d1", 0, "x"), status="answered")),  # wrong
        (probe, answer("IMO 1 [1]", ("d2", 0, "IMO 1"), status="answered")),  # an unanswerable one answered: wrong
        (TOTAL, answer("$1,767.97 maybe [1]", ("d1", 0, "Tax: $1,767.97"), status="uncertain")),  # right
        (TOTAL, answer("Nothing found.", status="not_found")),  # an answerable one said not found: wrong
        (probe, answer("Nothing found.", status="not_found")),  # declined: right
        (TOTAL, answer("$1,767.97")),  # before statuses: absent (right: it says the value)
    ]
    scores = [score_answer(q, a, NAMES) for q, a in made] + [score_answer(TOTAL, None, NAMES, error="timed out")]
    assert calibration(scores) == {
        "answered": {"answers": 4, "right": 2, "wrong": 2, "right_rate": 0.5},
        "uncertain": {"answers": 1, "right": 1, "wrong": 0, "right_rate": 1.0},
        "not_found": {"answers": 2, "right": 1, "wrong": 1, "right_rate": 0.5},
        "absent": {"answers": 1, "right": 1, "wrong": 0, "right_rate": 1.0},
    }
    # Every status is there, with nothing to divide by where no answer had it.
    assert calibration([]) == {s: {"answers": 0, "right": 0, "wrong": 0, "right_rate": None} for s in STATUSES}


def test_the_headline_says_when_the_set_measures_little_or_nothing() -> None:
    generated = {"asked": 100, "generated": 2, "answerable": 0, "unanswerable": 2, "answerable_wanted": 85}
    assert headline(2, 0, generated) == (
        "2 questions generated, none answerable: this report measures nothing about the documents"
    )
    assert headline(0, 0, {**generated, "generated": 0, "unanswerable": 0}).startswith("0 questions generated, none")
    assert headline(3, 0, None) == "3 questions, none answerable: this report measures nothing about the documents"
    short = {"asked": 100, "generated": 40, "answerable": 30, "unanswerable": 10, "answerable_wanted": 85}
    assert headline(44, 34, short) == (
        "fewer answerable questions than asked: 100 generated questions asked for, the workspace gave 30 answerable "
        "ones and 10 unanswerable probes (44 questions in all: 34 answerable, 10 unanswerable)"
    )
    enough = {"asked": 100, "generated": 100, "answerable": 85, "unanswerable": 15, "answerable_wanted": 85}
    assert headline(100, 85, enough) == "100 questions: 85 answerable, 15 unanswerable"
    few_probes = {**enough, "generated": 97, "unanswerable": 12}
    assert headline(97, 85, few_probes) == "97 questions (100 asked for, fewer probes): 85 answerable, 12 unanswerable"


def test_min_right_fails_when_nothing_answerable_was_asked() -> None:
    probe = Question("u", "What is the IMO number?", "unanswerable")
    declined = figures([score_answer(probe, answer("I could not find an answer."), NAMES)])
    assert declined["answerable"] == 0 and declined["right_rate"] is None
    failure = "right rate n/a (nothing answerable was asked or scored) is below --min-right 0.5"
    assert gate(declined, 0.5, None) == [failure]
    assert gate(figures([]), 0.5, None) == [failure]
    assert gate(figures([]), None, None) == []
