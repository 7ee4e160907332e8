"""The commands on a workspace's documents: ingest (upload, then follow each to its end), documents, delete."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from worker.cli.errors import INTERRUPTED, UserError
from worker.cli.options import SECONDS, workspace_option
from worker.cli.services import announce, open_store
from worker.cli.status import document_waiting_line
from worker.embedded import Services
from worker.processes import database_up, ensure_up
from worker.settings import Settings, load_settings

if TYPE_CHECKING:
    from worker.app_actions import Upload
    from worker.objects import ObjectStore
    from worker.stores import Store
    from worker.stores.rows import DocumentRow


def ingest_paths(
    settings: Settings,
    services: Services,
    paths: list[Path],
    workspace: str,
    timeout: float,
    *,
    force: bool = False,
    fixed_ids: bool = False,
) -> list[bool]:
    """Upload each path (once per content in the workspace), then follow each ingest to its end: whether each
    path was ingested. One that cannot be uploaded is named and the others go on; of several, say at the end how
    many segments a second went in, from the command's start."""
    from worker.app_actions import workspace_id
    from worker.live_answer import listening
    from worker.objects import make_object_store

    started = time.monotonic()
    ws = workspace_id(workspace)
    objects = make_object_store(settings)
    # The workspace's document events end each wait the moment its document changes (else a poll every 0.3 s).
    with open_store(settings, services) as store, listening(services.database_url, f"workspace:{ws}") as topic:
        pause = topic.pause if topic is not None else time.sleep
        # fixed_ids: the same file gets the same document id, so the demo run twice replaces, never duplicates.
        uploads = [_upload(store, objects, ws, p, f"{ws}/{p.name}" if fixed_ids else None, force) for p in paths]
        try:
            rows: list[DocumentRow | None] = []
            for item in uploads:
                # Of several files, each one's progress says the rate so far (from the command's start).
                so_far = _rate(rows, started) if len(uploads) > 1 else ""
                rows.append(
                    _follow(settings, store, objects, item, timeout, workspace, so_far, pause) if item else None
                )
            done = [row for row in rows if row is not None]
            if len(done) > 1:
                segments = sum(row.segment_count or 0 for row in done)
                seconds = time.monotonic() - started
                click.echo(
                    f"ingested {len(done)} documents, {segments} segments in {seconds:.1f} s "
                    f"({segments / max(seconds, 1e-9):.0f} segments/s)",
                    err=True,
                )
            return [row is not None for row in rows]
        except KeyboardInterrupt:
            click.echo(
                "\nstopped waiting; the ingest goes on in the background: "
                f"`segcite documents --workspace {workspace}` shows where it stands",
                err=True,
            )
            sys.exit(INTERRUPTED)


def _upload(
    store: Store, objects: ObjectStore, workspace: str, path: Path, fixed_name: str | None, force: bool
) -> Upload | None:
    """One path stored and its ingest recorded (`fixed_name`: the name its document id derives from); None, said
    in one line, when it cannot be (changed since it was checked)."""
    from worker.app_actions import upload, workspace_id
    from worker.errors import PermanentError

    try:
        return upload(store, objects, workspace, path, fixed_name and workspace_id(fixed_name), force=force)
    except PermanentError as exc:
        click.echo(f"error: {exc}", err=True)
    except OSError as exc:
        click.echo(f"error: {path}: cannot read it ({exc.strerror})", err=True)
    return None


def _rate(rows: list[DocumentRow | None], started: float) -> str:
    """` (N segments/s so far)` once a document is ingested: its segments and those before, over the time since
    `started`."""
    segments = sum(row.segment_count or 0 for row in rows if row is not None)
    if not segments:
        return ""
    return f" ({segments / max(time.monotonic() - started, 1e-9):.0f} segments/s so far)"


