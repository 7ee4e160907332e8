"""`segcite view`: one answer as a self-contained HTML file (worker/view.py), for a person to read and check."""

from __future__ import annotations

from pathlib import Path

import click

from worker.cli.errors import UserError
from worker.cli.services import announce, open_store
from worker.processes import database_up
from worker.settings import load_settings


def _message_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    import uuid

    if value is None:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a message id (a UUID, as `segcite ask --json` shows)") from None


def _workspace(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--workspace given: checked as every command checks it; not given: None (any workspace)."""
    from worker.cli.options import check_workspace

    return None if value is None else check_workspace(ctx, param, value)


@click.command("view")
@click.argument("message_id", required=False, callback=_message_id)
@click.option("--last", is_flag=True, help="The last answer given, in any workspace (--workspace: in that one).")
@click.option("--workspace", default=None, callback=_workspace, help="With --last: that workspace's (UUID or name).")
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The HTML file to write (default: $SEGCITE_HOME/views/answer-<id>.html).",
)
def view(message_id: str | None, last: bool, workspace: str | None, out_file: Path | None) -> None:
    """Write an answer as one HTML file and print its path: its text with citation markers, each citation's
    document, page, quote, support and warning; it opens on the first citation's page with the quote highlighted
    (`#c2` in its address: the second's), a marker or previous / next (arrow keys) shows another. Self-contained:
    open it in any browser, offline."""
    from worker.cli.workspaces import require_workspace
    from worker.objects import make_object_store
    from worker.view import collect_view, render_view

    if (message_id is None) == (not last):
        raise UserError("give a MESSAGE_ID or --last (not both)")
    settings = load_settings()
    up = database_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        if message_id is None:
            ws = require_workspace(settings, store, workspace) if workspace is not None else None
            message = store.last_answer(ws)
            if message is None:
                where = f" in workspace {workspace}" if workspace is not None else ""
                raise UserError(f"no answered question{where} yet (`segcite ask` asks one)")
        else:
            message = store.get_message(message_id)
            if message is None:
                raise UserError(f"no message {message_id}")
        if message.role != "assistant":
            raise UserError(f"message {message.id} is a question; view its answer")
        if message.status != "done":
            raise UserError(f"message {message.id} is {message.status}: only a done answer can be viewed")
        shown = collect_view(store, make_object_store(settings), message)
        page = render_view(shown)
    out = out_file or settings.home / "views" / f"answer-{message.id[:8]}.html"
    if out_file is None:
        out.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # answers quote the documents: the user's alone
    out.write_text(page, encoding="utf-8")
    for note in shown.notes:  # on the page too
        click.echo(note, err=True)
    click.echo(str(out))
