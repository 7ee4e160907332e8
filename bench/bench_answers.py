"""Answer quality on many real documents, through the `segcite` CLI as a user would run it.

python bench/bench_answers.py [--questions FILE [FILE ...]] [--out results.json] [--verbose] python
bench/bench_answers.py --replay results.json [--questions FILE [FILE ...]] [--verbose]

Ingests every fixture of ../shared/fixtures/docai and ../shared/fixtures/docai-real that must ingest (per its manifest;
the `document` of a `WRAPPED_` ProcessResponse; a folder of shards is one document) into ONE workspace, on the embedded
services (a fresh SEGCITE_HOME under /tmp, no REDIS_URL / DATABASE_URL), asks each question of each question file with
`segcite ask --json`, then stops the services (`segcite down`): bench/answers_questions.json (the default; the offline
answerer was tuned on it), bench/answers_heldout.json (written before that tuning; its outcomes were read during it) and
bench/answers_blind.json (written during it, run once at its end); for issue 31, bench/answers_fit_tuning.json (tuned
on), bench/answers_fit_heldout.json (held out, its outcomes read since), bench/answers_tuning2.json,
bench/answers_tuning3.json and bench/answers_tuning4.json (each written as a held-out set by someone who did not read
the answerer, measured once, then tuned on), bench/answers_heldout5.json and bench/answers_heldout6.json (written
likewise, measured only); for issue 40, bench/answers_manuals_tuning.json (tuned on) and
bench/answers_manuals_heldout.json (measured only), over PDF manuals from Debian packages, parsed by the local parser,
with bench/answers_asymptote_heldout.json (the Asymptote manual the issue was filed on, kept out of all tuning, measured
once); for issue 40's last measurement, bench/answers_heldout7.json (the fixtures) and
bench/answers_manuals_heldout2.json (the Bash, GNU MathProg and nauty manuals), each written by a helper that read
neither the code nor any result, before any answer was seen, and measured once, before and after, in one run;
bench/answers_manuals_dev.json (the SBCL and MIT/GNU Scheme manuals, written the same way) is a development set, tuned
on. Files without `files` share one ingest of the fixtures; a file with `files` (each a Debian package, the PDF's path,
and a shell step that makes the path from the package) is asked in a workspace of its own holding those PDFs. Every file
is reported on its own, and a last table sets them side by side: right and `answered`, wrong and `answered`, `uncertain`
(right / wrong), not found, and the precision of `answered` (issue 40's figure). Only the CLI's public behaviour is
used: the page and text of a context segment come from `segcite segments` of the same file (of a PDF: of what `segcite
parse` makes of it).

`--replay` re-answers the questions offline, in seconds, on the contexts a previous run's `--out` recorded (the
`extractive` answerer, then `query.build_answer` with the recorded segments as the workspace): a quick check of a
change to the answerer or the resolution path, not a measurement (retrieval is not rerun, the workspace tier of the
fallback is an in-memory index instead of the database's full-text search, and no latency is measured).

Reports (issue 14's targets in brackets):
- retrieval recall: the answer's page is among the pages of `metadata.context_ids` [>= 90%];
- answer accuracy: every expected value is in the answer's content, normalized [>= 75%];
- citation precision: citations on a page that holds the answer, over all citations [>= 90%];
- "not found": questions no document answers that got no citation [>= 6 of 7];
- median latency of one `segcite ask` command [no worse than ~2 s];
- the offline answerer's own time per question (`query.extractive_sections` in this process, on the context the
  worker retrieved for it): median and max.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from evaluation import Question, Source, holds, holds_all, score_answer
from evaluation.scoring import ANSWERED, DECLINED, NOT_FOUND, RIGHT, WRONG, PageText, page_texts
from query import build_answer, extractive_answer, extractive_sections

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO.parent / "shared" / "fixtures"
WORKSPACE = "bench-answers"
# Variables that would point the CLI at configured services instead of the embedded ones.
SERVICE_VARIABLES = ("REDIS_URL", "DATABASE_URL", "SEGCITE_STORE", "SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY")
INGESTED = re.compile(r"^(?P<name>.+?): ingested, .*document (?P<id>[0-9a-f-]{36})$")


@dataclass
class Workspace:
    """What the CLI said about the ingested documents: names, ids, and each segment's page and text."""

    names: dict[str, str] = field(default_factory=dict)  # document id -> file name
    pages: dict[str, int] = field(default_factory=dict)  # segment id -> page
    texts: dict[str, str] = field(default_factory=dict)  # segment id -> text
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # segment id -> its `segcite segments` line
    failed: dict[str, str] = field(default_factory=dict)  # file name -> error line

    @functools.cached_property
    def page_text(self) -> PageText:
        """(file name, page) -> the page's text: a citation on any page that holds the answer is a good one."""
        return page_texts((*place, self.texts[i]) for i in self.texts if (place := self.where(i)))

    def where(self, segment_id: str) -> tuple[str, int] | None:
        document_id = segment_id.rsplit(":", 1)[0]
        if document_id not in self.names or segment_id not in self.pages:
            return None
        return self.names[document_id], self.pages[segment_id]


