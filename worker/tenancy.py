"""Keeps LightRAG's tables and the migration log closed to Supabase's Data API roles (design §2, §4).

The SQL is `segcite_secure_internal_tables()` in migrations/004_tenancy.sql; this module calls it where
such tables appear: after LightRAG creates its tables (the RAG store, on first use of a workspace) and
after every `migrate`. It fails closed: without the function the database is either not migrated or has a
forged migration log, and LightRAG must not write documents into tables anyone may read.
"""

from __future__ import annotations

import psycopg
from psycopg.errors import InsufficientPrivilege, UndefinedFunction

from worker.errors import PermanentError

SECURE = "select segcite_secure_internal_tables()"


class TenancyError(PermanentError):
    """The internal tables could not be closed; the message says what to do."""


def secure_internal_tables(conn: psycopg.Connection) -> int:
    """Close every internal table present; returns how many needed it. `conn` is in autocommit mode."""
    try:
        return conn.execute(SECURE).fetchone()[0]
    except (UndefinedFunction, InsufficientPrivilege) as exc:
        raise _explain(exc) from None


async def secure_internal_tables_async(conn: psycopg.AsyncConnection) -> int:
    """`secure_internal_tables` on an async connection (the RAG store's event loop)."""
    try:
        return (await (await conn.execute(SECURE)).fetchone())[0]
    except (UndefinedFunction, InsufficientPrivilege) as exc:
        raise _explain(exc) from None


def _explain(exc: psycopg.Error) -> TenancyError:
    if isinstance(exc, UndefinedFunction):
        return TenancyError(
            "the database lacks segcite_secure_internal_tables(): run `segcite db migrate`; if segcite_migrations "
            "already lists 004_tenancy.sql, that row was not written by segcite: delete it, then migrate"
        )
    return TenancyError(f"cannot close LightRAG's tables to the Data API roles ({exc}); connect as their owner")
