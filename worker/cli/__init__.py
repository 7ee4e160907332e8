"""`segcite` command line. Errors are one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from worker.cli import offline, services
from worker.cli.errors import INTERRUPTED, SegciteGroup, UserError
from worker.cli.options import SECONDS, workspace_option
from worker.cli.services import announce, open_store
from worker.embedded import Services
from worker.processes import database_up, ensure_up, running_pid, stop_all, worker_pidfile
from worker.settings import Settings, load_settings


@click.group(cls=SegciteGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """segcite: Document AI JSON in, answers with segment-level citations out."""


def _ingest_paths(
    settings: Settings,
    services: Services,
    paths: list[Path],
    workspace: str,
    timeout: float,
    *,
    force: bool = False,
    fixed_ids: bool = False,
) -> bool:
    """Upload each path (once per content in the workspace), then follow each ingest to its end."""
    from worker.app_actions import upload, workspace_id
    from worker.objects import make_object_store

    ws = workspace_id(workspace)
    objects = make_object_store(settings)
    with open_store(settings, services) as store:
        # fixed_ids: the same file gets the same document id, so the demo run twice replaces, never duplicates.
        uploads = [
            upload(store, objects, ws, p, workspace_id(f"{ws}/{p.name}") if fixed_ids else None, force=force)
            for p in paths
        ]
        try:
            return all([_follow(store, objects, item, timeout, workspace) for item in uploads])
        except KeyboardInterrupt:
            click.echo(
                "\nstopped waiting; the ingest goes on in the background: "
                f"`segcite documents --workspace {workspace}` shows where it stands",
                err=True,
            )
            sys.exit(INTERRUPTED)


def _follow(store, objects, item, timeout: float, workspace: str) -> bool:
    """Say what became of one upload, show its progress until it is done, and print its outcome."""
    from worker.app_actions import DOCUMENT_DONE, WaitTimeout, wait_for
    from worker.cli_text import ingested_line, progress_line, timeout_line, upload_note

    name, document = item.name, item.document
    said = upload_note(item)
    if said:
        click.echo(f"{name}: {said}", err=True)
    shown: list[str] = []

    def show(row) -> None:
        line = progress_line(row)
        if row.status not in DOCUMENT_DONE and line not in shown[-1:]:
            shown.append(line)
            click.echo(f"{name}: {line}", err=True)

    try:
        row = wait_for(lambda: store.get_document(document.id), lambda r: r.status in DOCUMENT_DONE, timeout, show)
    except WaitTimeout as exc:
        click.echo(f"error: {timeout_line(name, exc.last, timeout, workspace)}", err=True)
        return False
    if row.status == "ingested":
        click.echo(ingested_line(name, row))
        return True
    if item.queued and row.status == "failed" and row.docai_raw_r2_key:
        objects.delete(row.docai_raw_r2_key)  # a refused upload leaves no JSON behind (we stored it)
    click.echo(f"{name}: {row.status}: {row.error or 'no reason given'} (document {row.id})", err=True)
    return False


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@workspace_option
@click.option("--force", is_flag=True, help="Ingest again a file whose content the workspace already holds.")
@click.option("--timeout", type=SECONDS, default=600, show_default=True, help="Seconds to wait per document.")
def ingest(files: tuple[Path, ...], workspace: str, force: bool, timeout: float) -> None:
    """Upload Document AI JSON files (a folder = one document's shards) and wait until they are ingested.

    The same content in the same workspace is one document: uploading it again reuses it, and --force
    ingests it again in place (same document id, its segments and chunks rebuilt)."""
    from worker.app_actions import shard_paths

    paths = list(files)
    for path in paths:
        if path.is_dir():
            shard_paths(path)  # a folder without JSON is refused before anything starts
    settings = load_settings()
    up = ensure_up(settings)
    announce(up, settings)
    if not _ingest_paths(settings, up.services, paths, workspace, timeout, force=force):
        sys.exit(1)


@main.command()
@workspace_option
@click.option("--all", "include_deleted", is_flag=True, help="Include deleted documents.")
@click.option("--json", "as_json", is_flag=True, help="Print the documents as a JSON array.")
def documents(workspace: str, include_deleted: bool, as_json: bool) -> None:
    """List a workspace's documents: id, file, status, pages, segments, last update."""
    import orjson

    from worker.app_actions import workspace_id
    from worker.cli_text import document_json, documents_table

    settings = load_settings()
    up = database_up(settings)
    announce(up, settings)
    with open_store(settings, up.services) as store:
        rows = store.documents(workspace_id(workspace), include_deleted=include_deleted)
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


@main.command()
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
    error = _run_delete(settings, row, timeout)
    if error:
        click.echo(f"error: {row.filename}: {error}", err=True)
        sys.exit(1)
    click.echo(f"{row.filename}: deleted (document {row.id})")


def _run_delete(settings: Settings, row, timeout: float) -> str | None:
    """Enqueue the delete and wait for its result; None when done, else what went wrong."""
    from celery.exceptions import TimeoutError as ResultTimeout

    from worker import events
    from worker.objects import LocalFolderStore, make_object_store

    pending = events.document_deleted(row.id)
    try:
        result = pending.get(timeout=timeout, propagate=False)
    except ResultTimeout:
        return f"not deleted after {timeout:g} s; it goes on in the background (`segcite documents --all`)"
    except KeyboardInterrupt:
        click.echo("\nstopped waiting; the delete goes on in the background", err=True)
        sys.exit(INTERRUPTED)
    if not (isinstance(result, dict) and result.get("deleted")):
        reason = result.get("failed") or result.get("skipped") if isinstance(result, dict) else None
        return f"the delete failed: {reason or result}"
    objects = make_object_store(settings)
    if isinstance(objects, LocalFolderStore) and row.docai_raw_r2_key:
        objects.delete(row.docai_raw_r2_key)  # the embedded default's copy; an app's R2 objects are the app's
    return None


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
        if not _ingest_paths(settings, up.services, [DEMO_DOCUMENT], "demo", 600, fixed_ids=True):
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
):
    main.add_command(command)
