"""`segcite` command line. Errors are one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from worker.cli import documents, offline, services
from worker.cli.errors import INTERRUPTED, SegciteGroup, UserError
from worker.cli.options import SECONDS, workspace_option
from worker.cli.services import announce, open_store
from worker.embedded import Services
from worker.processes import ensure_up, running_pid, stop_all, worker_pidfile
from worker.settings import Settings, load_settings


@click.group(cls=SegciteGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """segcite: Document AI JSON in, answers with segment-level citations out."""


def _print_answer(store, message, as_json: bool, streamed: bool = False) -> None:
    """The answer, then each citation with its page and the passage that backs it (its quote)."""
    import orjson

    from worker.cli_text import citation_line

    if as_json:
        payload = {"content": message.content, "metadata": message.metadata}
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        return
    if not streamed:  # a streamed answer's sections are on the screen already, each with a blank line after it
        click.echo(message.content)
    citations = message.metadata.get("citations", [])
    if citations and not streamed:
        click.echo("")
    names: dict[str, str] = {}
    for citation in citations:
        if citation["document_id"] not in names:
            row = store.get_document(citation["document_id"])
            names[citation["document_id"]] = row.filename if row else citation["document_id"]
        click.echo(citation_line(citation, names[citation["document_id"]]))


def _ask(
    settings: Settings,
    services: Services,
    question: str,
    workspace: str,
    as_json: bool,
    timeout: float,
    stream: bool = False,
) -> bool:
    from worker.app_actions import MESSAGE_DONE, WaitTimeout, ask, wait_for, workspace_id
    from worker.cli_text import answer_timeout_line

    with open_store(settings, services) as store:
        workspace = workspace_id(workspace)
        conversation = store.create_conversation(workspace)
        streamed = stream and _follow_answer(store, services, (workspace, conversation), question, timeout)
        pending = streamed or ask(store, workspace, question, conversation)
        try:
            message = wait_for(lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout)
        except WaitTimeout as exc:
            line = answer_timeout_line(exc.last.status, timeout, _workers_answer())
            click.echo(f"error: {line}", err=True)
            return False
        except KeyboardInterrupt:
            click.echo(f"\nstopped waiting; the answer is still being written (message {pending.id})", err=True)
            sys.exit(INTERRUPTED)
        if message.status == "failed":
            click.echo(f"error: the answer failed: {message.error}", err=True)
            return False
        _print_answer(store, message, as_json, streamed=bool(streamed))
        return True


def _follow_answer(store, services: Services, where: tuple[str, str], question: str, timeout: float):
    """Ask, and print the answer's sections as the worker streams them; the pending message, or None when
    this database's events cannot be followed from here (then the answer is printed when done)."""
    import time

    from worker.app_actions import ask
    from worker.live_answer import Topic, can_follow, follow

    if not can_follow(services.database_url):
        click.echo("note: this database sends its events to Supabase Realtime; the answer shows when done", err=True)
        return None
    workspace, conversation = where
    topic = Topic(services.database_url, f"conversation:{conversation}")
    try:
        pending = ask(store, workspace, question, conversation)
        follow(topic, pending.id, time.monotonic() + timeout, lambda text: click.echo(f"{text}\n"))
    except KeyboardInterrupt:
        click.echo(f"\nstopped waiting; the answer is still being written (message {pending.id})", err=True)
        sys.exit(INTERRUPTED)
    finally:
        topic.close()
    return pending


def _workers_answer() -> bool:
    """Whether any worker answers a ping on the broker (a second at most)."""
    from worker.app import app

    try:
        return bool(app.control.ping(timeout=1.0))
    except Exception:  # the broker itself is unreachable: no worker can answer either
        return False


@main.command("ask")
@click.argument("question")
@workspace_option
@click.option("--json", "as_json", is_flag=True, help="Print the message payload (content + metadata) as JSON.")
@click.option("--timeout", type=SECONDS, default=300, show_default=True, help="Seconds to wait for the answer.")
@click.option("--stream", is_flag=True, help="Print the answer's sections as they are written, then its citations.")
def ask_command(question: str, workspace: str, as_json: bool, timeout: float, stream: bool) -> None:
    """Ask a question about a workspace's documents and print the answer with its citations: for each, its page
    and the passage that backs it."""
    if not question.strip():
        raise UserError("the question is empty")
    if stream and as_json:
        raise UserError("--stream prints the answer as it comes; --json prints the payload once it is done")
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    if not _ask(settings, up.services, question, workspace, as_json, timeout, stream):
        sys.exit(1)


DEMO_DOCUMENT = Path(__file__).resolve().parent.parent / "demo" / "harbor_point_report.json"
DEMO_QUESTION = "How much electricity did the solar farm generate in 2025?"


@main.command()
@click.option("--keep", is_flag=True, help="Leave the services and worker running afterwards.")
def demo(keep: bool) -> None:
    """Embedded services + worker, ingest a sample report, ask one question, print the cited answer."""
    from worker.cli_text import DEMO_ANSWERER_NOTE, STOP_HINT

    settings = load_settings()
    starting = not settings.redis_url and running_pid(worker_pidfile(settings)) is None
    stop_after = starting and not keep
    if starting:
        then = "stopped at the end (--keep leaves them running)" if stop_after else f"left running: {STOP_HINT}"
        click.echo(f"starting the embedded Redis, PostgreSQL and a worker, {then}…", err=True)
    up = ensure_up(settings)
    try:
        click.echo(f"ingesting {DEMO_DOCUMENT.name}…", err=True)
        if not documents.ingest_paths(settings, up.services, [DEMO_DOCUMENT], "demo", 600, fixed_ids=True):
            sys.exit(1)
        click.echo(f"\nQ: {DEMO_QUESTION}\n")
        if not _ask(settings, up.services, DEMO_QUESTION, "demo", False, 300):
            sys.exit(1)
        if settings.segcite_llm_provider == "extractive":
            click.echo(f"\n{DEMO_ANSWERER_NOTE}")
    finally:
        if stop_after:
            for line in stop_all(settings):
                click.echo(line, err=True)


for command in (
    offline.segments,
    offline.cite,
    offline.highlight,
    offline.config,
    services.db,
    services.worker,
    services.flower,
    services.up,
    services.down,
    documents.ingest,
    documents.documents,
    documents.delete,
):
    main.add_command(command)
