"""`segcite` command line: the group, and each command from the module that holds it. Errors are one line on
stderr and a non-zero exit, never a traceback (errors.py)."""

from __future__ import annotations

import click

from worker.cli import ask, chat, demo, documents, eval, offline, parse, services, status, view, workspaces
from worker.cli.errors import SegciteGroup

__all__ = ["main"]


@click.group(cls=SegciteGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """segcite: Document AI JSON in, answers with segment-level citations out."""


for command in (
    offline.segments,
    offline.cite,
    offline.highlight,
    offline.config,
    parse.parse_command,
    services.db,
    services.worker,
    services.flower,
    services.up,
    services.down,
    status.status,
    documents.ingest,
    documents.documents,
    workspaces.workspaces,
    documents.delete,
    ask.ask_command,
    chat.chat_command,
    view.view,
    demo.demo,
    eval.eval_command,
):
    main.add_command(command)
