"""`segcite` command line. Errors are one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from worker.embedded import EmbeddedServiceError, Services, resolve_services
from worker.processes import child_env, ensure_up, running_pid, stop_all, worker_argv, worker_pidfile
from worker.settings import Settings, SettingsError, load_settings


class UserError(click.ClickException):
    """An error a user can act on: printed as one line, exit 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class SegciteGroup(click.Group):
    """Turns the errors a user can act on into one line; anything else still prints one line."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except (SettingsError, EmbeddedServiceError) as exc:
            raise UserError(str(exc)) from None
        except Exception as exc:  # last resort: one line, the type tells a developer where to look
            if os.environ.get("SEGCITE_DEBUG"):
                raise
            click.echo(f"error: {type(exc).__name__}: {exc}".splitlines()[0], err=True)
            sys.exit(1)


def _settings() -> Settings:
    return load_settings()


def _services(settings: Settings) -> Services:
    return resolve_services(settings, start=True)


@click.group(cls=SegciteGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """segcite: Document AI JSON in, answers with segment-level citations out."""


def _read_inputs(files: tuple[Path, ...]) -> list[bytes]:
    """Files as given; a folder stands for the JSON files in it (the shards of one document)."""
    paths: list[Path] = []
    for path in files:
        paths.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    if not paths:
        raise UserError("no JSON files found in " + ", ".join(str(f) for f in files))
    return [p.read_bytes() for p in paths]


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--document-id", required=True, help="Id of the document; segment ids are <id>:<index>.")
@click.option("--max-chars", type=click.IntRange(20, 100_000), default=None, help="Default: SEGCITE_MAX_CHARS.")
def segments(files: tuple[Path, ...], document_id: str, max_chars: int | None) -> None:
    """Print the segments of one document (several files = its shards) as JSON lines."""
    import orjson

    from ingest import InvalidDocument, build_segments

    limit = max_chars or _settings().segcite_max_chars
    try:
        built = build_segments(_read_inputs(files), document_id, max_chars=limit)
    except InvalidDocument as exc:
        raise UserError(str(exc)) from None
    out = sys.stdout.buffer
    for segment in built:
        out.write(orjson.dumps(segment.to_dict()) + b"\n")
    out.flush()


def _read_jsonl(path: Path) -> list[dict]:
    import orjson

    rows = []
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            raise UserError(f"{path}:{number}: not a JSON line ({exc})") from None
    return rows


@main.command()
@click.option(
    "--segments",
    "segments_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The workspace's segments as JSON lines (what `segcite segments` prints).",
)
@click.option(
    "--answer",
    "answer_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The model's raw answer.",
)
@click.option(
    "--context",
    "context_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Retrieved segment ids, one per line (default: every segment).",
)
def cite(segments_file: Path, answer_file: Path, context_file: Path | None) -> None:
    """Resolve a model answer against segments and print the message payload (JSON)."""
    import orjson

    from ingest import Segment
    from query import SegmentIndex, build_answer

    try:
        workspace = SegmentIndex(Segment.from_dict(row) for row in _read_jsonl(segments_file))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{segments_file}: not segment JSON lines ({exc})") from None
    if context_file is None:
        context = list(workspace.values())
    else:
        ids = [line.strip() for line in context_file.read_text().splitlines() if line.strip()]
        unknown = [i for i in ids if i not in workspace]
        if unknown:
            raise UserError(f"{context_file}: {len(unknown)} id(s) not in {segments_file}, e.g. {unknown[0]}")
        context = [workspace[i] for i in ids]
    payload = build_answer(answer_file.read_text(encoding="utf-8"), context=context, workspace=workspace)
    sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")


@main.command()
def config() -> None:
    """Print the effective settings (secrets masked)."""
    settings = _settings()
    for name, value in settings.masked().items():
        click.echo(f"{name}={value}")


@main.group()
def db() -> None:
    """Database commands."""


@db.command("migrate")
def db_migrate() -> None:
    """Apply the SQL migrations (idempotent)."""
    from worker.migrate import apply_migrations

    services = _services(_settings())
    applied = apply_migrations(services.database_url)
    click.echo(f"applied {len(applied)} migration(s)" + (f": {', '.join(applied)}" if applied else ""))


@main.command()
@click.option("-Q", "--queues", default="ingest,query", show_default=True, help="Queues to consume.")
@click.option("-c", "--concurrency", type=click.IntRange(1, 64), default=None, help="Worker processes.")
@click.option("-l", "--loglevel", default="INFO", show_default=True)
def worker(queues: str, concurrency: int | None, loglevel: str) -> None:
    """Run a Celery worker (embedded services are started when no URL is configured)."""
    from worker.migrate import apply_migrations

    settings = _settings()
    services = _services(settings)
    apply_migrations(services.database_url)
    os.execve(sys.executable, worker_argv(queues, concurrency, loglevel), child_env(services))


@main.command()
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Default: FLOWER_PORT.")
@click.option("--no-auth", is_flag=True, help="Start without FLOWER_BASIC_AUTH; Flower then listens on 127.0.0.1 only.")
def flower(port: int | None, no_auth: bool) -> None:
    """Run Flower, Celery's monitor: basic auth from FLOWER_BASIC_AUTH, on 127.0.0.1 unless FLOWER_ADDRESS."""
    from worker.flower import plan_flower

    settings = _settings()
    plan = plan_flower(settings, port, no_auth)
    if plan.warning:
        click.echo(f"warning: {plan.warning}", err=True)
    os.execve(sys.executable, plan.argv(), plan.environment(child_env(_services(settings))))