# --- inputs -----------------------------------------------------------------------------------------------


def fixture_inputs(staging: Path) -> list[Path]:
    """Every fixture that must ingest: docai/ (no manifest: all), docai-real/ per manifest.json."""
    docai, real = FIXTURES / "docai", FIXTURES / "docai-real"
    paths = [p for p in sorted(docai.iterdir()) if p.is_dir() or p.suffix == ".json"]
    manifest = orjson.loads((real / "manifest.json").read_bytes())
    for case in manifest["cases"]:
        path = real / case["name"]
        if case["name"].startswith("WRAPPED_"):  # the ProcessResponse is refused; its `document` must ingest
            unwrapped = staging / case["name"]
            unwrapped.write_bytes(orjson.dumps(orjson.loads(path.read_bytes())["document"]))
            paths.append(unwrapped)
        elif case["expect"] == "ok":
            paths.append(path)
    return paths


@dataclass(frozen=True)
class Manual:
    """A PDF a question file is asked of: the Debian package that ships it, its path, the step that makes the path."""

    package: str
    path: Path
    prepare: str = ""


def load_manuals(path: Path) -> list[Manual]:
    """The PDFs a question file is asked of (its `files`); [] for a file asked of the fixtures."""
    files = orjson.loads(path.read_bytes()).get("files", [])
    return [Manual(f["package"], Path(f["path"]), f.get("prepare", "")) for f in files]


def manual_inputs(manuals: list[Manual]) -> list[Path] | str:
    """The manuals' PDFs, made where a step makes them; or why they cannot be had (a package not installed)."""
    for manual in manuals:
        if manual.prepare and not manual.path.is_file():
            subprocess.run(manual.prepare, shell=True, check=False, capture_output=True)
        if not manual.path.is_file():
            return f"{manual.path} is missing: apt-get install {manual.package}"
    return [m.path for m in manuals]


def load_questions(path: Path) -> list[Question]:
    """A question file of this bench, as the scorer's questions (evaluation.Question, kind `bench`): `values`, every
    item required, each item one value or a list of alternatives; `sources`, where the answer is."""
    data = orjson.loads(path.read_bytes())
    groups = data.get("groups", {})
    questions = []
    for item in data["questions"]:
        raw_sources = groups[item["sources"]] if isinstance(item["sources"], str) else item["sources"]
        sources = [Source(s["document"], None if s["pages"] == "all" else frozenset(s["pages"])) for s in raw_sources]
        expected = tuple(tuple(v) if isinstance(v, list) else (v,) for v in item["values"])
        questions.append(Question(item["id"], item["question"], "bench", expected, tuple(sources)))
    return questions


# --- the CLI ----------------------------------------------------------------------------------------------


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    env.update(SEGCITE_HOME=str(home), PYTHONPATH=str(REPO))  # this checkout's code, not an installed one
    return env


def segcite(args: list[str], home: Path, timeout: float = 900) -> subprocess.CompletedProcess[bytes]:
    # cwd = home: a `.env` in the caller's folder must not configure services behind the bench's back.
    return subprocess.run(
        [sys.executable, "-m", "worker.cli", *args], cwd=home, env=cli_env(home), capture_output=True, timeout=timeout
    )


def stop_services(home: Path) -> None:
    """`segcite down` in the bench's home (saying what it stopped), then the home removed."""
    down = segcite(["down"], home)
    print(down.stdout.decode().strip().replace("\n", "; "), file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)


