"""`segcite status`, and what the waiting commands say when work has not moved: where it stands, found by asking
the services (is Redis reachable, does a worker answer, is the row's entry still in the inbox)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from worker.events import Work
from worker.settings import Settings, load_settings

if TYPE_CHECKING:
    from worker.stores import Store
    from worker.stores.rows import DocumentRow

PROBE_TIMEOUT = 1.0  # seconds: a probe of a service that does not answer gives up after this


@dataclass(frozen=True)
class Broker:
    url: str  # password masked
    error: str | None  # None: it answered

    def line(self) -> str:
        if self.error is None:
            return f"redis: reachable at {self.url}"
        return f"redis: cannot reach {self.url} ({self.error})"

    def unreachable(self) -> str:
        return f"Redis at {self.url} cannot be reached ({self.error})"


def broker(settings: Settings) -> Broker:
    """Whether Redis (broker and result backend) answers a ping, within PROBE_TIMEOUT."""
    import redis

    from worker.embedded import embedded_redis_url, redis_client_url
    from worker.settings import mask_url_password

    url = settings.redis_url or embedded_redis_url(settings.home)
    client = redis.Redis.from_url(
        redis_client_url(url), socket_timeout=PROBE_TIMEOUT, socket_connect_timeout=PROBE_TIMEOUT
    )
    try:
        client.ping()
        return Broker(mask_url_password(url), None)
    except redis.RedisError as exc:
        return Broker(mask_url_password(url), _first_line(exc))
    finally:
        client.close()


def workers_answering() -> int:
    """How many workers answer a ping on the broker (0 when none does, or the broker is down)."""
    from worker.app import app

    try:
        return len(app.control.ping(timeout=PROBE_TIMEOUT) or [])
    except Exception:  # the broker is unreachable: no worker can answer either
        return 0


def waiting_line(settings: Settings, store: Store, work: Work, target: str) -> str:
    """Where work that has not started stands: still in the inbox, or enqueued; and why no worker started it
    (Redis unreachable, named with its URL; no worker answering; the workers busy)."""
    if store.inbox_holds(work, target):
        waiting = sum(stat.waiting for stat in store.inbox_stats())
        where = f"recorded in the inbox; no worker has taken it yet ({waiting} waiting)"
    else:
        where = "taken from the inbox and queued; no worker has started it yet"
    redis = broker(settings)
    if redis.error is not None:
        return f"{where}: {redis.unreachable()}; it starts once a worker reaches Redis"
    if not workers_answering():
        return f"{where}; no worker answered a ping (start one with `segcite up` or `segcite worker`)"
    return f"{where}; the workers are busy with other work"


def document_waiting_line(settings: Settings, store: Store, row: DocumentRow) -> str:
    """Where a document's work stands when it has not moved: `waiting_line` for work not started yet, else how
    far the worker got."""
    from worker.cli.text import progress_line
    from worker.stores.rows import DocumentStatus

    work = {DocumentStatus.UPLOADED: Work.INGEST, DocumentStatus.DELETING: Work.DELETE}.get(row.status)
    return progress_line(row) if work is None else waiting_line(settings, store, work, row.id)


@click.command()
def status() -> None:
    """Show whether the services answer, how many workers run, and what waits in the inbox (per task kind, with
    the oldest entry's age). One line per fact; exit 1 when a service cannot be reached."""
    from worker.embedded import resolve_services
    from worker.stores import make_store

    settings = load_settings()
    redis = broker(settings)
    click.echo(redis.line())
    ok = redis.error is None
    try:
        supabase = settings.segcite_store == "supabase"  # rows through PostgREST: no database URL needed
        database_url = "" if supabase else resolve_services(settings, start=False, broker=False).database_url
        store = make_store(settings, database_url, max_size=1)
        try:
            stats = store.inbox_stats()
        finally:
            store.close()
    except Exception as exc:
        click.echo(f"database: cannot be reached ({_first_line(exc)})")
        ok = False
    else:
        click.echo(f"database: reachable ({_store_name(settings)})")
        total = sum(stat.waiting for stat in stats)
        oldest = max((stat.oldest_seconds for stat in stats), default=0.0)
        click.echo(f"inbox: {total} waiting" + (f", oldest {_age(oldest)}" if total else ""))
        for stat in stats:
            click.echo(f"inbox {stat.task}: {stat.waiting} waiting, oldest {_age(stat.oldest_seconds)}")
    if redis.error is None:
        click.echo(workers_line(settings, workers_answering()))
    else:
        click.echo("workers: unknown (Redis cannot be reached)")
    if not ok:
        sys.exit(1)


def workers_line(settings: Settings, answering: int) -> str:
    """How many workers answer a ping; and, while none does, whether `segcite up`'s worker is still starting (its
    process runs: Celery takes a few seconds to import and connect before it answers)."""
    from worker.processes import running_pid, worker_pidfile

    line = f"workers: {answering} answering a ping"
    if answering or settings.redis_url:
        return line
    pid = running_pid(worker_pidfile(settings))
    return line if pid is None else f"{line}; starting (pid {pid}, log {settings.home / 'worker.log'})"


def _store_name(settings: Settings) -> str:
    return "through Supabase's API" if settings.segcite_store == "supabase" else "PostgreSQL"


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
