"""One writer per workspace (design §4): ingests and deletes of a workspace hold a Redis lock.

A keeper thread renews the lock while the work runs, so a dead worker gives it up after SEGCITE_LOCK_TTL
seconds. If the lock is lost anyway (it expired while Redis was unreachable, or another worker holds it now),
the keeper says so in the log and `check()` raises `LockLost` before the next write: the work stops and its
task retries from the start, under the lock again.
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


class WorkspaceLock:
    def __init__(self, client: redis.Redis, workspace_id: str, ttl: int):
        self.workspace_id = workspace_id
        self.ttl = ttl
        self._lock = client.lock(
            workspace_lock_key(workspace_id), timeout=ttl, blocking_timeout=min(30, ttl * 2), thread_local=False
        )
        self._released = threading.Event()
        self._lost: str | None = None
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
        """Raise LockLost if the lock is no longer ours: call it before every write."""
        if self._lost is not None:
            raise LockLost(f"lost the write lock of workspace {self.workspace_id}: {self._lost}; will retry")

    def _keep(self) -> None:
        renewed = time.monotonic()
        while not self._released.wait(self.ttl / 3):
            try:
                self._lock.reacquire()
                renewed = time.monotonic()
            except LockError:
                self._lose("it expired and another worker holds it now")
                return
            except redis.RedisError as exc:  # keep trying until the lock may have expired meanwhile
                if time.monotonic() - renewed >= self.ttl:
                    self._lose(f"it could not be renewed for {self.ttl} s ({exc})")
                    return

    def _lose(self, why: str) -> None:
        self._lost = why
        log.error("workspace %s: lost the write lock (%s); stopping before the next write", self.workspace_id, why)