def ingest_all(paths: list[Path], home: Path, workspace_name: str = WORKSPACE) -> Workspace:
    done = segcite(["ingest", *map(str, paths), "--workspace", workspace_name], home, timeout=3600)
    workspace = Workspace()
    for line in done.stdout.decode().splitlines():
        if match := INGESTED.match(line.strip()):
            workspace.names[match["id"]] = match["name"]
    for line in done.stderr.decode().splitlines():
        name, sep, error = line.partition(": failed: ")
        if sep:
            workspace.failed[name] = error
    if not workspace.names:
        raise SystemExit(f"nothing ingested: {done.stderr.decode().strip().splitlines()[-1:]}")
    by_name = {p.name: p for p in paths}
    for document_id, name in workspace.names.items():
        listed = segcite(["segments", *segment_inputs(by_name[name], home), "--document-id", document_id], home)
        for line in listed.stdout.splitlines():
            row = orjson.loads(line)
            workspace.pages[row["segment_id"]] = row["page_idx"]
            workspace.texts[row["segment_id"]] = row["text"]
            workspace.rows[row["segment_id"]] = row
    return workspace


def segment_inputs(path: Path, home: Path) -> list[str]:
    """What `segcite segments` reads for an ingested file: the file, or for a PDF the JSON `segcite parse` makes of it
    (the parser the worker ran, with the same settings)."""
    if path.suffix.casefold() != ".pdf":
        return [str(path)]
    out = home / "parsed" / path.stem
    segcite(["parse", str(path), "--out", str(out)], home, timeout=1800)
    return sorted(map(str, out.glob("*.json")))


def ask(question: str, home: Path, workspace_name: str = WORKSPACE) -> tuple[dict[str, Any] | None, float, str]:
    start = time.perf_counter()
    done = segcite(["ask", question, "--json", "--workspace", workspace_name], home, timeout=600)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        return None, elapsed, done.stderr.decode().strip()
    return orjson.loads(done.stdout), elapsed, ""


# --- scoring: evaluation.scoring, the scorer `segcite eval` uses too ----------------------------------------


def on_source(place: tuple[str, int] | None, sources: tuple[Source, ...]) -> bool:
    """Retrieval recall's test: the place is on one of the question's source pages."""
    if place is None:
        return False
    name, page = place
    return any(s.document == name and (s.pages is None or page in s.pages) for s in sources)


def check_question_set(questions: list[Question], ws: Workspace) -> list[str]:
    """Each source page of each question holds its values (catches a wrong question, or a changed ingest)."""
    problems = []
    ingested = set(ws.names.values())
    for q in questions:
        if q.answerable and not any(s.document in ingested for s in q.sources):
            problems.append(f"{q.id}: none of its documents was ingested")
        for source in q.sources:
            if source.document not in ingested:
                continue
            page_texts: dict[int, list[str]] = {}
            for segment_id, text in ws.texts.items():
                place = ws.where(segment_id)
                if place and place[0] == source.document:
                    page_texts.setdefault(place[1], []).append(text)
            pages = source.pages if source.pages is not None else set(page_texts)
            for page in sorted(pages):
                if not holds_all("\n".join(page_texts.get(page, [])), q.expected):
                    problems.append(f"{q.id}: {source.document} page {page} does not hold {q.expected}")
    return problems


@dataclass
class Outcome:
    question: Question
    seconds: float
    error: str = ""
    content: str = ""
    recalled: bool = False  # a context segment is on a page that holds the answer
    segment_recalled: bool = False  # every value is in a context segment on such a page
    correct: bool = False  # answerable: every value in the content; unanswerable: said "not found"
    citations: list[tuple[str, int] | None] = field(default_factory=list)
    good_citations: int = 0
    context_documents: list[str] = field(default_factory=list)
    context_ids: list[str] = field(default_factory=list)
    answerer_seconds: float | None = None  # extractive_sections alone, on the same context, in this process
    sections: list[dict[str, Any]] = field(default_factory=list)  # text, status, error: why a citation is there
    status: str = "not_found"  # metadata.answer_status (before issue 31: answered when it has a citation)
    verdict: str = NOT_FOUND  # evaluation.scoring's outcome: right, wrong, not_found; answered or declined