def _follow(
    settings: Settings,
    store: Store,
    objects: ObjectStore,
    item: Upload,
    timeout: float,
    workspace: str,
    so_far: str = "",
    pause: Callable[[float], None] = time.sleep,
) -> DocumentRow | None:
    """Say what became of one upload, show its progress (followed by `so_far`, the rate of the documents before)
    until it is done, and print its outcome: its row once ingested, else None."""
    from worker.app_actions import DOCUMENT_DONE, WaitTimeout, wait_for
    from worker.cli.text import ingested_line, progress_line, timeout_line, upload_note

    name, document = item.name, item.document
    said = upload_note(item)
    if said:
        click.echo(f"{name}: {said}", err=True)
    shown: list[str] = []

    def show(row: DocumentRow) -> None:
        line = progress_line(row)
        if row.status not in DOCUMENT_DONE and line not in shown[-1:]:
            shown.append(line)
            click.echo(f"{name}: {line}{so_far}", err=True)

    try:
        row = wait_for(
            lambda: store.get_document(document.id), lambda r: r.status in DOCUMENT_DONE, timeout, show, pause=pause
        )
    except WaitTimeout as exc:
        where = document_waiting_line(settings, store, exc.last)
        click.echo(f"error: {timeout_line(name, where, timeout, workspace)}", err=True)
        return None
    if row.status == "ingested":
        click.echo(ingested_line(name, row))
        return row
    if item.queued and row.status == "failed":  # a refused upload leaves nothing behind (we stored it)
        for key in (row.docai_raw_r2_key, row.source_r2_key):
            if key:
                objects.delete(key)
    click.echo(f"{name}: {row.status}: {row.error or 'no reason given'} (document {row.id})", err=True)
    return None


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@workspace_option
@click.option("--force", is_flag=True, help="Ingest again a file whose content the workspace already holds.")
@click.option("--timeout", type=SECONDS, default=600, show_default=True, help="Seconds to wait per document.")
def ingest(files: tuple[Path, ...], workspace: str, force: bool, timeout: float) -> None:
    """Upload PDFs, images or Document AI JSON files and wait until they are ingested. Each file is a document:
    one that cannot be ingested is named, the others are ingested all the same (exit 1). A folder: each PDF,
    image or JSON file in it is a document, but a folder of JSON files alone is one document's shards; anything
    else in it is named as skipped. PDFs and images are parsed by the worker (SEGCITE_PARSER: Document AI, or
    offline), with progress per page.

    The same content in the same workspace is one document: uploading it again reuses it, and --force
    ingests it again in place (same document id, its segments and chunks rebuilt)."""
    from worker.cli.checks import expand, upload_problem
    from worker.cli.text import ingest_summary

    paths, skipped = expand(list(files))
    for line in skipped:
        click.echo(f"skipped {line}", err=True)
    settings = load_settings()
    # Every file is read here first: one the worker would refuse is refused now, before any row or object
    # exists; the others are ingested all the same, each a document of its own.
    problems = {p: upload_problem(p, settings.segcite_max_chars, settings.segcite_max_pages) for p in paths}
    for line in filter(None, problems.values()):
        click.echo(f"error: {line}", err=True)
    accepted = [p for p in paths if not problems[p]]
    done: dict[Path, bool] = {}
    if accepted:
        from worker.cli.workspaces import remember

        up = ensure_up(settings)
        announce(up, settings)
        remember(settings, workspace)  # a new name makes a new workspace: `segcite workspaces` lists it by name
        outcomes = ingest_paths(settings, up.services, accepted, workspace, timeout, force=force)
        done = dict(zip(accepted, outcomes, strict=True))
    ingested = [p for p in paths if done.get(p)]
    if len(paths) > 1:
        click.echo(ingest_summary(ingested, [p for p in paths if not done.get(p)], len(skipped)), err=True)
    if not accepted:
        sys.exit(UserError.exit_code)  # nothing stored: every file was refused
    if len(ingested) < len(paths):
        sys.exit(1)


@click.command()
@workspace_option
@click.option("--all", "include_deleted", is_flag=True, help="Include deleted documents.")
@click.option("--json", "as_json", is_flag=True, help="Print the documents as a JSON array.")
def documents(workspace: str, include_deleted: bool, as_json: bool) -> None:
    """List a workspace's documents: id, file, status, pages, segments, last update."""
    import orjson

    from worker.cli.text import document_json, documents_table
    from worker.cli.workspaces import require_workspace

    settings = load_settings()
    up = database_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        rows = store.documents(require_workspace(settings, store, workspace), include_deleted=include_deleted)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps([document_json(r) for r in rows], option=orjson.OPT_INDENT_2) + b"\n")
    elif not rows:
        click.echo(f"no documents in workspace {workspace}", err=True)
    else:
        for line in documents_table(rows):
            click.echo(line)


def _uuid(ctx: click.Context, param: click.Parameter, value: str) -> str:
    import uuid

    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a document id (a UUID, as `segcite documents` shows)") from None


@click.command()
@click.argument("document_id", callback=_uuid)
@click.option("--timeout", type=SECONDS, default=300, show_default=True, help="Seconds to wait for the delete.")
def delete(document_id: str, timeout: float) -> None:
    """Delete a document: its segments and chunks go, its row says `deleted`."""
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        row = store.get_document(document_id)
    if row is None:
        raise UserError(f"no document {document_id} (`segcite documents` lists them)")
    if row.status == "deleted":
        click.echo(f"{row.filename}: already deleted (document {row.id})")
        return
    error = _run_delete(settings, up.services, row, timeout)
    if error:
        click.echo(f"error: {row.filename}: {error}", err=True)
        sys.exit(1)
    click.echo(f"{row.filename}: deleted (document {row.id})")


def _run_delete(settings: Settings, services: Services, row: DocumentRow, timeout: float) -> str | None:
    """Mark the document `deleting` (its trigger records the delete in the inbox) and wait until it is
    `deleted`; None when done, else what went wrong."""
    from worker.app_actions import WaitTimeout, wait_for
    from worker.objects import LocalFolderStore, make_object_store
    from worker.stores.rows import DocumentStatus

    with open_store(settings, services) as store:
        if row.status != DocumentStatus.DELETING:
            store.update_document(row.id, status=DocumentStatus.DELETING)
        try:
            done = wait_for(
                lambda: store.get_document(row.id),
                lambda r: r is None or r.status in (DocumentStatus.DELETED, DocumentStatus.FAILED),
                timeout,
            )
        except WaitTimeout as exc:
            return f"not deleted after {timeout:g} s: {document_waiting_line(settings, store, exc.last)}"
        except KeyboardInterrupt:
            click.echo("\nstopped waiting; the delete goes on in the background", err=True)
            sys.exit(INTERRUPTED)
    if done is not None and done.status == DocumentStatus.FAILED:
        return f"the delete failed: {done.error or 'no reason given'}"
    objects = make_object_store(settings)
    if isinstance(objects, LocalFolderStore):  # the embedded default's copies; an app's R2 objects are the app's
        for key in (row.docai_raw_r2_key, row.source_r2_key):
            if key:
                objects.delete(key)
    return None
