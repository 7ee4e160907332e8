"""Shared fixtures: real Redis and PostgreSQL (embedded, or REDIS_URL / DATABASE_URL), a real Celery worker."""

from __future__ import annotations

import gc
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from base64 import b64encode
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson
import psycopg
import pytest
from supabase_like import GRANT_REGIMES, make_supabase_like

from worker.embedded import Services, start_postgres, start_redis, stop_postgres, stop_redis
from worker.processes import worker_argv

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"  # the team's fixtures, beside the checkout: a clone alone has none
FIXTURES = SHARED / "fixtures" / "docai"
REAL_FIXTURES = SHARED / "fixtures" / "docai-real"  # with manifest.json: what must ingest


def shared_missing(path: Path) -> str:
    return f"{path} not found (the fixtures live in ../shared, outside the repo)"


def shared_path(*parts: str) -> Path:
    """A file or folder under ../shared, or the calling test (or fixture) skipped with why. Every test that reads
    ../shared reads it through here, so a clone with no ../shared beside it skips them and passes."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(shared_missing(path))
    return path


def shared_parameters(values: list[Any], *parts: str) -> list[Any]:
    """A parametrize list read from ../shared at collection; where ../shared holds none (the clone alone), one
    parameter that skips with why, where pytest would say only "got empty parameter set"."""
    if values:
        return values
    return [pytest.param(None, marks=pytest.mark.skip(reason=shared_missing(SHARED.joinpath(*parts))))]


# Issue 31's workspace (tests/test_query_fit.py, tests/test_cli_questions.py): passports, invoices, receipts, a
# contract, a patent, a driver licence, a utility bill; with the EDF invoice of docai/.
FIT_FILES = (
    "us_passport_pix2info_specimen_snake.json",
    "id_proofing_pix2info_passport_snake.json",
    "invoice_parser_1p.json",
    "expense_parser_1p.json",
    "contract_parser_1p.json",
    "invoice_toolbox_test0_1p.json",
    "custom_extractor_patent_1p.json",
    "us_driver_license_dl3_1p.json",
    "utility_parser_1p_4tables.json",
)


@pytest.fixture(scope="session")
def docai_dir() -> Path:
    return shared_path("fixtures", "docai")


@pytest.fixture(scope="session")
def docai_real_dir() -> Path:
    return shared_path("fixtures", "docai-real", "manifest.json").parent


@pytest.fixture(scope="session")
def service_home() -> Iterator[Path]:
    # Short path under /tmp: unix socket paths are limited to 107 bytes.
    home = Path(tempfile.mkdtemp(prefix="segcite-test-", dir="/tmp"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def services(service_home: Path) -> Iterator[Services]:
    redis_url = os.environ.get("REDIS_URL") or start_redis(service_home)
    database_url = os.environ.get("DATABASE_URL") or start_postgres(service_home)
    yield Services(redis_url=redis_url, database_url=database_url)
    gc.collect()  # AsyncResults unsubscribe from Redis when collected: let that happen while it still runs
    if not os.environ.get("REDIS_URL"):
        stop_redis(service_home)
    if not os.environ.get("DATABASE_URL"):
        stop_postgres(service_home)


def database_with_name(url: str, name: str) -> str:
    """The same server's database `name`, still as a URL (a worker's DATABASE_URL must be one)."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


@contextmanager
def new_database(services: Services) -> Iterator[str]:
    """A new, empty database on the session's server, dropped on exit."""
    name = f"segcite_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(services.database_url, autocommit=True) as conn:
        conn.execute(f'create database "{name}"')
    try:
        yield database_with_name(services.database_url, name)
    finally:
        with psycopg.connect(services.database_url, autocommit=True) as conn:
            conn.execute(f'drop database if exists "{name}" with (force)')


@pytest.fixture
def fresh_database(services: Services) -> Iterator[str]:
    """A new, empty database on the session's server; dropped afterwards."""
    with new_database(services) as url:
        yield url


@pytest.fixture(scope="module", params=sorted(GRANT_REGIMES))
def grants(request: pytest.FixtureRequest) -> str:
    """Supabase's two grant regimes on `public` (tests/supabase_like.py): a module using this, or
    `supabase_like_database`, runs once under each."""
    return request.param