def score(q: Question, payload: dict[str, Any] | None, seconds: float, error: str, ws: Workspace) -> Outcome:
    outcome = Outcome(q, seconds, error)
    if payload is None:
        return outcome
    metadata = payload["metadata"]
    outcome.content = payload["content"]
    context = [(i, ws.where(i)) for i in metadata.get("context_ids", [])]
    outcome.context_documents = [place[0] for _, place in context if place]
    on_page = [ws.texts[i] for i, place in context if on_source(place, q.sources)]
    outcome.recalled = bool(on_page)
    outcome.segment_recalled = q.answerable and all(
        any(holds(text, alt) for text in on_page for alt in item) for item in q.expected
    )
    outcome.context_ids = metadata.get("context_ids", [])
    outcome.citations = [ws.where(c["segment_id"]) for c in metadata.get("citations", [])]
    scored = score_answer(q, payload, ws.names, page_text=ws.page_text)
    outcome.good_citations = scored.good_citations
    outcome.correct = scored.outcome in (RIGHT, DECLINED)
    outcome.verdict = scored.outcome
    outcome.status = metadata.get("answer_status") or ("answered" if outcome.citations else "not_found")
    outcome.sections = [
        {k: s.get(k) for k in ("text", "source_ids", "citation_status", "citation_error")} for s in metadata["sections"]
    ]
    context_rows = [ws.rows[i] for i in metadata.get("context_ids", []) if i in ws.rows]
    start = time.perf_counter()
    extractive_sections(q.text, context_rows)
    outcome.answerer_seconds = time.perf_counter() - start
    return outcome


# --- report -----------------------------------------------------------------------------------------------


def percent(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.0f}%" if whole else "n/a"


def verdicts(outcomes: list[Outcome]) -> dict[str, Any]:
    """Issue 40: each answer by its verdict and its `answer_status`. Answerable: right and `answered`, wrong and
    `answered`, `uncertain` (right / wrong), not found; unanswerable: `answered`, `uncertain`, not found. The precision
    of `answered`: of the answers given as `answered`, the right ones (an unanswerable question answered is wrong)."""
    answerable = [o for o in outcomes if o.question.answerable]
    unanswerable = [o for o in outcomes if not o.question.answerable]
    statuses: dict[str, int] = {}
    for o in outcomes:
        statuses[o.status] = statuses.get(o.status, 0) + 1

    def count(group: list[Outcome], verdict: str, status: str) -> int:
        return sum(o.verdict == verdict and o.status == status for o in group)

    right_answered = count(answerable, RIGHT, "answered")
    wrong_answered = count(answerable, WRONG, "answered")
    unanswerable_answered = sum(o.verdict == ANSWERED and o.status == "answered" for o in unanswerable)
    given = right_answered + wrong_answered + unanswerable_answered
    return {
        "answerable": len(answerable),
        "right": sum(o.verdict == RIGHT for o in answerable),
        "right_answered": right_answered,
        "wrong_answered": wrong_answered,
        "uncertain_right": count(answerable, RIGHT, "uncertain"),
        "uncertain_wrong": count(answerable, WRONG, "uncertain"),
        "not_found": sum(o.verdict == NOT_FOUND for o in answerable),
        "wrong": wrong_answered,  # (issue 31's name: wrong and shown as answered)
        "unanswerable": len(unanswerable),
        "unanswerable_answered": unanswerable_answered,
        "unanswerable_uncertain": sum(o.verdict == ANSWERED and o.status == "uncertain" for o in unanswerable),
        "answered_precision": [right_answered, given],
        "answer_status": statuses,
    }


def print_verdicts(v: dict[str, Any]) -> None:
    print(
        f"verdicts: answered right {v['right_answered']}, answered wrong "
        f"{percent(v['wrong_answered'], v['answerable'])} [target <= 3%], uncertain right {v['uncertain_right']} / "
        f"wrong {v['uncertain_wrong']}, not found {v['not_found']}, of {v['answerable']} answerable; unanswerable "
        f"answered {v['unanswerable_answered']}, uncertain {v['unanswerable_uncertain']} of {v['unanswerable']}; "
        f"precision of answered {percent(*v['answered_precision'])} [target >= 97%]"
    )


TABLE_COLUMNS = ("right+ans", "wrong+ans", "unc right", "unc wrong", "not found", "unans ans", "unans unc", "precision")


def print_table(summaries: dict[str, dict[str, Any]]) -> None:
    """One line per question file: the figures issue 40 asks for, side by side."""
    print(f"\n{'set':34}" + "".join(f"{c:>11}" for c in TABLE_COLUMNS))
    for name, summary in summaries.items():
        v = summary["verdicts"]
        right, given = v["answered_precision"]
        cells = [
            f"{v['right_answered']}/{v['answerable']}",
            f"{v['wrong_answered']}/{v['answerable']}",
            v["uncertain_right"],
            v["uncertain_wrong"],
            v["not_found"],
            f"{v['unanswerable_answered']}/{v['unanswerable']}",
            v["unanswerable_uncertain"],
            f"{100 * right / given:.0f}% of {given}" if given else "n/a",
        ]
        print(f"{name.removesuffix('.json'):34}" + "".join(f"{c:>11}" for c in cells))


