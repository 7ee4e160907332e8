"""`segcite eval`: how often answers and their citations are right on a workspace's own documents (design §12).

Questions from the user's file and/or generated from the workspace (evaluation/), asked through the app's path
(worker/evalrun/asking.py), scored by the one scorer (evaluation.scoring), written as report.json and report.html
in `--out`, with a summary table on stdout."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from worker.cli.errors import INTERRUPTED, UserError
from worker.cli.options import SECONDS, workspace_option
from worker.cli.services import announce, open_store
from worker.settings import load_settings

if TYPE_CHECKING:
    from evaluation import Question
    from worker.evalrun.asking import Run
    from worker.settings import Settings
    from worker.stores import Store

DEFAULT_GENERATED = 50  # questions generated when none are asked for


class Rate(click.ParamType):
    """A rate in 0..1 (a percentage such as `80%` is read as 0.8)."""

    name = "RATE"

    def convert(self, value, param, ctx) -> float:
        text = str(value).strip()
        try:
            rate = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            self.fail(f"{value!r} is not a rate (0..1, or a percentage such as 80%)", param, ctx)
        if not 0 <= rate <= 1:
            self.fail(f"a rate is between 0 and 1, got {value}", param, ctx)
        return rate


@click.command("eval")
@workspace_option
@click.option(
    "--questions",
    "questions_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help='Your questions, JSON lines: {"question", "answers": [...], "document"?, "page"?} or {"question", '
    '"unanswerable": true}; "conversation": NAME asks lines in order in one conversation, "documents": [...] '
    "asks a line of those documents alone.",
)
@click.option("--generate", type=click.IntRange(1, 10000), help="Generate N questions from the workspace (no model).")
@click.option(
    "--generate-with-model",
    type=click.IntRange(1, 1000),
    help="Have the configured model (SEGCITE_LLM_PROVIDER=openai) write N questions over sampled passages.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("eval-report"),
    show_default=True,
    help="Folder for questions.jsonl, report.json and report.html.",
)
@click.option(
    "--compare",
    "compare_with",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An earlier report.json to set beside this run.",
)
@click.option("--min-right", type=Rate(), help="Exit 1 when the right rate (of answerable questions) is below R.")
@click.option("--max-wrong", type=Rate(), help="Exit 1 when the wrong rate (of answerable questions) is above W.")
@click.option("--concurrency", type=click.IntRange(1, 64), default=4, show_default=True, help="Questions in flight.")
@click.option("--timeout", type=SECONDS, default=300, show_default=True, help="Seconds to wait for each answer.")
@click.option("--seed", type=int, default=0, show_default=True, help="Which questions generation picks.")
def eval_command(
    workspace: str,
    questions_file: Path | None,
    generate: int | None,
    generate_with_model: int | None,
    out: Path,
    compare_with: Path | None,
    min_right: float | None,
    max_wrong: float | None,
    concurrency: int,
    timeout: float,
    seed: int,
) -> None:
    """Ask a set of questions of a workspace through the real path (rows, inbox, worker, published answer) and
    score the answers and their citations: right, wrong, not found, citation precision and recall, unanswerable
    questions answered, latency. Writes report.json and report.html; prints a summary table."""
    from worker.cli.workspaces import require_workspace
    from worker.processes import ensure_up

    old = _read_old_report(compare_with) if compare_with else None  # a bad file is said before any work
    user_questions = _read_questions(questions_file) if questions_file else []
    if not (questions_file or generate or generate_with_model):
        generate = DEFAULT_GENERATED
        click.echo(f"note: no --questions given: generating {generate} questions from the workspace", err=True)
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        ws = require_workspace(settings, store, workspace)
        _say_unknown_documents(store, ws, user_questions, questions_file)
        scopes = _scopes(store, ws, user_questions, questions_file)
        made = _generated(settings, store, workspace, ws, generate, generate_with_model, seed)
        generated, generation, writing = made
        questions = [*user_questions, *generated]
        out.mkdir(parents=True, exist_ok=True)
        _write_questions(out / "questions.jsonl", questions)
        click.echo(f"{len(questions)} questions -> {out / 'questions.jsonl'}", err=True)
        run = _ask(store, ws, questions, scopes, concurrency, timeout)
        about = {
            **_about(settings, workspace, ws, questions_file, concurrency),
            "generation": generation,
            "question_writing": writing,
        }
        report = _reports(settings, store, run, out, about, (old, str(compare_with)) if old is not None else None)
    _print_summary(report, out)
    if run.gave_up:
        click.echo(f"error: {run.gave_up}", err=True)
        sys.exit(1)
    if run.interrupted:
        click.echo(f"stopped: {len(run.finished)} of {len(run.asked)} questions finished and scored", err=True)
        sys.exit(INTERRUPTED)
    _gate(report, min_right, max_wrong)


def _read_questions(path: Path) -> list[Question]:
    from evaluation import QuestionFileError, parse_question_lines

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot be read ({exc})") from None
    try:
        return parse_question_lines(text.splitlines(), str(path))
    except QuestionFileError as exc:
        raise UserError(str(exc)) from None


def _say_unknown_documents(store: Store, ws: str, questions: list[Question], path: Path | None) -> None:
    """A question naming a file the workspace does not hold can never get a good citation: said up front."""
    held = {d.filename for d in store.documents(ws)}
    unknown = sorted({s.document for q in questions for s in q.sources if s.document and s.document not in held})
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        click.echo(f"note: {path} names documents the workspace does not hold: {shown}", err=True)


def _scopes(store: Store, ws: str, questions: list[Question], path: Path | None) -> dict[str, list[str]]:
    """The document ids each question's `"documents"` names (file names as `segcite documents` lists them, or ids),
    by question id; one the workspace does not hold stops the run before anything is asked."""
    from worker.app_actions import UnknownDocument, chosen_documents

    held = store.documents(ws)
    scopes = {}
    for q in questions:
        if q.documents:
            try:
                scopes[q.id] = chosen_documents(held, q.documents)
            except UnknownDocument as exc:
                raise UserError(f"{path}, question {q.id}: {exc} (`segcite documents` lists them)") from None
    return scopes


def _read_old_report(path: Path) -> dict[str, Any]:
    import orjson

    from worker.evalrun.report import SCHEMA

    try:
        old = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise UserError(f"{path}: no such file (give the report.json of an earlier `segcite eval`)") from None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise UserError(f"{path}: not a report.json ({exc})") from None
    if not isinstance(old, dict) or old.get("schema") != SCHEMA:
        raise UserError(f"{path}: not a report.json of `segcite eval` (schema {SCHEMA})")
    return old


def _generated(
    settings: Settings, store: Store, name: str, ws: str, count: int | None, with_model: int | None, seed: int
) -> tuple[list[Question], dict[str, Any] | None, dict[str, Any] | None]:
    """Questions generated without a model (`count`) and written by the model (`with_model`), what generation
    gave (evaluation.generation.summary, null without `count`) and what writing them cost (null without the
    model)."""
    import shlex

    from evaluation import generate
    from evaluation.generation import summary
    from worker.evalrun.workspace import read_segments

    if not (count or with_model):
        return [], None, None
    segments = read_segments(store, ws)
    if not segments.segments:
        add = f"segcite ingest FILE... --workspace {shlex.quote(name)}"
        raise UserError(f"workspace {name!r} holds no ingested documents to generate questions from: `{add}`")
    questions = generate(segments.segments, count, seed) if count else []
    generation = summary(count, questions) if count else None
    if with_model:
        from worker.evalrun.model_questions import write_questions

        with click.progressbar(length=with_model, label="writing questions", file=sys.stderr) as bar:
            written = write_questions(settings, segments.segments, with_model, seed, lambda: bar.update(1))
        note = f" ({written.discarded} replies discarded: no question, or an answer not in the passage)"
        click.echo(
            f"the model wrote {len(written.questions)} questions" + (note if written.discarded else ""), err=True
        )
        questions += written.questions
        writing = {"model": settings.segcite_llm_model, "questions": len(written.questions)}
        return questions, generation, {**writing, "discarded": written.discarded, "tokens": written.tokens}
    return questions, generation, None


def _write_questions(path: Path, questions: list[Question]) -> None:
    import orjson

    path.write_bytes(b"".join(orjson.dumps(q.to_json()) + b"\n" for q in questions))


def _ask(
    store: Store, ws: str, questions: list[Question], scopes: dict[str, list[str]], concurrency: int, timeout: float
) -> Run:
    from worker.evalrun.asking import ask_all

    if not store.documents(ws):
        raise UserError("the workspace holds no documents: add some with `segcite ingest FILE... --workspace NAME`")
    with click.progressbar(length=len(questions), label="asking", file=sys.stderr, show_pos=True) as bar:
        return ask_all(
            store,
            ws,
            questions,
            scopes=scopes,
            concurrency=concurrency,
            timeout=timeout,
            on_finished=lambda _: bar.update(1),
        )


def _about(settings: Settings, name: str, ws: str, questions_file: Path | None, concurrency: int) -> dict[str, Any]:
    provider = settings.segcite_llm_provider
    return {
        "workspace": {"name": name, "id": ws},
        "answerer": {"provider": provider, "model": settings.segcite_llm_model if provider == "openai" else None},
        "questions_file": str(questions_file) if questions_file else None,
        "concurrency": concurrency,
    }


def _reports(
    settings: Settings,
    store: Store,
    run: Run,
    out: Path,
    about: dict[str, Any],
    old: tuple[dict[str, Any], str] | None,
) -> dict[str, Any]:
    """Score what finished, and write report.json and report.html (with the comparison, given an old report)."""
    import orjson

    from evaluation import score_answer
    from evaluation.scoring import page_texts
    from worker.evalrun.html import render_report
    from worker.evalrun.report import build_report, with_comparison
    from worker.evalrun.workspace import read_segments

    workspace = about["workspace"]["id"]
    filenames = {d.id: d.filename for d in store.documents(workspace, include_deleted=True)}
    page_text = page_texts((s.document, s.page_idx, s.text) for s in read_segments(store, workspace).segments)
    scores, by_id = [], {}
    for asked in run.finished:
        message = asked.message
        payload = None
        if message is not None and message.status == "done":
            payload = {"content": message.content, "metadata": message.metadata}
        scores.append(
            score_answer(
                asked.question, payload, filenames, seconds=asked.seconds, error=asked.error, page_text=page_text
            )
        )
        by_id[asked.question.id] = asked
    report = build_report(run, scores, by_id, about)
    if old is not None:
        with_comparison(report, *old)
    (out / "report.json").write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    html_page = render_report(report, _failed_views(settings, store, report))
    (out / "report.html").write_text(html_page, encoding="utf-8")
    return report


def _failed_views(settings: Settings, store: Store, report: dict[str, Any]) -> dict[str, Any]:
    """What `segcite view` shows of each failed answer that cites a page, by message id; for a failed question
    without citations that was generated from a segment, that segment's page with it highlighted, by
    `source:<question id>`: where the answer was."""
    import dataclasses

    from worker.objects import make_object_store
    from worker.view import collect_view

    objects = make_object_store(settings)
    workspace = report["workspace"]["id"]
    views = {}
    for q in report["questions"]:
        if not q["failed"] or not q["message_id"]:
            continue
        message = store.get_message(q["message_id"])
        if message is None:
            continue
        if q["citations"]:
            views[q["message_id"]] = collect_view(store, objects, message)
            continue
        segment_id = (q.get("source") or {}).get("segment_id")
        segment = store.segments_by_ids(workspace, [segment_id]).get(segment_id) if segment_id else None
        if segment is not None:
            source = dataclasses.replace(message, reply_to=None, metadata={"citations": [_marked(segment)]})
            views[f"source:{q['id']}"] = collect_view(store, objects, source)
    return views


def _marked(segment: Any) -> dict[str, Any]:
    """A segment as the one citation of a page view: its lines' boxes (its box where it has no lines)."""
    boxes = [{"page_idx": segment.page_idx, **line.bbox.to_dict()} for line in segment.lines or ()]
    if not boxes and segment.bbox is not None:
        boxes = [{"page_idx": segment.page_idx, **segment.bbox.to_dict()}]
    return {"number": 0, "document_id": segment.document_id, "page_idx": segment.page_idx, "boxes": boxes}


def _print_summary(report: dict[str, Any], out: Path) -> None:
    from worker.evalrun.report import comparison_table, summary

    click.echo(summary(report))
    if "comparison" in report:
        click.echo(f"\ncompared with {report['comparison']['old']}:")
        click.echo(comparison_table(report))
    click.echo(f"\nreports: {out / 'report.json'}, {out / 'report.html'}")


def _gate(report: dict[str, Any], min_right: float | None, max_wrong: float | None) -> None:
    from evaluation import gate

    failures = gate(report["summary"], min_right, max_wrong)
    for failure in failures:
        click.echo(f"error: {failure}", err=True)
    if failures:
        sys.exit(1)