@pytest.fixture(scope="module")
def supabase_like_database(services: Services, grants: str) -> Iterator[str]:
    """A new database set up the way Supabase sets up its own (tests/supabase_like.py), before segcite touches
    it: API roles, `auth.uid()`, the `realtime` schema and publication, `grants`' defaults on `public`."""
    with new_database(services) as url:
        make_supabase_like(url, grants)
        yield url


def service_env(services: Services, home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEGCITE_", "FLOWER_"))}
    env.update(REDIS_URL=services.redis_url, DATABASE_URL=services.database_url, SEGCITE_HOME=str(home))
    env.update(extra)
    return env


def segcite(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`segcite ARGS` as a user runs it (`python -m worker.cli`), in a subprocess with `env`."""
    return subprocess.run(
        [sys.executable, "-m", "worker.cli", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )


def wait_for(predicate, *, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class WorkerProcess:
    """A real `celery worker` subprocess on the test services."""

    def __init__(self, env: dict[str, str], log: Path, queues: str = "ingest,query", concurrency: int = 2):
        self.log = log
        argv = worker_argv(queues, concurrency, "INFO", f"test-{uuid.uuid4().hex[:6]}@%h")
        self.proc = subprocess.Popen(
            argv, env=env, cwd=REPO, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(10)


@pytest.fixture(scope="session")
def celery_app(services: Services, service_home: Path):
    """The app the enqueue helpers use (worker.events), pointed at the test broker before its first use."""
    from worker.app import app
    from worker.embedded import celery_broker_url

    url = celery_broker_url(services.redis_url)
    app.conf.update(broker_url=url, result_backend=url)
    app.loader.import_default_modules()
    return app


@pytest.fixture(scope="session")
def migrated(services: Services) -> str:
    """The session database with segcite's migrations applied (the worker's database)."""
    from worker.migrate import apply_migrations

    apply_migrations(services.database_url)
    return services.database_url


@pytest.fixture(scope="module")
def store(migrated: str):
    """The `postgres` store on the worker's database (a module that overrides `migrated` gets its own)."""
    from worker.stores.postgres import PostgresStore

    store = PostgresStore(migrated, max_size=2)
    yield store
    store.close()


@pytest.fixture(scope="module")
def database_without_worker(services: Services) -> Iterator[str]:
    """A migrated database of the module's own, which the session's worker does not serve: the rows a test writes
    there (an `uploaded` document, a `pending` answer) record work in its inbox that no worker's taker takes."""
    from worker.migrate import apply_migrations

    with new_database(services) as url:
        apply_migrations(url)
        yield url


@pytest.fixture(scope="session")
def celery_worker(services: Services, service_home: Path, celery_app, migrated) -> Iterator[WorkerProcess]:
    worker = WorkerProcess(service_env(services, service_home), service_home / "worker.log")
    try:
        wait_for(lambda: pings(celery_app), timeout=60, what=f"the worker (log: {worker.log})", interval=0.5)
        yield worker
    finally:
        worker.stop()


def pings(app) -> bool:
    """Whether a worker answers `segcite.ping` within 2 s."""
    result = app.send_task("segcite.ping")
    try:
        return bool(result.get(timeout=2))
    except Exception:
        return False
    finally:
        # A ping that timed out stays pending in the result backend, which holds it until the interpreter exits,
        # long after the test Redis stopped: its __del__ then prints a reconnect traceback. Forgotten here.
        result.forget()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url: str, auth: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url)
    if auth:
        request.add_header("Authorization", "Basic " + b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return 0, b""


class Listener:
    """LISTEN on a topic in a thread; collects the JSON notifications, and when each arrived (`time.monotonic()`)."""

    def __init__(self, database_url: str, topic: str):
        self.events: list[dict] = []
        self.arrived: list[float] = []
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.conn.execute(f'listen "{topic}"')
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            for note in self.conn.notifies(timeout=0.2):
                self.arrived.append(time.monotonic())
                self.events.append(orjson.loads(note.payload))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.conn.close()
