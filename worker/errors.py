"""The errors the tasks act on (design §7): transient ones are retried with backoff, permanent ones fail the
work at once with a message a user can act on. Adapters raise these at their boundary; the tasks know no
library's errors but through `transient_errors()`."""

from __future__ import annotations


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


def transient_errors() -> tuple[type[BaseException], ...]:
    """Library errors that mean "a service is down, restarting or slow" wherever they surface: a database or a
    broker restart shows up in psycopg's and redis' own types, from any adapter. Imported here, not with this
    module: a command line that only needs our own errors does not pay for loading redis."""
    import psycopg
    import redis

    return (
        TransientError,
        psycopg.OperationalError,
        psycopg.InterfaceError,
        redis.ConnectionError,
        redis.TimeoutError,
        ConnectionError,
        TimeoutError,
    )


def describe_transient(exc: BaseException) -> str:
    """A transient error as a user reads it once the retries are spent: our own errors say what failed; a
    library's is named by the service it comes from, with its own words kept for the operator
    (`the database did not answer (PoolTimeout: couldn't get a connection after 1.00 sec)`)."""
    import psycopg
    import redis

    if isinstance(exc, TransientError):
        return str(exc)
    if isinstance(exc, psycopg.Error):
        service = "the database"
    elif isinstance(exc, redis.RedisError):
        service = "Redis"
    else:
        service = "a service"
    return f"{service} did not answer ({type(exc).__name__}: {exc})"
