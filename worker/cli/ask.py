"""`segcite ask`: a question to a workspace, or the next one of a conversation (`--conversation`), asked of chosen
documents (`--document`) or of all; its answer printed when done (or as it streams) with its citations."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
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


class StoppedWaiting(Exception):
    """Ctrl-C while an answer is awaited: the worker goes on writing it, only the waiting stops."""

    def __init__(self, message_id: str):
        super().__init__(message_id)
        self.message_id = message_id


class NothingToAsk(UserError):
    """A workspace that holds no document: said as any error, and exit 1 (nothing to ask, as a failed answer)."""

    exit_code = 1


class AnswerFailed(Exception):
    """The answer failed, or did not come in time: the line that says so."""


@dataclass(frozen=True)
class Conversation:
    """Where a question is asked: the workspace (its name as given, and its id), the conversation, the documents
    chosen for the question itself (`scope`; None: the conversation's choice) and those it is asked of (`sources`:
    its own, within the conversation's, else the conversation's; None: the whole workspace)."""

    name: str
    workspace: str
    id: str
    scope: list[str] | None = None
    sources: list[str] | None = None


def open_conversation(
    settings: Settings,
    store: Store,
    workspace: str,
    conversation: str | None,
    documents: Sequence[str],
    *,
    named: bool = True,
) -> Conversation:
    """The conversation a question goes to: the one given (its workspace; a `--workspace` given too must be it), or a
    new one of `workspace` asked of `documents` (none: all). Raises UserError (one line, exit 2) for an unknown
    conversation or document, and for a workspace with no document."""
    import shlex

    from worker.app_actions import UnknownDocument, chosen_documents, workspace_id
    from worker.cli.workspaces import require_workspace

    if conversation is not None:
        row = store.get_conversation(conversation)
        if row is None:
            raise UserError(f"no conversation {conversation} (an id `segcite ask` printed)")
        if named and workspace_id(workspace) != row.workspace_id:
            raise UserError(f"conversation {conversation} is not of workspace {workspace!r}")
        name, workspace = (workspace if named else row.workspace_id), row.workspace_id
    else:
        name, workspace = workspace, require_workspace(settings, store, workspace)
    held = store.documents(workspace)
    if not held:  # nothing to ask (the worker would say so too): no message is written
        add = f"segcite ingest FILE... --workspace {shlex.quote(name)}"
        raise NothingToAsk(f"workspace {name!r} holds no documents: add some with `{add}`")
    try:
        chosen = chosen_documents(held, documents) if documents else None
    except UnknownDocument as exc:
        raise UserError(f"{exc} (`segcite documents --workspace {shlex.quote(name)}` lists them)") from None
    if conversation is not None:
        sources = list(row.document_ids) if row.document_ids is not None else None
        if chosen is not None and sources is not None:  # a question's choice narrows its conversation's (design §2)
            outside = [d.filename for d in held if d.id in set(chosen) - set(sources)]
            if outside:
                raise UserError(
                    f"{', '.join(outside)}: not among the sources conversation {conversation} was opened with"
                )
        return Conversation(name, workspace, conversation, chosen, chosen if chosen is not None else sources)
    return Conversation(name, workspace, store.create_conversation(workspace, chosen), None, chosen)


def answer_in(
    settings: Settings,
    store: Store,
    topic: Topic | None,
    where: Conversation,
    question: str,
    timeout: float,
    stream: bool,
) -> tuple[MessageRow, bool]:
    """Ask `question` in the conversation and wait for its answer (printing its sections as they come with `stream`):
    the answer, and whether it was streamed. Raises StoppedWaiting on Ctrl-C, AnswerFailed when it failed or did not
    come within `timeout`."""
    import time

    from worker.app_actions import MESSAGE_DONE, WaitTimeout, ask, wait_for
    from worker.cli.status import waiting_line
    from worker.cli.text import answer_timeout_line
    from worker.events import Work

    streamed = stream and _follow_answer(store, topic, where, question, timeout)
    pending = streamed or ask(store, where.workspace, question, where.id, where.scope)
    pause = topic.pause if topic is not None else time.sleep
    try:
        message = wait_for(
            lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout, pause=pause
        )
    except WaitTimeout as exc:
        pending_now = exc.last.status == "pending"
        where_line = waiting_line(settings, store, Work.ANSWER, pending.id) if pending_now else ""
        raise AnswerFailed(answer_timeout_line(exc.last.status, timeout, where_line)) from None
    except KeyboardInterrupt:
        raise StoppedWaiting(pending.id) from None
    if message.status == "failed":
        raise AnswerFailed(f"the answer failed: {message.error}")
    return message, bool(streamed)


def _follow_answer(
    store: Store, topic: Topic | None, where: Conversation, question: str, timeout: float
) -> MessageRow | None:
    """Ask, and print the answer's sections as the worker streams them on `topic`; the pending message, or None
    when this database's events cannot be followed from here (then the answer is printed when done)."""
    import time

    from worker.app_actions import ask
    from worker.live_answer import follow

    if topic is None:
        click.echo("note: this database sends its events to Supabase Realtime; the answer shows when done", err=True)
        return None
    pending = ask(store, where.workspace, question, where.id, where.scope)  # Ctrl-C before this: nothing asked yet
    try:
        follow(topic, pending.id, time.monotonic() + timeout, lambda text: click.echo(f"{text}\n"))
    except KeyboardInterrupt:
        raise StoppedWaiting(pending.id) from None
    return pending


