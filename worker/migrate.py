"""Apply `migrations/*.sql` in order, once each, recorded in `segcite_migrations`; or, for the commands that only
need the schema to be there, find it current by reading that log (`ensure_migrated`)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import psycopg

from worker.tenancy import secure_internal_tables


def _migrations_dir() -> Path:
    """The checkout's migrations/ (an editable install, a clone), else where a wheel installed them."""
    beside = Path(__file__).resolve().parent.parent / "migrations"
    return beside if beside.is_dir() else Path(sys.prefix) / "share" / "segcite" / "migrations"


MIGRATIONS_DIR = _migrations_dir()
# Any constant works; it only has to be the same for every process that migrates.
_ADVISORY_LOCK_KEY = 0x5E6C17E


def migration_files(folder: Path = MIGRATIONS_DIR) -> list[Path]:
    files = sorted(folder.glob("*.sql"))
    if not files:
        raise FileNotFoundError(f"no migrations found in {folder}")
    return files


def missing_migrations(database_url: str, folder: Path = MIGRATIONS_DIR) -> list[str]:
    """The shipped migrations the database's log does not list, found by reading it: no DDL, no lock an ingest can
    meet (a `create table if not exists` or `segcite_secure_internal_tables()`'s advisory lock and ALTERs would)."""
    shipped = [path.name for path in migration_files(folder)]
    with psycopg.connect(database_url, autocommit=True) as conn:
        if conn.execute("select to_regclass('segcite_migrations')").fetchone()[0] is None:
            return shipped
        applied = {name for (name,) in conn.execute("select name from segcite_migrations")}
    return [name for name in shipped if name not in applied]


def ensure_migrated(database_url: str, folder: Path = MIGRATIONS_DIR) -> list[str]:
    """What every command that reads or writes rows runs first: a read of the migration log, and the migrations
    applied only when one is missing (a fresh database, an upgraded segcite). `segcite db migrate` and a worker's
    start apply them (and close LightRAG's tables) every time."""
    if not missing_migrations(database_url, folder):
        return []
    return apply_migrations(database_url, folder)


def apply_migrations(database_url: str, folder: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the migrations not applied yet; returns their names. Safe to run concurrently and twice."""
    applied_now: list[str] = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "create table if not exists segcite_migrations ("
            " name text primary key, sha256 text not null, applied_at timestamptz not null default now())"
        )
        applied = {name for (name,) in conn.execute("select name from segcite_migrations")}
        for path in migration_files(folder):
            if path.name in applied:
                continue  # the usual case on every command: one query, no lock
            sql = path.read_text(encoding="utf-8")
            with conn.transaction():
                # Serializes concurrent `migrate` runs (several workers starting at once).
                conn.execute("select pg_advisory_xact_lock(%s)", (_ADVISORY_LOCK_KEY,))
                done = conn.execute("select 1 from segcite_migrations where name = %s", (path.name,)).fetchone()
                if done:
                    continue
                conn.execute(sql)  # no parameters: psycopg sends the whole script in one simple query
                conn.execute(
                    "insert into segcite_migrations (name, sha256) values (%s, %s)",
                    (path.name, hashlib.sha256(sql.encode()).hexdigest()),
                )
            applied_now.append(path.name)
        secure_internal_tables(conn)  # every run: tables LightRAG made since, grants someone gave since
    return applied_now
