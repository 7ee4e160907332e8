"""The errors the tasks act on (design §7): transient ones are retried with backoff, permanent ones fail the
work at once with a message a user can act on. Adapters raise these at their boundary; the tasks know no
library's errors but through `TRANSIENT_ERRORS`."""

from __future__ import annotations

import psycopg
import redis


class TransientError(RuntimeError):
    """Worth retrying: a network error, a 5xx, a timeout, a busy or lost lock."""


class PermanentError(RuntimeError):
    """Retrying will not help; the message says what to fix."""


class MissingObject(PermanentError):
    """The Document AI JSON a document points at is not in the object store."""


class LockBusy(TransientError):
    """Another worker is writing this workspace; try again shortly."""


class LockLost(TransientError):
    """This worker's workspace lock expired and may be held by another: stop writing, retry from the start."""


# Library errors that mean "a service is down, restarting or slow" wherever they surface: a database or a
# broker restart shows up in psycopg's and redis' own types, from any adapter. Kept by their names in the
# messages users see (`gave up after 2 retries: PoolTimeout: …`).
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    TransientError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    redis.ConnectionError,
    redis.TimeoutError,
    ConnectionError,
    TimeoutError,
)
