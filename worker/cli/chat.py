"""`segcite chat`: a conversation at the terminal (design §9, §5.10). Each line is the next question of one
conversation, so a follow-up ("And the due date?") is read with the turns before it; each answer streams in as `ask
--stream` shows it, then its citations. Line editing and history come from readline where Python has it. Ctrl-D or
`/exit` ends; Ctrl-C clears the line being typed, or withdraws the question being answered (its message ends
`failed` with a `cancelled` error, which the worker's answer no longer overwrites) and asks for the next one."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import click

from worker.cli.ask import (
    AnswerFailed,
    StoppedWaiting,
    answer_in,
    continue_line,
    document_option,
    open_conversation,
    print_answer,
)
from worker.cli.options import SECONDS, workspace_option
from worker.cli.services import announce, open_store
from worker.processes import ensure_up
from worker.settings import load_settings

if TYPE_CHECKING:
    from worker.stores import Store

PROMPT = "you> "
CANCELLED = "cancelled: the question was withdrawn (Ctrl-C in segcite chat)"
ENDS = frozenset({"/exit", "/quit"})


@click.command("chat")
@workspace_option
@document_option
@click.option("--timeout", type=SECONDS, default=300, show_default=True, help="Seconds to wait for each answer.")
def chat_command(workspace: str, documents: tuple[str, ...], timeout: float) -> None:
    """Chat with a workspace's documents (--document: with those only): each question is a turn of one
    conversation, each answer printed with its citations. Ctrl-D or /exit ends."""
    from query import has_words
    from worker.live_answer import listening

    with contextlib.suppress(ImportError):  # (a Python built without it: plain input)
        import readline  # noqa: F401  (input() gets line editing and a history)
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        where = open_conversation(settings, store, workspace, None, documents)
        held = {d.id: d.filename for d in store.documents(where.workspace)}
        sources = f"{len(held)} document(s)" if where.sources is None else ", ".join(held[d] for d in where.sources)
        click.echo(f"chatting with {sources} of workspace {workspace!r}; Ctrl-D or /exit ends, Ctrl-C stops an answer")
        with listening(up.services.database_url, f"conversation:{where.id}") as topic:
            while (question := _next_question()) is not None:
                if not question:
                    continue
                if not has_words(question):
                    click.echo("error: the question has no words (no letter or digit)", err=True)
                    continue
                try:
                    message, streamed = answer_in(settings, store, topic, where, question, timeout, stream=True)
                except StoppedWaiting as stopped:
                    _withdraw(store, stopped.message_id)
                    continue
                except KeyboardInterrupt:  # before the question was written: it is not asked
                    click.echo("\ncancelled")
                    continue
                except AnswerFailed as exc:
                    click.echo(f"error: {exc}", err=True)
                    continue
                print_answer(store, message, as_json=False, streamed=streamed)
                click.echo("")
    click.echo(continue_line(where.id))


def _withdraw(store: Store, message_id: str) -> None:
    """Ctrl-C while the answer is written: the question is withdrawn, unless its answer was finished first (then it
    is shown, as it is in the conversation)."""
    from worker.stores.rows import MessageStatus

    if store.finish_message(message_id, status=MessageStatus.FAILED, error=CANCELLED) is not None:
        click.echo(f"\ncancelled (message {message_id})")
        return
    message = store.get_message(message_id)
    if message is not None and message.status == MessageStatus.DONE:
        click.echo("\nthe answer was written before Ctrl-C:")
        print_answer(store, message, as_json=False)


def _next_question() -> str | None:
    """The next line typed, stripped ("" for an empty line or one Ctrl-C cleared); None at the end (Ctrl-D, /exit)."""
    try:
        line = input(PROMPT).strip()
    except EOFError:
        click.echo("")
        return None
    except KeyboardInterrupt:
        click.echo("")
        return ""
    return None if line in ENDS else line
