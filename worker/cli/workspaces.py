"""`segcite workspaces`, and what every command taking `--workspace` does with a name no workspace has.

A workspace is a UUID in the database; a name maps to one (`workspace_id`) and cannot be read back from it. So
the names used on this machine are kept in `$SEGCITE_HOME/workspaces.json` (a name only, never a document):
`ingest` records the name it creates, and a command that finds a named workspace records that one. A workspace
whose name this machine never saw (an app's, or one made elsewhere on a shared database) shows as its UUID."""

from __future__ import annotations

import difflib
import sys
import uuid
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
import orjson

from worker.cli.errors import UserError
from worker.cli.services import announce, open_store
from worker.processes import database_up
from worker.settings import Settings, load_settings

if TYPE_CHECKING:
    from worker.stores import Store
    from worker.stores.rows import WorkspaceStat

_NAMES_FILE = "workspaces.json"
_CLI_NAMES = ("default", "demo")  # the workspaces the CLI itself names: `--workspace`'s default and `demo`'s
_NEAREST = 3


def _names_file(settings: Settings) -> Path:
    return settings.home / _NAMES_FILE


def known_names(settings: Settings) -> list[str]:
    """Every workspace name used on this machine (the CLI's own first)."""
    try:
        saved = orjson.loads(_names_file(settings).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        saved = []  # none yet, or a file damaged by hand: the names come back as they are used
    names = [*_CLI_NAMES, *(name for name in saved if isinstance(name, str))]
    return list(dict.fromkeys(names))


def remember(settings: Settings, name: str) -> None:
    """Record a workspace name (not a UUID, which needs no name) for listings and suggestions."""
    if _is_uuid(name) or any(name.strip().lower() == known.lower() for known in known_names(settings)):
        return
    path = _names_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = [n for n in known_names(settings) if n not in _CLI_NAMES]
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps([*saved, name.strip()], option=orjson.OPT_INDENT_2))
    tmp.replace(path)  # whole or not at all: a crash never leaves half a file


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def named(settings: Settings, stats: list[WorkspaceStat]) -> dict[str, str]:
    """Each workspace's name as this machine knows it, else its UUID."""
    from worker.app_actions import workspace_id

    names = {workspace_id(name): name for name in reversed(known_names(settings))}  # the first spelling wins
    return {s.workspace_id: names.get(s.workspace_id, s.workspace_id) for s in stats}


def require_workspace(settings: Settings, store: Store, name: str) -> str:
    """The workspace's id when it exists (it holds a document or a conversation), its name recorded; else a
    UserError saying it does not exist, with the nearest names that do. Only a name the user gave is checked:
    `--workspace`'s default (`default`) may be empty, and says so in each command's own words."""
    from click.core import ParameterSource

    from worker.app_actions import workspace_id

    ws = workspace_id(name)
    context = click.get_current_context(silent=True)
    if context is not None and context.get_parameter_source("workspace") in (ParameterSource.DEFAULT, None):
        return ws
    stats = store.workspaces()
    if any(s.workspace_id == ws for s in stats):
        remember(settings, name)
        return ws
    raise UserError(_unknown_line(name, list(named(settings, stats).values())))


def _unknown_line(name: str, existing: list[str]) -> str:
    if not existing:
        return f"workspace {name!r} does not exist: no workspace does yet (`segcite ingest FILE... --workspace NAME`)"
    by_lower = {n.lower(): n for n in existing}
    nearest = [by_lower[n] for n in difflib.get_close_matches(name.strip().lower(), list(by_lower), _NEAREST, 0.5)]
    if nearest:
        return f"workspace {name!r} does not exist; nearest: {', '.join(nearest)} (`segcite workspaces` lists them all)"
    return f"workspace {name!r} does not exist (`segcite workspaces` lists those that do)"


def workspace_lines(stats: list[WorkspaceStat], names: dict[str, str]) -> list[str]:
    """A table: name, documents, segments, last activity (latest first, as the store gives them)."""
    rows = [("WORKSPACE", "DOCUMENTS", "SEGMENTS", "LAST ACTIVITY")]
    rows += [(names[s.workspace_id], str(s.documents), str(s.segments), _when(s.last_activity)) for s in stats]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}".rstrip() for row in rows]


def _when(moment: datetime | None) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment is not None else "-"


@click.command("workspaces")
@click.option("--json", "as_json", is_flag=True, help="Print the workspaces as a JSON array.")
def workspaces(as_json: bool) -> None:
    """List the workspaces: name (its UUID where this machine never used a name for it), documents (deleted ones
    left out), segments, last activity (a document changed, a question asked)."""
    settings = load_settings()
    up = database_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        stats = store.workspaces()
    names = named(settings, stats)
    if as_json:
        rows = [
            {
                "name": names[s.workspace_id],
                "workspace_id": s.workspace_id,
                "documents": s.documents,
                "segments": s.segments,
                "last_activity": s.last_activity.isoformat() if s.last_activity else None,
            }
            for s in stats
        ]
        sys.stdout.buffer.write(orjson.dumps(rows, option=orjson.OPT_INDENT_2) + b"\n")
    elif not stats:
        click.echo("no workspaces yet: `segcite ingest FILE... --workspace NAME` makes one", err=True)
    else:
        for line in workspace_lines(stats, names):
            click.echo(line)