def report(outcomes: list[Outcome], ws: Workspace, verbose: bool) -> dict[str, Any]:
    answerable = [o for o in outcomes if o.question.answerable]
    unanswerable = [o for o in outcomes if not o.question.answerable]
    citations = sum(len(o.citations) for o in outcomes)
    good = sum(o.good_citations for o in outcomes)
    answerable_citations = sum(len(o.citations) for o in answerable)
    slots: dict[str, int] = {}
    for o in outcomes:
        for name in o.context_documents:
            slots[name] = slots.get(name, 0) + 1
    total_slots = sum(slots.values())
    seconds = sorted(o.seconds for o in outcomes)
    lengths = [len(o.content) for o in answerable if o.content]
    answerer = sorted(o.answerer_seconds for o in outcomes if o.answerer_seconds is not None)
    summary = {
        "documents_ingested": len(ws.names),
        "documents_failed": ws.failed,
        "questions": len(outcomes),
        "errors": sum(bool(o.error) for o in outcomes),
        "recall_page": [sum(o.recalled for o in answerable), len(answerable)],
        "recall_segment": [sum(o.segment_recalled for o in answerable), len(answerable)],
        "accuracy": [sum(o.correct for o in answerable), len(answerable)],
        "citation_precision": [good, citations],
        "citation_precision_answerable": [good, answerable_citations],
        "not_found_handled": [sum(o.correct for o in unanswerable), len(unanswerable)],
        "verdicts": verdicts(outcomes),
        "latency_median_s": round(statistics.median(seconds), 3),
        "latency_p90_s": round(seconds[int(0.9 * (len(seconds) - 1))], 3),
        "answer_chars_median": statistics.median(lengths) if lengths else 0,
        "answerer_ms_median": round(1000 * statistics.median(answerer), 2) if answerer else None,
        "answerer_ms_max": round(1000 * answerer[-1], 2) if answerer else None,
        "context_share_top3": [
            [name, round(count / total_slots, 3)] for name, count in sorted(slots.items(), key=lambda x: -x[1])[:3]
        ],
    }
    if verbose:
        for o in outcomes:
            mark = "ok " if o.correct else ("unc" if o.status == "uncertain" else "BAD")
            cites = ", ".join(f"{p[0]}#p{p[1]}" if p else "?" for p in o.citations) or "-"
            print(f"{mark} {o.question.id:22} recall={'y' if o.recalled else 'n'} {o.seconds:5.2f}s cites: {cites}")
            print(f"    {o.content[:200]!r}" + (f" error: {o.error}" if o.error else ""))
    print(f"documents: {len(ws.names)} ingested, {len(ws.failed)} failed {sorted(ws.failed)}")
    print(f"retrieval recall (page):     {percent(*summary['recall_page'])}   [target >= 90%]")
    print(f"retrieval recall (segment):  {percent(*summary['recall_segment'])}")
    print(f"answer accuracy:             {percent(*summary['accuracy'])}   [target >= 75%]")
    print(f"citation precision (all):    {percent(*summary['citation_precision'])}   [target >= 90%]")
    print(f"citation precision (answerable questions): {percent(*summary['citation_precision_answerable'])}")
    print(f"'not found' handled:         {summary['not_found_handled'][0]} of {summary['not_found_handled'][1]}")
    print_verdicts(summary["verdicts"])
    if seconds[-1]:  # a replay measures no latency
        print(
            f"ask latency:                 median {summary['latency_median_s']:.2f} s, "
            f"p90 {summary['latency_p90_s']:.2f} s"
        )
    print(f"answer length (chars):       median {summary['answer_chars_median']}")
    if answerer:
        print(
            f"offline answerer alone:      median {summary['answerer_ms_median']} ms, "
            f"max {summary['answerer_ms_max']} ms per question"
        )
    shares = ", ".join(f"{name} {100 * share:.0f}%" for name, share in summary["context_share_top3"])
    print(f"largest shares of context slots: {shares}")
    if summary["errors"]:
        print(f"asks that failed: {summary['errors']}")
    return summary


def ask_all(questions: list[Question], ws: Workspace, home: Path, verbose: bool, workspace_name: str) -> dict[str, Any]:
    outcomes = [score(q, *ask(q.text, home, workspace_name), ws) for q in questions]
    summary = report(outcomes, ws, verbose)
    rows = [
        {
            "id": o.question.id,
            "correct": o.correct,
            "status": o.status,
            "recalled": o.recalled,
            "seconds": round(o.seconds, 3),
            "content": o.content,
            "citations": o.citations,
            "sections": o.sections,
            "context_ids": o.context_ids,
            "error": o.error,
        }
        for o in outcomes
    ]
    return {"summary": summary, "questions": rows, "workspace": workspace_name}