def print_answer(store: Store, message: MessageRow, as_json: bool, streamed: bool = False) -> None:
    """The answer, how the question was read where a follow-up was written out (`read as`), the sources it was asked
    of, then each citation with its page and the passage that backs it (its quote)."""
    import orjson

    from worker.cli.text import citation_line

    if as_json:
        payload = {
            "message_id": message.id,
            "conversation_id": message.conversation_id,
            "content": message.content,
            "metadata": message.metadata,
        }
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        return
    from query import uncertain_note

    metadata = message.metadata
    if not streamed:  # a streamed answer's sections are on the screen already, each with a blank line after it
        click.echo(message.content)
    if note := uncertain_note(metadata):
        click.echo(note)
    names: dict[str, str] = {}

    def name(document_id: str) -> str:
        if document_id not in names:
            row = store.get_document(document_id)
            names[document_id] = row.filename if row else document_id
        return names[document_id]

    if metadata.get("rewrite"):  # a follow-up: what retrieval and the answer read
        click.echo(f"read as: {metadata.get('standalone_question')}")
    if metadata.get("document_ids") is not None:
        chosen = ", ".join(name(d) for d in metadata["document_ids"]) or "none of them is left"
        click.echo(f"asked of: {chosen}")
    citations = metadata.get("citations", [])
    if citations and not streamed:
        click.echo("")
    for citation in citations:
        click.echo(citation_line(citation, name(citation["document_id"])))
    click.echo(f"\nmessage {message.id} (`segcite view {message.id}` shows it with its pages)")


def continue_line(conversation_id: str) -> str:
    return f'continue: segcite ask "…" --conversation {conversation_id}'


def ask_question(
    settings: Settings,
    services: Services,
    question: str,
    workspace: str,
    as_json: bool,
    timeout: float,
    stream: bool = False,
    conversation: str | None = None,
    documents: Sequence[str] = (),
    *,
    named: bool = True,
) -> bool:
    """Ask in a new conversation, or in `conversation`, and print the answer once it is done (its sections as they
    come with `stream`), ending with the line that continues the conversation; False when it failed or did not come
    within `timeout`, said on stderr. `named`: whether `workspace` was given (with a conversation, its own is used)."""
    from worker.live_answer import listening

    with open_store(settings, services) as store:
        where = open_conversation(settings, store, workspace, conversation, documents, named=named)
        # Listening before asking: the answer's events feed `stream`, and end the wait below the moment it is done.
        with listening(services.database_url, f"conversation:{where.id}") as topic:
            try:
                message, streamed = answer_in(settings, store, topic, where, question, timeout, stream)
            except StoppedWaiting as stopped:
                _stopped_waiting(stopped.message_id)
            except AnswerFailed as exc:
                click.echo(f"error: {exc}", err=True)
                return False
        print_answer(store, message, as_json, streamed=streamed)
        if not as_json:
            click.echo(continue_line(where.id))
        return True


def _stopped_waiting(message_id: str) -> NoReturn:
    """Ctrl-C while an answer is awaited: the worker goes on writing it, only this command stops."""
    click.echo(f"\nstopped waiting; the answer is still being written (message {message_id})", err=True)
    sys.exit(INTERRUPTED)


document_option = click.option(
    "--document",
    "documents",
    multiple=True,
    metavar="NAME_OR_ID",
    help="Ask only of this document (a file name as `segcite documents` lists it, or an id); repeatable.",
)


@click.command("ask")
@click.argument("question")
@workspace_option
@click.option("--conversation", metavar="ID", help="Continue this conversation: the question is a follow-up.")
@document_option
@click.option("--json", "as_json", is_flag=True, help="Print the message payload (content + metadata) as JSON.")
@click.option("--timeout", type=SECONDS, default=300, show_default=True, help="Seconds to wait for the answer.")
@click.option("--stream", is_flag=True, help="Print the answer's sections as they are written, then its citations.")
@click.pass_context
def ask_command(
    ctx: click.Context,
    question: str,
    workspace: str,
    conversation: str | None,
    documents: tuple[str, ...],
    as_json: bool,
    timeout: float,
    stream: bool,
) -> None:
    """Ask a question about a workspace's documents and print the answer with its citations: for each, its page
    and the passage that backs it. With --conversation, a follow-up of that conversation ("And the due date?");
    with --document, asked of those documents only."""
    from query import has_words

    if not question.strip():
        raise UserError("the question is empty")
    if not has_words(question):
        raise UserError("the question has no words (no letter or digit)")
    if stream and as_json:
        raise UserError("--stream prints the answer as it comes; --json prints the payload once it is done")
    named = ctx.get_parameter_source("workspace") is not click.core.ParameterSource.DEFAULT
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    if not ask_question(
        settings, up.services, question, workspace, as_json, timeout, stream, conversation, documents, named=named
    ):
        sys.exit(1)