@main.command()
def up() -> None:
    """Start the embedded services and a worker in the background."""
    settings = _settings()
    services, _ = ensure_up(settings)
    pid = running_pid(worker_pidfile(settings))
    click.echo(f"redis:    {services.redis_url}")
    click.echo(f"postgres: {services.database_url}")
    click.echo("worker:   " + (f"pid {pid}, log {settings.home / 'worker.log'}" if pid else "not managed here"))


@main.command()
def down() -> None:
    """Stop the background worker and the embedded services."""
    for line in stop_all(_settings()):
        click.echo(line)


def _runtime_for_client(settings: Settings, services: Services):
    from worker.objects import make_object_store
    from worker.stores import make_store

    return make_store(settings, services.database_url, max_size=2), make_object_store(settings)


def _ingest_paths(
    settings: Settings, services: Services, paths: list[Path], workspace: str, timeout: float, fixed_ids: bool = False
) -> bool:
    from worker.app_actions import DOCUMENT_DONE, upload, wait_for, workspace_id

    store, objects = _runtime_for_client(settings, services)
    ws = workspace_id(workspace)
    # fixed_ids: the same file gets the same document id, so running the demo twice replaces, never duplicates.
    uploads = [upload(store, objects, ws, p, workspace_id(f"{ws}/{p.name}") if fixed_ids else None) for p in paths]
    ok = True
    for item in uploads:

        def show(row, name=item.name) -> None:
            click.echo(f"{name}: {row.status} {row.progress:.0%}", err=True)

        row = wait_for(
            lambda i=item: store.get_document(i.document.id),
            lambda r: r.status in DOCUMENT_DONE,
            timeout,
            show,
            what=f"ingesting {item.name}",
        )
        if row.status == "ingested":
            click.echo(
                f"{item.name}: ingested, {row.page_count} page(s), {row.segment_count} segment(s), document {row.id}"
            )
        else:
            ok = False
            click.echo(f"{item.name}: failed: {row.error}", err=True)
    store.close()
    return ok


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--workspace", default="default", show_default=True, help="Workspace UUID or name.")
@click.option("--timeout", type=float, default=600, show_default=True, help="Seconds to wait per document.")
def ingest(files: tuple[Path, ...], workspace: str, timeout: float) -> None:
    """Upload Document AI JSON files (a folder = one document's shards) and wait until they are ingested."""
    settings = _settings()
    services, _ = ensure_up(settings)
    if not _ingest_paths(settings, services, list(files), workspace, timeout):
        sys.exit(1)


def _print_answer(store, message, as_json: bool) -> None:
    import orjson

    if as_json:
        payload = {"content": message.content, "metadata": message.metadata}
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        return
    click.echo(message.content)
    citations = message.metadata.get("citations", [])
    if citations:
        click.echo("")
    names: dict[str, str] = {}
    for c in citations:
        if c["document_id"] not in names:
            row = store.get_document(c["document_id"])
            names[c["document_id"]] = row.filename if row else c["document_id"]
        click.echo(
            f"[{c['number']}] {names[c['document_id']]}, page {c['page_idx'] + 1} "
            f"({c['citation_status']}): {c['snippet_preview']}"
        )


def _ask(settings: Settings, services: Services, question: str, workspace: str, as_json: bool, timeout: float) -> bool:
    from worker.app_actions import MESSAGE_DONE, ask, wait_for, workspace_id

    store, _ = _runtime_for_client(settings, services)
    pending = ask(store, workspace_id(workspace), question)
    message = wait_for(
        lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout, what="the answer"
    )
    if message.status == "failed":
        click.echo(f"error: the answer failed: {message.error}", err=True)
        store.close()
        return False
    _print_answer(store, message, as_json)
    store.close()
    return True


@main.command("ask")
@click.argument("question")
@click.option("--workspace", default="default", show_default=True, help="Workspace UUID or name.")
@click.option("--json", "as_json", is_flag=True, help="Print the message payload (content + metadata) as JSON.")
@click.option("--timeout", type=float, default=300, show_default=True)
def ask_command(question: str, workspace: str, as_json: bool, timeout: float) -> None:
    """Ask a question about a workspace's documents and print the answer with its citations."""
    if not question.strip():
        raise UserError("the question is empty")
    settings = _settings()
    services, _ = ensure_up(settings)
    if not _ask(settings, services, question, workspace, as_json, timeout):
        sys.exit(1)


DEMO_DOCUMENT = Path(__file__).resolve().parent / "demo" / "harbor_point_report.json"
DEMO_QUESTION = "How much electricity did the solar farm generate in 2025?"


@main.command()
@click.option("--keep", is_flag=True, help="Leave the services and worker running afterwards.")
def demo(keep: bool) -> None:
    """Embedded services + worker, ingest a sample report, ask one question, print the cited answer."""
    settings = _settings()
    already_up = running_pid(worker_pidfile(settings)) is not None
    click.echo("starting the embedded Redis, PostgreSQL and a worker…", err=True)
    services, _ = ensure_up(settings)
    try:
        click.echo(f"ingesting {DEMO_DOCUMENT.name}…", err=True)
        if not _ingest_paths(settings, services, [DEMO_DOCUMENT], "demo", 600, fixed_ids=True):
            sys.exit(1)
        click.echo(f"\nQ: {DEMO_QUESTION}\n")
        if not _ask(settings, services, DEMO_QUESTION, "demo", False, 300):
            sys.exit(1)
    finally:
        if not keep and not already_up and not settings.redis_url:
            for line in stop_all(settings):
                click.echo(line, err=True)


if __name__ == "__main__":
    main()
