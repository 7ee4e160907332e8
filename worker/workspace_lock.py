"""One writer per workspace (design §4): ingests and deletes of a workspace hold a Redis lock.

A keeper thread renews the lock while the work runs, so a dead worker gives it up after SEGCITE_LOCK_TTL
seconds. The work calls `check()` before every write:
- the lock is lost for sure (it expired and another worker holds it now): the keeper logs it, and `check()`
  raises `LockLost`, so the work stops and its task retries from the start, under the lock again;
- the lock could not be renewed for a whole TTL (Redis unreachable): whether it is still ours is unknown, so
  `check()` waits (writes nothing) until the keeper knows: renewed, the work goes on; taken, LockLost; still
  unknown after `UNSURE_WAIT`, LockLost too. Stopping at once would ask Celery to schedule a retry through
  the very broker that is down, and a retry that cannot be sent loses the task.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from redis.exceptions import LockError

from worker.errors import LockBusy, LockLost
from worker.redis_state import workspace_lock_key

log = logging.getLogger(__name__)
UNSURE_WAIT = 120.0  # seconds `check()` waits for Redis to tell whether the lock is still ours
# Seconds between two tries of a lock another ingest holds. The next document of a workspace waits for the one being
# written: redis-py's 0.1 s left it idle 50 ms a document on average (a document of 100 segments takes 0.3 s).
POLL = 0.01


class WorkspaceLock:
    def __init__(self, client: redis.Redis, workspace_id: str, ttl: int):
        self.workspace_id = workspace_id
        self.ttl = ttl
        self._lock = client.lock(
            workspace_lock_key(workspace_id),
            timeout=ttl,
            sleep=POLL,
            blocking_timeout=min(30, ttl * 2),
            thread_local=False,
        )
        self._released = threading.Event()
        self._changed = threading.Condition()
        self._lost: str | None = None
        self._unsure = False  # not renewed for a whole TTL: maybe expired
        self._keeper = threading.Thread(target=self._keep, name="segcite-lock-keeper", daemon=True)

    def __enter__(self) -> WorkspaceLock:
        if not self._lock.acquire():
            raise LockBusy(f"workspace {self.workspace_id} is busy with another ingest or delete")
        self._keeper.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._released.set()
        self._keeper.join(5)
        if self._lost is not None:
            return  # never release a lock that may be someone else's now
        try:
            self._lock.release()
        except LockError:  # expired at the very end: nothing of ours to free
            log.warning("workspace %s: the lock had expired by the time the work ended", self.workspace_id)
        except redis.RedisError as exc:  # Redis unreachable: the lock expires on its own after its TTL
            log.warning("workspace %s: could not release the lock (%s); it expires on its own", self.workspace_id, exc)

    def check(self) -> None:
        """Return if the lock is ours; raise LockLost if it is not. Call it before every write."""
        with self._changed:
            if self._unsure and self._lost is None:
                self._changed.wait_for(lambda: not self._unsure or self._lost is not None, timeout=UNSURE_WAIT)
                if self._unsure and self._lost is None:
                    self._lost = f"Redis could not tell for {UNSURE_WAIT:.0f} s whether it is still ours"
            if self._lost is not None:
                raise LockLost(f"lost the write lock of workspace {self.workspace_id}: {self._lost}; will retry")

    def _keep(self) -> None:
        renewed = time.monotonic()
        while not self._released.wait(self.ttl / 3):
            try:
                self._lock.reacquire()
            except LockError:
                self._set(lost="it expired and another worker holds it now")
                return
            except redis.RedisError as exc:  # keep trying: Redis will tell once it is back
                if time.monotonic() - renewed >= self.ttl and not self._unsure:
                    log.warning("workspace %s: cannot renew the write lock (%s); writes wait", self.workspace_id, exc)
                    self._set(unsure=True)
                continue
            renewed = time.monotonic()
            if self._unsure:
                log.info("workspace %s: the write lock is renewed; writes go on", self.workspace_id)
                self._set(unsure=False)

    def _set(self, *, unsure: bool | None = None, lost: str | None = None) -> None:
        with self._changed:
            if unsure is not None:
                self._unsure = unsure
            if lost is not None:
                self._lost = lost
                log.error(
                    "workspace %s: lost the write lock (%s); stopping before the next write", self.workspace_id, lost
                )
            self._changed.notify_all()
