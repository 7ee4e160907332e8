"""Everything segcite keeps in Redis, under `segcite:*`: workspace locks, computed answers waiting to be
published, the delivery counts behind the redelivery cap, whose turn it is to reconcile, the Document AI request
budget, and which shards of a parse are stored. No other module spells a key."""

from __future__ import annotations

from typing import Any

import orjson
import redis

WEEK = 7 * 24 * 3600


def workspace_lock_key(workspace_id: str) -> str:
    return f"segcite:lock:workspace:{workspace_id}"


def parse_rate_key(project: str) -> str:
    """The Document AI request budget of one Google Cloud project (worker/parsing/ratelimit.py)."""
    return f"segcite:docai-rate:{project}"


class ParseProgress:
    """Which shards of a document's parse are stored: the shard tasks run in parallel, and the one that completes
    the set finishes the parse (once: `claim_finish`). Kept a week; cleared when a parse starts."""

    def __init__(self, client: redis.Redis):
        self.client = client

    @staticmethod
    def key(document_id: str) -> str:
        return f"segcite:parse:{document_id}"

    def start(self, document_id: str, done: list[int]) -> None:
        key = self.key(document_id)
        with self.client.pipeline() as pipe:
            pipe.delete(key, key + ":finish")
            if done:
                pipe.sadd(key, *done)
            pipe.expire(key, WEEK)
            pipe.execute()

    def shard_done(self, document_id: str, index: int) -> int:
        """Record one stored shard; returns how many are stored."""
        key = self.key(document_id)
        with self.client.pipeline() as pipe:
            pipe.sadd(key, index)
            pipe.expire(key, WEEK)
            pipe.scard(key)
            return int(pipe.execute()[-1])

    def claim_finish(self, document_id: str, seconds: int) -> bool:
        """Whether this task finishes the parse (two shards completing the set at once: one does)."""
        return bool(self.client.set(self.key(document_id) + ":finish", 1, nx=True, ex=seconds))

    def release_finish(self, document_id: str) -> None:
        self.client.delete(self.key(document_id) + ":finish")


def claim_reconcile(client: redis.Redis, seconds: int) -> bool:
    """Whether this worker is the one to look for unfinished work in this period (one worker per period does)."""
    return bool(client.set("segcite:reconcile", 1, nx=True, ex=max(1, seconds - 1)))


class AnswerCache:
    """An answer computed and not yet published, so a failed publish is retried without asking the model again."""

    def __init__(self, client: redis.Redis):
        self.client = client

    @staticmethod
    def key(message_id: str) -> str:
        return f"segcite:answer:{message_id}"

    def get(self, message_id: str) -> dict[str, Any] | None:
        cached = self.client.get(self.key(message_id))
        return orjson.loads(cached) if cached else None

    def put(self, message_id: str, payload: dict[str, Any]) -> None:
        self.client.set(self.key(message_id), orjson.dumps(payload), ex=WEEK)

    def drop(self, message_id: str) -> None:
        self.client.delete(self.key(message_id))


class AnswerClaims:
    """Which task answers a message: one at a time, so one question costs one model call even when two tasks
    for it arrive (an inbox entry enqueued again after a crash, a retried message). A redelivery of the same
    task (its worker died) or a retry of it has the same task id and goes on; the claim expires with the hard
    time limit, after which reconcile's new task may take it."""

    def __init__(self, client: redis.Redis):
        self.client = client

    @staticmethod
    def key(message_id: str) -> str:
        return f"segcite:answering:{message_id}"

    def take(self, message_id: str, task_id: str, seconds: int) -> bool:
        """True if `task_id` may answer: it took the claim now, or held it already."""
        key = self.key(message_id)
        if self.client.set(key, task_id, nx=True, ex=seconds):
            return True
        return self.client.get(key) == task_id.encode()

    def release(self, message_id: str) -> None:
        self.client.delete(self.key(message_id))


class StreamMarks:
    """Which answers have started streaming: a redelivered answer streams again from `seq` 0, and says so
    (`restart: true`), so a client drops what it showed of the dead worker's stream."""

    def __init__(self, client: redis.Redis):
        self.client = client

    @staticmethod
    def key(message_id: str) -> str:
        return f"segcite:streaming:{message_id}"

    def start(self, message_id: str) -> bool:
        """Mark the stream of this answer as started; True if an earlier one had started already."""
        return not self.client.set(self.key(message_id), 1, nx=True, ex=WEEK)

    def end(self, message_id: str) -> None:
        self.client.delete(self.key(message_id))


class DeliveryCounter:
    """How many times work on one object started without finishing.

    A worker killed mid-task has its task redelivered (acks_late), and a poison input would kill every worker
    that takes it. A planned retry does not count; the same attempt delivered again (its worker died) does,
    retry or not."""

    def __init__(self, client: redis.Redis):
        self.client = client

    @staticmethod
    def key(kind: str, object_id: str) -> str:
        return f"segcite:deliveries:{kind}:{object_id}"

    def count(self, kind: str, object_id: str, task_id: str, retries: int) -> int:
        """Count this start of the work; returns the number of starts so far."""
        key = self.key(kind, object_id)
        first_start = self.client.set(f"segcite:started:{task_id}:{retries}", 1, nx=True, ex=WEEK)
        if first_start and retries:
            return int(self.client.get(key) or 1)
        count = int(self.client.incr(key))
        self.client.expire(key, WEEK)
        return count

    def forget(self, kind: str, object_id: str) -> None:
        self.client.delete(self.key(kind, object_id))
