"""The CLI's process supervision: the embedded services and a background worker (`up`, `down`, `demo`), the
command lines of Celery processes, and the pid file that tells whether our worker is running."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from worker.embedded import Services, resolve_services, stop_postgres, stop_redis
from worker.settings import Settings


def worker_argv(
    queues: str = "ingest,query", concurrency: int | None = None, loglevel: str = "INFO", name: str | None = None
) -> list[str]:
    """The command line of a Celery worker on the segcite app (task events on, for Flower)."""
    argv = [sys.executable, "-m", "celery", "-A", "worker.app", "worker", "-Q", queues, "-E", "-l", loglevel]
    if concurrency:
        argv += ["-c", str(concurrency)]
    if name:
        argv += ["-n", name]
    return argv


def child_env(services: Services) -> dict[str, str]:
    """Environment for a child process: the resolved services become explicit URLs."""
    return {**os.environ, "REDIS_URL": services.redis_url, "DATABASE_URL": services.database_url}


def worker_pidfile(settings: Settings) -> Path:
    return settings.home / "worker.pid"


def running_pid(pidfile: Path) -> int | None:
    try:
        pid = int(pidfile.read_text().strip())
        with contextlib.suppress(ChildProcessError):  # reap it if it is our own child (`demo`), or it stays a zombie
            os.waitpid(pid, os.WNOHANG)
        os.kill(pid, 0)
    except (FileNotFoundError, ValueError, ProcessLookupError, PermissionError):
        return None
    return pid


@dataclass(frozen=True)
class Up:
    """What a command needs running, and what it had to start for that (which the user is told)."""

    services: Services
    worker_pid: int | None = None  # the background worker started now, if one was

    @property
    def started(self) -> list[str]:
        return [*self.services.started, *(["a worker"] if self.worker_pid else [])]


def database_up(settings: Settings) -> Up:
    """The database (the embedded one started if need be), its schema current: for commands that only read rows."""
    from worker.migrate import ensure_migrated  # psycopg: loaded by the commands that reach the database only

    services = resolve_services(settings, start=True, broker=False)
    ensure_migrated(services.database_url)
    return Up(services)


def ensure_up(settings: Settings) -> Up:
    """Services (embedded ones started), the schema current, and, on the embedded broker, a background worker.
    Migrations are applied in full (LightRAG's tables closed again) only where a worker starts; otherwise the
    migration log is read, and only what is missing applied: a command never takes a lock an ingest can meet."""
    from worker.migrate import apply_migrations, ensure_migrated

    services = resolve_services(settings, start=True)
    starting = not settings.redis_url and running_pid(worker_pidfile(settings)) is None
    (apply_migrations if starting else ensure_migrated)(services.database_url)
    if not starting:
        return Up(services)  # ours runs, or a configured broker has its own workers (docker compose, `segcite worker`)
    log = (settings.home / "worker.log").open("ab")
    proc = subprocess.Popen(
        worker_argv("ingest,query", None, "INFO"),
        env=child_env(services),
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    worker_pidfile(settings).write_text(str(proc.pid))
    return Up(services, proc.pid)


def wait_for_worker(pidfile: Path, answering: Callable[[], int], timeout: float) -> int:
    """Wait until a worker answers a ping (how many do); 0 when none did within `timeout`, or as soon as the
    background worker of `pidfile` has exited (it failed to start: its log says why)."""
    deadline = time.monotonic() + timeout
    while True:
        count = answering()
        if count or time.monotonic() >= deadline or running_pid(pidfile) is None:
            return count
        time.sleep(0.2)


def stop_all(settings: Settings) -> list[str]:
    """Stop the background worker (warm shutdown, then a kill after a minute) and the embedded services."""
    said = []
    pidfile = worker_pidfile(settings)
    pid = running_pid(pidfile)
    if pid is not None:
        os.killpg(pid, signal.SIGTERM)  # warm shutdown: running tasks finish or are requeued (acks_late)
        deadline = time.monotonic() + 60
        while running_pid(pidfile) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        if running_pid(pidfile) is not None:
            os.killpg(pid, signal.SIGKILL)
        said.append(f"worker stopped (pid {pid})")
    pidfile.unlink(missing_ok=True)
    home = settings.home
    said.append("redis stopped" if stop_redis(home) else "redis was not running")
    said.append("postgres stopped" if stop_postgres(home) else "postgres was not running")
    return said
