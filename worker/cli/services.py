"""The services from the command line: the commands that run them (db migrate, worker, flower, up, down), and
what the other commands use to reach them (announce, open_store)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from worker.cli.options import SECONDS
from worker.embedded import Services, resolve_services
from worker.processes import (
    Up,
    child_env,
    ensure_up,
    running_pid,
    stop_all,
    wait_for_worker,
    worker_argv,
    worker_pidfile,
)
from worker.settings import Settings, load_settings

if TYPE_CHECKING:
    from worker.stores import Store


def _services(settings: Settings) -> Services:
    return resolve_services(settings, start=True)


def announce(up: Up, settings: Settings) -> None:
    """Say on stderr which embedded services a command started: they outlive it."""
    from worker.cli.text import started_line

    if up.started:
        click.echo(started_line(up.started, settings.home, up.worker_pid), err=True)


@contextlib.contextmanager
def open_store(settings: Settings, services: Services) -> Iterator[Store]:
    """The configured store, closed on the way out whatever happens (an open pool left to the interpreter's
    exit prints a traceback from its threads)."""
    from worker.stores import make_store

    store = make_store(settings, services.database_url, max_size=2)
    try:
        yield store
    finally:
        store.close()


@click.group()
def db() -> None:
    """Database commands."""


@db.command("migrate")
def db_migrate() -> None:
    """Apply the SQL migrations (idempotent)."""
    from worker.migrate import apply_migrations

    services = _services(load_settings())
    applied = apply_migrations(services.database_url)
    click.echo(f"applied {len(applied)} migration(s)" + (f": {', '.join(applied)}" if applied else ""))


@click.command()
@click.option("-Q", "--queues", default="ingest,query", show_default=True, help="Queues to consume.")
@click.option("-c", "--concurrency", type=click.IntRange(1, 64), default=None, help="Worker processes.")
@click.option("-l", "--loglevel", default="INFO", show_default=True)
def worker(queues: str, concurrency: int | None, loglevel: str) -> None:
    """Run a Celery worker (embedded services are started when no URL is configured)."""
    from worker.migrate import apply_migrations
    from worker.objects import make_object_store

    settings = load_settings()
    make_object_store(settings)  # R2 half configured: one line now, rather than every ingest failing later
    services = _services(settings)
    apply_migrations(services.database_url)
    os.execve(sys.executable, worker_argv(queues, concurrency, loglevel), child_env(services))


@click.command()
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Default: FLOWER_PORT.")
@click.option("--no-auth", is_flag=True, help="Start without FLOWER_BASIC_AUTH; Flower then listens on 127.0.0.1 only.")
def flower(port: int | None, no_auth: bool) -> None:
    """Run Flower, Celery's monitor: basic auth from FLOWER_BASIC_AUTH, on 127.0.0.1 unless FLOWER_ADDRESS."""
    from worker.flower import plan_flower

    settings = load_settings()
    plan = plan_flower(settings, port, no_auth)
    if plan.warning:
        click.echo(f"warning: {plan.warning}", err=True)
    os.execve(sys.executable, plan.argv(), plan.environment(child_env(_services(settings))))


@click.command()
@click.option(
    "--timeout", type=SECONDS, default=60, show_default=True, help="Seconds to wait for the worker to answer a ping."
)
def up(timeout: float) -> None:
    """Start the embedded services and a worker in the background; return once the worker answers a ping."""
    from worker.cli.status import workers_answering

    settings = load_settings()
    services = ensure_up(settings).services
    pidfile = worker_pidfile(settings)
    pid = running_pid(pidfile)
    click.echo(f"redis:    {services.redis_url}")
    click.echo(f"postgres: {services.database_url}")
    if pid is None:
        click.echo("worker:   not managed here")
        return
    log = settings.home / "worker.log"
    if wait_for_worker(pidfile, workers_answering, timeout):
        click.echo(f"worker:   pid {pid}, answering a ping, log {log}")
        return
    if running_pid(pidfile) is None:
        click.echo(f"error: the worker exited as it started; its log says why: {log}", err=True)
    else:
        click.echo(f"error: the worker (pid {pid}) answered no ping within {timeout:g} s; its log: {log}", err=True)
    sys.exit(1)


@click.command()
def down() -> None:
    """Stop the background worker and the embedded services."""
    for line in stop_all(load_settings()):
        click.echo(line)
