"""The CLI's process supervision: the embedded services and a background worker (`up`, `down`, `demo`), the
command lines of Celery processes, and the pid file that tells whether our worker is running."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
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
    """The database (the embedded one started if need be), migrated: for commands that only read rows."""
    from worker.migrate import apply_migrations  # psycopg: loaded by the commands that reach the database only

    services = resolve_services(settings, start=True, broker=False)
    apply_migrations(services.database_url)
    return Up(services)


def ensure_up(settings: Settings) -> Up:
    """Services (embedded ones started), migrations applied, and, on the embedded broker, a background
    worker."""
    from worker.migrate import apply_migrations

    services = resolve_services(settings, start=True)
    apply_migrations(services.database_url)
    if settings.redis_url:
        return Up(services)  # a configured broker has its own workers (docker compose, `segcite worker`)
    pidfile = worker_pidfile(settings)
    if running_pid(pidfile) is not None:
        return Up(services)
    log = (settings.home / "worker.log").open("ab")
    proc = subprocess.Popen(
        worker_argv("ingest,query", None, "INFO"),
        env=child_env(services),
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    pidfile.write_text(str(proc.pid))
    return Up(services, proc.pid)


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
