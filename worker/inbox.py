"""The inbox's taker (design §11), inside every worker: it moves entries of `segcite_inbox` (recorded by the
database's triggers, and by worker.events) onto the Celery queues.

One thread in the worker's main process. With a database connection it LISTENs on `segcite_inbox` (on a
connection of its own, in autocommit: a listener inside a transaction receives nothing until it ends, and a
transaction pooler delivers no notifications at all) and takes entries on every notification and every
SEGCITE_INBOX_SWEEP seconds, which covers notifications sent while it was reconnecting. Taking is one
transaction: `select … for update skip locked`, `send_task` each, delete them, commit; so takers in several
workers never take one entry twice, and a crash between the send and the commit leaves a duplicate task, which
the idempotent tasks absorb. With SEGCITE_STORE=supabase and no usable database connection it polls the
service-role RPCs instead (a claim with a lease, then a confirmation). Errors never reach the worker: the taker
logs one line and tries again with backoff.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from celery import bootsteps

from worker.app import ROUTES
from worker.embedded import resolve_services
from worker.settings import Settings, load_settings

log = logging.getLogger(__name__)

CHANNEL = "segcite_inbox"
APPLICATION_NAME = "segcite-inbox"  # how the taker's connection shows in pg_stat_activity
BATCH = 100  # entries per transaction (per RPC when polling)
LEASE_SECONDS = 60  # how long a polled claim hides its entries from other takers
POLL_INTERVAL = 1.0  # seconds between two polls at most: the polling taker is at most ~2 s behind
DIRECT_RETRY = 60.0  # seconds of polling before a supabase-store taker tries a database connection again
MAX_BACKOFF = 30.0
# Notice a database that went away without closing the connection (a dead host, a network partition).
_KEEPALIVE = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3, "keepalives_count": 3}
_TAKE = (
    "select task, target from segcite_inbox where claimed_until is null or claimed_until < now() "
    "order by created_at limit %s for update skip locked"
)
_DELETE = "delete from segcite_inbox i using unnest(%s::text[], %s::uuid[]) as t(task, target) " + (
    "where i.task = t.task and i.target = t.target"
)

Send = Callable[[str, str], None]  # (Celery task name, the row's id)


def celery_sender(app: Any) -> Send:
    """Enqueue `segcite.<task>(target)` on its queue (worker.app.ROUTES)."""

    def send(name: str, target: str) -> None:
        app.send_task(name, args=[target], queue=ROUTES[name])

    return send


def take(conn: psycopg.Connection, send: Send, batch: int = BATCH) -> int:
    """Enqueue and delete every entry nobody else holds, a transaction per batch; returns how many. An error
    (the broker down) rolls the batch back: its entries wait for the next try."""
    taken = 0
    while True:
        with conn.transaction():
            rows = conn.execute(_TAKE, (batch,)).fetchall()
            for task, target in rows:
                send(f"segcite.{task}", str(target))
            if rows:
                conn.execute(_DELETE, ([r[0] for r in rows], [r[1] for r in rows]))
        taken += len(rows)
        if len(rows) < batch:
            return taken


def poll(store: Any, send: Send, batch: int = BATCH) -> int:
    """One round through the service-role RPCs (`SupabaseStore.claim_inbox` / `finish_inbox`): claim, enqueue,
    confirm, until a claim comes back short; returns how many were enqueued. An entry whose send failed is not
    confirmed: its lease runs out and it is taken again."""
    taken = 0
    while True:
        entries = store.claim_inbox(batch, LEASE_SECONDS)
        sent: list[dict[str, Any]] = []
        try:
            for entry in entries:
                send(f"segcite.{entry['task']}", str(entry["target"]))
                sent.append(entry)
        finally:
            if sent:
                store.finish_inbox(sent)
        taken += len(sent)
        if len(entries) < batch:
            return taken


class Taker:
    """The loop behind the bootstep, in a thread: listen and sweep, or poll; reconnect with backoff."""

    def __init__(self, settings: Settings, send: Send, stopping: threading.Event):
        self.settings = settings
        self.send = send
        self.stopping = stopping
        self.listening = False  # connected and listening now

    def database_url(self) -> str | None:
        if self.settings.segcite_inbox_database_url:
            return self.settings.segcite_inbox_database_url
        try:
            return resolve_services(self.settings, start=False).database_url
        except Exception:  # no DATABASE_URL and no embedded PostgreSQL running: none to use
            return None

    def run(self) -> None:
        backoff = 1.0
        while not self.stopping.is_set():
            self.listening = False
            try:
                self.listen()
            except Exception as exc:
                if self.listening:  # it was working: a new outage starts with a short wait again
                    backoff = 1.0
                if self.settings.segcite_store == "supabase":
                    log.info("inbox: no database connection (%s); polling through Supabase's RPCs", _line(exc))
                    if self.poll_for(DIRECT_RETRY):
                        backoff = 1.0
                        continue
                log.warning("inbox: %s; trying again in %g s", _line(exc), backoff)
                self.stopping.wait(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)

    def listen(self) -> None:
        """LISTEN and take until stopped, or the connection fails (raises)."""
        url = self.database_url()
        if url is None:
            raise ConnectionError("no database configured (DATABASE_URL)")
        with psycopg.connect(
            url, autocommit=True, connect_timeout=10, application_name=APPLICATION_NAME, **_KEEPALIVE
        ) as conn:
            conn.execute(f"listen {CHANNEL}")
            self.listening = True
            sweep = self.settings.segcite_inbox_sweep
            while not self.stopping.is_set():
                taken = take(conn, self.send)
                if taken:
                    log.info("inbox: enqueued %d task(s)", taken)
                for _ in conn.notifies(timeout=sweep, stop_after=1):
                    pass

    def poll_for(self, seconds: float) -> bool:
        """Poll for `seconds` (or until stopped); False if the RPCs failed."""
        from worker.stores import make_store

        store = make_store(self.settings, "", max_size=1)
        deadline = time.monotonic() + seconds
        try:
            while not self.stopping.is_set() and time.monotonic() < deadline:
                taken = poll(store, self.send)
                if taken:
                    log.info("inbox: enqueued %d task(s)", taken)
                self.stopping.wait(min(POLL_INTERVAL, self.settings.segcite_inbox_sweep))
            return True
        except Exception as exc:
            log.warning("inbox: polling Supabase failed: %s", _line(exc))
            return False
        finally:
            store.close()


def _line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


class InboxTaker(bootsteps.StartStopStep):
    """A consumer step: the taker's thread runs while the worker consumes (restarted with the consumer)."""

    def __init__(self, parent: Any, **kwargs: Any):
        super().__init__(parent, **kwargs)
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def start(self, parent: Any) -> None:
        self.stopping = threading.Event()
        taker = Taker(load_settings(), celery_sender(parent.app), self.stopping)
        self.thread = threading.Thread(target=taker.run, name="segcite-inbox", daemon=True)
        self.thread.start()

    def stop(self, parent: Any) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(10)
            self.thread = None

    shutdown = stop