def recorded_workspaces(data: dict[str, Any]) -> dict[str, Workspace]:
    """The workspaces a run recorded, by name (a run before issue 40 recorded one, the fixtures')."""
    recorded = data.get("workspaces") or {WORKSPACE: data["workspace"]}
    workspaces = {}
    for name, raw in recorded.items():
        ws = Workspace(names=raw["names"], rows=raw["rows"])
        for segment_id, row in ws.rows.items():
            ws.pages[segment_id], ws.texts[segment_id] = row["page_idx"], row["text"]
        workspaces[name] = ws
    return workspaces


def replay(recorded: Path, question_sets: dict[str, list[Question]], verbose: bool) -> None:
    """Answer each question again, in this process, on the context a run recorded for it."""
    data = orjson.loads(recorded.read_bytes())
    workspaces = recorded_workspaces(data)
    summaries = {}
    for name, questions in question_sets.items():
        if name not in data:
            print(f"\n== {name}: not in {recorded.name}, skipped")
            continue
        ws = workspaces[data[name].get("workspace", WORKSPACE)]
        contexts = {row["id"]: row["context_ids"] for row in data[name]["questions"]}
        print(f"\n== {name}: {len(questions)} questions (replayed on recorded contexts)")
        outcomes = []
        for q in questions:
            context = [ws.rows[i] for i in contexts[q.id]]
            answer = extractive_answer(q.text, context)
            payload = build_answer(answer, context=context, workspace=ws.rows, question=q.text)
            payload["metadata"]["context_ids"] = contexts[q.id]
            outcomes.append(score(q, payload, 0.0, "", ws))
        summaries[name] = report(outcomes, ws, verbose)
    print_table(summaries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, nargs="+", default=[REPO / "bench" / "answers_questions.json"])
    parser.add_argument("--out", type=Path, help="write each set's summary and per-question outcomes as JSON here")
    parser.add_argument("--verbose", action="store_true", help="one line per question")
    parser.add_argument("--keep", action="store_true", help="leave the services running and the home in place")
    parser.add_argument("--replay", type=Path, help="re-answer offline on the contexts this --out file recorded")
    args = parser.parse_args()
    if args.replay:
        replay(args.replay, {path.name: load_questions(path) for path in args.questions}, args.verbose)
        return
    if not (FIXTURES / "docai-real" / "manifest.json").is_file():
        print(f"skipped: the Document AI fixtures are not at {FIXTURES} (they live in ../shared, outside the repo)")
        return
    question_sets = {path.name: load_questions(path) for path in args.questions}
    manuals = {path.name: load_manuals(path) for path in args.questions}
    home = Path(tempfile.mkdtemp(prefix="sc-ans-", dir="/tmp"))  # short: unix socket paths are limited
    staging = home / "inputs"
    staging.mkdir()
    try:
        workspaces: dict[str, Workspace] = {}
        results: dict[str, Any] = {}
        for name, questions in question_sets.items():
            # the fixtures' questions share one workspace; a file of questions over PDFs has its own
            workspace_name = f"bench-{name.removesuffix('.json')}" if manuals[name] else WORKSPACE
            if workspace_name not in workspaces:
                inputs = manual_inputs(manuals[name]) if manuals[name] else fixture_inputs(staging)
                if isinstance(inputs, str):
                    print(f"\n== {name}: skipped: {inputs}")
                    continue
                start = time.perf_counter()
                workspaces[workspace_name] = ingest_all(inputs, home, workspace_name)
                ws = workspaces[workspace_name]
                elapsed = time.perf_counter() - start
                print(f"ingest {workspace_name}: {len(ws.names)} documents, {len(ws.pages)} segments, {elapsed:.0f} s")
            ws = workspaces[workspace_name]
            print(f"\n== {name}: {len(questions)} questions")
            for problem in check_question_set(questions, ws):
                print(f"question set: {problem}")
            results[name] = ask_all(questions, ws, home, args.verbose, workspace_name)
        print_table({name: result["summary"] for name, result in results.items()})
        if args.out:
            # what --replay needs
            results["workspaces"] = {n: {"names": w.names, "rows": w.rows} for n, w in workspaces.items()}
            args.out.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))
    finally:
        if not args.keep:
            stop_services(home)


if __name__ == "__main__":
    main()
