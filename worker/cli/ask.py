"""`segcite ask`: a question to a workspace, its answer printed when done (or as it streams) with its citations."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import click

from worker.cli.errors import INTERRUPTED, UserError
from worker.cli.options import SECONDS, workspace_option
from worker.cli.services import announce, open_store
from worker.processes import ensure_up
from worker.settings import Settings, load_settings

if TYPE_CHECKING:
    from worker.embedded import Services
    from worker.live_answer import Topic
    from worker.stores import Store
    from worker.stores.rows import MessageRow


def _print_answer(store: Store, message: MessageRow, as_json: bool, streamed: bool = False) -> None:
    """The answer, then each citation with its page and the passage that backs it (its quote)."""
    import orjson

    from worker.cli.text import citation_line

    if as_json:
        payload = {"message_id": message.id, "content": message.content, "metadata": message.metadata}
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        return
    from query import uncertain_note

    if not streamed:  # a streamed answer's sections are on the screen already, each with a blank line after it
        click.echo(message.content)
    if note := uncertain_note(message.metadata):
        click.echo(note)
    citations = message.metadata.get("citations", [])
    if citations and not streamed:
        click.echo("")
    names: dict[str, str] = {}
    for citation in citations:
        if citation["document_id"] not in names:
            row = store.get_document(citation["document_id"])
            names[citation["document_id"]] = row.filename if row else citation["document_id"]
        click.echo(citation_line(citation, names[citation["document_id"]]))
    click.echo(f"\nmessage {message.id} (`segcite view {message.id}` shows it with its pages)")


def ask_question(
    settings: Settings,
    services: Services,
    question: str,
    workspace: str,
    as_json: bool,
    timeout: float,
    stream: bool = False,
) -> bool:
    """Ask in a new conversation and print the answer once it is done (its sections as they come with `stream`);
    False when it failed or did not come within `timeout`, said on stderr."""
    import shlex
    import time

    from worker.app_actions import MESSAGE_DONE, WaitTimeout, ask, wait_for
    from worker.cli.status import waiting_line
    from worker.cli.text import answer_timeout_line
    from worker.cli.workspaces import require_workspace
    from worker.events import Work
    from worker.live_answer import listening

    with open_store(settings, services) as store:
        name, workspace = workspace, require_workspace(settings, store, workspace)
        if not store.documents(workspace):  # nothing to ask (the worker would say so too): no message is written
            add = f"segcite ingest FILE... --workspace {shlex.quote(name)}"
            click.echo(f"error: workspace {name!r} holds no documents: add some with `{add}`", err=True)
            return False
        conversation = store.create_conversation(workspace)
        # Listening before asking: the answer's events feed `stream`, and end the wait below the moment it is done.
        with listening(services.database_url, f"conversation:{conversation}") as topic:
            streamed = stream and _follow_answer(store, topic, (workspace, conversation), question, timeout)
            pending = streamed or ask(store, workspace, question, conversation)
            pause = topic.pause if topic is not None else time.sleep
            try:
                message = wait_for(
                    lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout, pause=pause
                )
            except WaitTimeout as exc:
                pending_now = exc.last.status == "pending"
                where = waiting_line(settings, store, Work.ANSWER, pending.id) if pending_now else ""
                line = answer_timeout_line(exc.last.status, timeout, where)
                click.echo(f"error: {line}", err=True)
                return False
            except KeyboardInterrupt:
                _stopped_waiting(pending.id)
        if message.status == "failed":
            click.echo(f"error: the answer failed: {message.error}", err=True)
            return False
        _print_answer(store, message, as_json, streamed=bool(streamed))
        return True


def _follow_answer(
    store: Store, topic: Topic | None, where: tuple[str, str], question: str, timeout: float
) -> MessageRow | None:
    """Ask, and print the answer's sections as the worker streams them on `topic`; the pending message, or None
    when this database's events cannot be followed from here (then the answer is printed when done)."""
    import time

    from worker.app_actions import ask
    from worker.live_answer import follow

    if topic is None:
        click.echo("note: this database sends its events to Supabase Realtime; the answer shows when done", err=True)
        return None
    workspace, conversation = where
    pending = ask(store, workspace, question, conversation)  # Ctrl-C before this: nothing was asked yet
    try:
        follow(topic, pending.id, time.monotonic() + timeout, lambda text: click.echo(f"{text}\n"))
    except KeyboardInterrupt:
        _stopped_waiting(pending.id)
    return pending


def _stopped_waiting(message_id: str) -> NoReturn:
    """Ctrl-C while an answer is awaited: the worker goes on writing it, only this command stops."""
    click.echo(f"\nstopped waiting; the answer is still being written (message {message_id})", err=True)
    sys.exit(INTERRUPTED)


@click.command("ask")
@click.argument("question")
@workspace_option
@click.option("--json", "as_json", is_flag=True, help="Print the message payload (content + metadata) as JSON.")
@click.option("--timeout", type=SECONDS, default=300, show_default=True, help="Seconds to wait for the answer.")
@click.option("--stream", is_flag=True, help="Print the answer's sections as they are written, then its citations.")
def ask_command(question: str, workspace: str, as_json: bool, timeout: float, stream: bool) -> None:
    """Ask a question about a workspace's documents and print the answer with its citations: for each, its page
    and the passage that backs it."""
    from query import has_words

    if not question.strip():
        raise UserError("the question is empty")
    if not has_words(question):
        raise UserError("the question has no words (no letter or digit)")
    if stream and as_json:
        raise UserError("--stream prints the answer as it comes; --json prints the payload once it is done")
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    if not ask_question(settings, up.services, question, workspace, as_json, timeout, stream):
        sys.exit(1)
