"""`segcite eval` end to end (issue 32): a handful of real documents ingested through the CLI, a user's questions
and generated ones asked through the app's path to the real worker, both reports written; report.html checked in
Chromium; `--compare`, the thresholds' exit status, and Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import REPO, service_env
from conftest import segcite as run
from test_eval_report import LAYOUT_PROBLEMS
from test_eval_scoring import documented_keys
from test_view import CHROMIUM, LAUNCH_ARGS

from worker.app_actions import workspace_id
from worker.stores.postgres import PostgresStore

DOCUMENTS = ("invoice_parser_1p.json", "expense_parser_1p.json", "form_pix2info_d_table_with_borders_snake.json")
USER_QUESTIONS = [
    {"question": "What is the invoice number?", "answers": ["23413561D"], "document": DOCUMENTS[0], "page": 1},
    {"question": "What is the total amount of the receipt?", "answers": ["999.99"]},  # not what it says: wrong
    {"question": "What is the vessel IMO number?", "unanswerable": True},
    {"question": "What is the sales tax?", "answers": ["45.00"], "document": "expense_parser_1p.json"},
]


@pytest.fixture(scope="module")
def env(services, service_home) -> dict[str, str]:
    return service_env(services, service_home)


@pytest.fixture(scope="module")
def workspace(env, celery_worker, docai_real_dir: Path) -> str:
    name = f"eval-{uuid.uuid4().hex[:8]}"
    ingested = run(env, "ingest", *(str(docai_real_dir / d) for d in DOCUMENTS), "--workspace", name)
    assert ingested.returncode == 0, ingested.stderr
    return name


@pytest.fixture(scope="module")
def first_run(env, workspace: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("eval")
    mine = folder / "mine.jsonl"
    mine.write_bytes(b"".join(orjson.dumps(q) + b"\n" for q in USER_QUESTIONS))
    out = folder / "report"
    done = run(env, "eval", "--workspace", workspace, "--questions", str(mine), "--generate", "6", "--out", str(out))
    return out, done


def test_a_run_asks_through_the_worker_and_scores_each_question(first_run, store) -> None:
    out, done = first_run
    assert done.returncode == 0, done.stderr
    report = orjson.loads((out / "report.json").read_bytes())
    assert report["schema"] == "segcite-eval/1" and report["run"] == {
        "questions": 10,
        "finished": 10,
        "interrupted": False,
        "gave_up": None,
        "seconds": report["run"]["seconds"],
    }
    rows = {q["question"]: q for q in report["questions"]}
    first, wrong, probe, tax = (rows[q["question"]] for q in USER_QUESTIONS)
    assert (first["kind"], first["outcome"], first["failed"]) == ("user", "right", False)
    assert [(c["document"], c["page"], c["good"]) for c in first["citations"]] == [("invoice_parser_1p.json", 1, True)]
    assert (wrong["outcome"], wrong["failed"], [c["good"] for c in wrong["citations"]]) == ("wrong", True, [False])
    assert (probe["outcome"], probe["citations"]) == ("declined", [])
    assert tax["outcome"] == "right" and all(c["good"] for c in tax["citations"])
    # Each question was asked in a conversation of its own, as rows the worker answered: the report names them.
    assert len({q["conversation_id"] for q in report["questions"]}) == 10
    for q in report["questions"]:
        message = store.get_message(q["message_id"])
        assert (message.status, message.conversation_id) == ("done", q["conversation_id"])
        assert message.content == q["content"]
        assert q["latency_s"] is not None and 0 < q["latency_s"] < 60
    kinds = {kind: f["questions"] for kind, f in report["by_kind"].items()}
    assert kinds["user"] == 4 and sum(kinds.values()) == 10
    assert set(kinds) <= {"user", "field", "label", "table", "unanswerable"} and kinds.get("unanswerable", 0) <= 1
    summary = report["summary"]
    probes = kinds.get("unanswerable", 0)
    assert summary["right"] + summary["wrong"] + summary["not_found"] == summary["answerable"] == 9 - probes
    assert summary["right"] == sum(q["outcome"] == "right" for q in report["questions"])
    assert summary["unanswerable"] == 1 + probes
    assert set(report["by_document"]) >= {"invoice_parser_1p.json", "expense_parser_1p.json"}
    # The questions file: the user's four, then the generated ones saying where they came from.
    lines = [orjson.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert [line["question"] for line in lines[:4]] == [q["question"] for q in USER_QUESTIONS]
    for line in lines[4:]:
        source = line["source"]
        if line.get("unanswerable"):
            assert source["from"] == "probe"
        else:
            assert source["from"] in ("field", "table", "label") and source["segment_id"] and source["subject"], line
    # What docs/eval-report.md says a report holds.
    assert set(report) == documented_keys("## report.json") - {"comparison"}
    outcome_keys = documented_keys("A row of `questions`")
    assert all(outcome_keys <= set(q) for q in report["questions"])
    # The summary on stdout: the headline, a row per kind and one for all, then the calibration per status.
    assert report["headline"] == f"10 questions: {9 - probes} answerable, {1 + probes} unanswerable"
    assert report["generation"]["asked"] == 6 and report["generation"]["generated"] == 6
    lines = done.stdout.splitlines()
    assert lines[0] == report["headline"] and lines[1] == ""
    table = lines[2:]
    assert table[0].split()[:4] == ["questions", "right", "wrong", "not"]
    assert table[len(kinds) + 1].startswith("all ") and f"{summary['right']} " in table[len(kinds) + 1]
    calibration = report["calibration"]
    assert set(calibration) >= {"answered", "uncertain", "not_found"}
    assert sum(c["answers"] for c in calibration.values()) == summary["questions"] - summary["errors"]
    declined = summary["unanswerable"] - summary["unanswerable_answered"]
    assert sum(c["right"] for c in calibration.values()) == summary["right"] + declined
    answered = next(line for line in table if line.startswith("answered "))
    assert answered.split()[1:4] == [str(calibration["answered"][k]) for k in ("answers", "right", "wrong")]


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


def test_the_html_report_shows_each_failure_with_its_highlighted_page(first_run, browser) -> None:
    out, done = first_run
    assert done.returncode == 0, done.stderr
    report = orjson.loads((out / "report.json").read_bytes())
    failed = [q for q in report["questions"] if q["failed"]]
    assert failed
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: None if r.url.startswith(("data:", "file:")) else problems.append(r.url))
    page.goto((out / "report.html").as_uri())
    assert page.locator(".charts svg").count() == 5
    assert page.locator(".charts svg rect").count() > 10
    assert page.locator("table.figures tr.total th").all_inner_texts() == ["all", "all"]  # answers, citations
    articles = page.locator("article.failure")
    assert articles.count() == len(failed)
    for q, article in zip(failed, articles.all(), strict=True):
        assert q["question"] in article.locator("h3").inner_text()
        assert article.locator(".answer-text").inner_text() == q["content"]
        assert article.locator(".cites li").count() == len(q["citations"])
        figure = article.locator(".page-view").first
        assert figure.is_visible()
        image = figure.locator("img.page-image")
        assert image.evaluate("img => img.complete && img.naturalWidth > 0")
        rect = image.bounding_box()
        highlights = figure.locator(".highlight")
        assert highlights.count() >= 1
        for box in highlights.all():
            shown = box.bounding_box()
            assert shown["width"] > 2 and shown["height"] > 2
            assert rect["x"] - 1 <= shown["x"] and shown["x"] + shown["width"] <= rect["x"] + rect["width"] + 1
            assert rect["y"] - 1 <= shown["y"] and shown["y"] + shown["height"] <= rect["y"] + rect["height"] + 1
    articles.first.scroll_into_view_if_needed()
    page.screenshot(path=str(out / "report.png"))
    assert page.evaluate(LAYOUT_PROBLEMS) == [] and problems == []
    page.close()


def test_compare_sets_two_runs_side_by_side_and_thresholds_set_the_exit_status(env, workspace, first_run) -> None:
    out, _ = first_run
    again = out.parent / "again"
    args = ["eval", "--workspace", workspace, "--questions", str(out / "questions.jsonl"), "--out", str(again)]
    failing = run(env, *args, "--compare", str(out / "report.json"), "--min-right", "95%", "--max-wrong", "0.5")
    assert failing.returncode == 1, failing.stderr
    old = orjson.loads((out / "report.json").read_bytes())
    new = orjson.loads((again / "report.json").read_bytes())
    right = new["summary"]["right_rate"]
    assert failing.stderr.splitlines()[-1] == f"error: right rate {right:.3f} is below --min-right 0.95"
    comparison = {row["figure"]: row for row in new["comparison"]["summary"]}
    assert comparison["right_rate"]["old"] == old["summary"]["right_rate"] and comparison["right_rate"]["new"] == right
    assert comparison["citation_precision"]["change"] == round(
        new["summary"]["citation_precision"] - old["summary"]["citation_precision"], 4
    )
    assert set(new["comparison"]["by_kind"]) == set(old["by_kind"])
    assert "compared with" in failing.stdout and "right_rate" in failing.stdout
    assert "Compared with" in (again / "report.html").read_text()

    passing = run(env, *args, "--min-right", str(right), "--max-wrong", "0.5")  # at the threshold passes
    assert passing.returncode == 0, passing.stderr


def test_bad_inputs_are_one_line_and_nothing_is_asked(env, workspace, store, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "What?"}\n')
    done = run(env, "eval", "--workspace", workspace, "--questions", str(bad), "--out", str(tmp_path / "o"))
    assert (done.returncode, done.stderr.strip()) == (
        2,
        f'error: {bad}, line 1: give "answers" (a list of accepted answers) or "unanswerable": true',
    )
    not_a_report = tmp_path / "report.json"
    not_a_report.write_text("{}")
    done = run(env, "eval", "--workspace", workspace, "--compare", str(not_a_report), "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {not_a_report}: not a report.json of `segcite eval` (schema segcite-eval/1)"
    done = run(env, "eval", "--workspace", workspace, "--min-right", "1.5")
    assert done.returncode == 2 and "a rate is between 0 and 1, got 1.5" in done.stderr
    empty = f"empty-{uuid.uuid4().hex[:6]}"
    done = run(env, "eval", "--workspace", empty, "--generate", "3", "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and f"workspace {empty!r} does not exist" in done.stderr  # issue 43
    store.create_conversation(workspace_id(empty))  # now it exists (an app opened a conversation), still empty
    done = run(env, "eval", "--workspace", empty, "--generate", "3", "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "holds no ingested documents" in done.stderr
    assert not (tmp_path / "o").exists()


def test_nothing_answerable_is_said_first_and_fails_min_right(env, docai_real_dir: Path, tmp_path: Path) -> None:
    """A workspace whose one document prints no value (18 characters of OCR): generation gives nothing to ask,
    probes included; the headline says the report measures nothing, and `--min-right` fails."""
    name = f"blank-{uuid.uuid4().hex[:6]}"
    ingested = run(env, "ingest", str(docai_real_dir / "ocr_with_symbols_tiny.json"), "--workspace", name)
    assert ingested.returncode == 0, ingested.stderr
    out = tmp_path / "o"
    done = run(env, "eval", "--workspace", name, "--generate", "10", "--min-right", "0.5", "--out", str(out))
    assert done.returncode == 1, done.stderr
    headline = "0 questions generated, none answerable: this report measures nothing about the documents"
    assert done.stdout.splitlines()[0] == headline
    assert done.stderr.splitlines()[-1] == (
        "error: right rate n/a (nothing answerable was asked or scored) is below --min-right 0.5"
    )
    report = orjson.loads((out / "report.json").read_bytes())
    assert report["headline"] == headline and report["questions"] == []
    assert report["generation"] == {
        "asked": 10,
        "generated": 0,
        "answerable": 0,
        "unanswerable": 0,
        "answerable_wanted": 8,
        "by_kind": {},
    }
    page = (out / "report.html").read_text()
    assert f'<p class="headline warning">{headline}</p>' in page and "None: no question was asked." in page


def test_a_question_naming_a_file_the_workspace_lacks_is_said_up_front(env, workspace, tmp_path: Path) -> None:
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"question": "What is the total?", "answers": ["544.99"], "document": "nosuch.json"}\n')
    done = run(env, "eval", "--workspace", workspace, "--questions", str(mine), "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == f"note: {mine} names documents the workspace does not hold: nosuch.json"
    (row,) = orjson.loads((tmp_path / "o" / "report.json").read_bytes())["questions"]
    assert row["citations"] and not any(c["good"] for c in row["citations"])


def test_a_conversations_lines_are_asked_in_order_in_it_and_its_follow_ups_scored_apart(
    env, workspace, store, tmp_path: Path
) -> None:
    """Design §12: lines with one "conversation" name go to one conversation, in order (each follow-up read with
    the turns before it); "documents" scopes a line; the report scores follow-ups apart."""
    lines = [
        {"question": "What is the total on Google invoice #23413561D?", "answers": ["19,647.68"], "conversation": "g"},
        {"question": "What is the total?", "answers": ["544.99"], "documents": ["expense_parser_1p.json"]},
        {"question": "What tax rate was applied?", "answers": ["10%"], "conversation": "g"},
    ]
    mine = tmp_path / "chain.jsonl"
    mine.write_bytes(b"".join(orjson.dumps(q) + b"\n" for q in lines))
    out = tmp_path / "o"
    done = run(env, "eval", "--workspace", workspace, "--questions", str(mine), "--out", str(out))
    assert done.returncode == 0, done.stderr
    report = orjson.loads((out / "report.json").read_bytes())
    first, scoped, follow_up = report["questions"]
    assert [q["outcome"] for q in (first, scoped, follow_up)] == ["right", "right", "right"]
    assert first["conversation_id"] == follow_up["conversation_id"] != scoped["conversation_id"]
    assert (follow_up["follow_up"], first.get("follow_up")) == (True, None)
    assert "Google invoice #23413561D" in follow_up["standalone_question"]
    assert {(c["document"], c["good"]) for c in follow_up["citations"]} == {("invoice_parser_1p.json", True)}
    asked = store.get_message(scoped["message_id"])
    receipt = next(d.id for d in store.documents(workspace_id(workspace)) if d.filename == "expense_parser_1p.json")
    assert asked.metadata["document_ids"] == [receipt]
    turns = {name: (f["questions"], f["right"]) for name, f in report["by_turn"].items()}
    assert turns == {"first or alone": (2, 2), "follow-up": (1, 1)}
    assert [line.split()[0] for line in done.stdout.split("\n\n")[2].splitlines()] == [
        "turn",
        "first",
        "follow-up",
        "all",
    ]
    assert "<caption>Follow-ups apart</caption>" in (out / "report.html").read_text()
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text('{"question": "What is the total?", "answers": ["1"], "documents": ["nosuch.pdf"]}\n')
    done = run(env, "eval", "--workspace", workspace, "--questions", str(unknown), "--out", str(tmp_path / "u"))
    assert (done.returncode, done.stderr.strip()) == (
        2,
        f"error: {unknown}, question q001: no document 'nosuch.pdf' in this workspace (`segcite documents` lists them)",
    )
    assert not (tmp_path / "u").exists()


def test_ctrl_c_stops_and_scores_what_finished(env, workspace, tmp_path: Path) -> None:
    out = tmp_path / "stopped"
    argv = [sys.executable, "-m", "worker.cli", "eval", "--workspace", workspace, "--generate", "60"]
    proc = subprocess.Popen(
        [*argv, "--concurrency", "1", "--out", str(out)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (out / "questions.jsonl").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # a few answers in
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    report = orjson.loads((out / "report.json").read_bytes())
    if not report["run"]["interrupted"]:
        pytest.skip("the run finished before Ctrl-C")  # a machine fast enough to answer 60 questions in a second
    assert proc.returncode == 130, stderr
    finished, asked = report["run"]["finished"], report["run"]["questions"]
    assert 0 < finished < asked and len(report["questions"]) == finished == report["summary"]["questions"]
    assert f"stopped: {finished} of {asked} questions finished and scored" in stderr
    assert "Traceback" not in stderr and stdout.startswith(report["headline"])
    assert "Stopped before the end" in (out / "report.html").read_text()


def test_without_a_worker_answering_it_stops_after_the_first_timeouts(
    services, service_home, database_without_worker: str, tmp_path: Path
) -> None:
    """A database no worker serves: the first answers time out, and asking stops there instead of waiting out
    every question's timeout; the reports say so."""
    store = PostgresStore(database_without_worker, max_size=1)
    name = f"idle-{uuid.uuid4().hex[:6]}"
    store.create_document(workspace_id(name), "lease.json", "docai/x.json")
    store.close()
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(f'{{"question": "Question {n}?", "answers": ["{n}"]}}\n' for n in range(8)))
    env = service_env(services, service_home, DATABASE_URL=database_without_worker)
    out = tmp_path / "out"
    argv = ["eval", "--workspace", name, "--questions", str(mine), "--timeout", "1", "--concurrency", "2"]
    done = run(env, *argv, "--out", str(out))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "error: the first 2 answers did not come within 1 s: is a worker running? "
        "(`segcite status` shows the workers and the inbox)"
    )
    report = orjson.loads((out / "report.json").read_bytes())
    assert report["run"]["finished"] == 2 and report["run"]["gave_up"].startswith("the first 2 answers")
    assert [q["outcome"] for q in report["questions"]] == ["error", "error"]
    assert report["summary"]["errors"] == 2 and report["summary"]["right_rate"] is None
