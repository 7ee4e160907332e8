"""migrations/014_parse.sql: the `parsing` status and `source_r2_key`, idempotent, on plain PostgreSQL and on a
database made to look like Supabase under both grant regimes (members still register a PDF as they register
JSON, through 008's RPC, and may not write `source_r2_key` themselves)."""

from __future__ import annotations

import uuid

import orjson
import psycopg
import pytest
from supabase_like import as_role

from worker.migrate import MIGRATIONS_DIR, apply_migrations

PARSE = MIGRATIONS_DIR / "014_parse.sql"


def shape(conn: psycopg.Connection) -> tuple:
    """What 014 makes: the status constraint, and the new column's definition."""
    return conn.execute(
        "select (select pg_get_constraintdef(oid) from pg_constraint where conname = 'documents_status_check'), "
        "(select string_agg(data_type || is_nullable, ',') from information_schema.columns "
        " where table_name = 'documents' and column_name = 'source_r2_key')"
    ).fetchone()


def test_014_applies_twice_more_without_change_and_takes_a_parsing_row(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        before = shape(conn)
        conn.execute(PARSE.read_text(encoding="utf-8"))
        conn.execute(PARSE.read_text(encoding="utf-8"))
        assert shape(conn) == before
        assert "'parsing'" in before[0] and before[1] == "textYES"
        workspace = str(uuid.uuid4())
        row = conn.execute(
            "insert into documents (workspace_id, filename, docai_raw_r2_key, source_r2_key, status) "
            "values (%s, 'scan.pdf', %s, %s, 'parsing') returning status, source_r2_key",
            (workspace, f"{workspace}/scan.pdf.docai/", f"{workspace}/scan.pdf"),
        ).fetchone()
        assert row == ("parsing", f"{workspace}/scan.pdf")
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "insert into documents (workspace_id, filename, status) values (%s, 'x.pdf', 'reading')", (workspace,)
            )


def test_a_member_registers_a_pdf_as_json_and_cannot_write_its_source_key(supabase_like_database: str) -> None:
    apply_migrations(supabase_like_database)
    workspace, alice = str(uuid.uuid4()), str(uuid.uuid4())
    with psycopg.connect(supabase_like_database, autocommit=True) as owner:
        owner.execute("insert into workspace_members (workspace_id, user_id) values (%s, %s)", (workspace, alice))
    claims = orjson.dumps({"sub": alice, "role": "authenticated"}).decode()
    with psycopg.connect(supabase_like_database) as conn:
        as_role(conn, "authenticated", claims)
        document = conn.execute(
            "select segcite_register_document(%s, 'scan.pdf', %s, %s)",
            (workspace, f"{workspace}/uploads/scan.pdf", "ab" * 32),
        ).fetchone()[0]
        conn.commit()
    with psycopg.connect(supabase_like_database) as conn:
        as_role(conn, "authenticated", claims)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "insert into documents (workspace_id, filename, docai_raw_r2_key, source_r2_key, created_by) "
                "values (%s, 'b.pdf', %s, %s, %s)",
                (workspace, f"{workspace}/b.pdf", "elsewhere/secret.pdf", alice),
            )
    with psycopg.connect(supabase_like_database) as owner:
        row = owner.execute("select status, docai_raw_r2_key, source_r2_key from documents where id = %s", (document,))
        assert row.fetchone() == ("uploaded", f"{workspace}/uploads/scan.pdf", None)
        inbox = owner.execute("select task from segcite_inbox where target = %s", (document,)).fetchall()
        assert inbox == [("ingest_document",)]  # the same inbox path as JSON: the worker knows a PDF by its bytes


def test_015_counts_no_segments_for_documents_deleted_before_it(fresh_database: str) -> None:
    """Issue 34: a deleted document shows 0 segments; 015 clears the count of those deleted before deletes wrote 0,
    leaves every other row alone, starts no work, and changes nothing when run again."""
    apply_migrations(fresh_database)
    cleared = (MIGRATIONS_DIR / "015_deleted_counts.sql").read_text(encoding="utf-8")
    workspace = str(uuid.uuid4())
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        for status in ("deleted", "ingested"):
            conn.execute(
                "insert into documents (workspace_id, filename, docai_raw_r2_key, status, segment_count) "
                "values (%s, %s, 'k', %s, 9)",
                (workspace, f"{status}.json", status),
            )
        entries = conn.execute("select count(*) from segcite_inbox").fetchone()[0]
        conn.execute(cleared)
        counts = "select filename, segment_count from documents where workspace_id = %s order by filename"
        assert conn.execute(counts, (workspace,)).fetchall() == [("deleted.json", 0), ("ingested.json", 9)]
        conn.execute(cleared)
        assert conn.execute(counts, (workspace,)).fetchall() == [("deleted.json", 0), ("ingested.json", 9)]
        assert conn.execute("select count(*) from segcite_inbox").fetchone()[0] == entries
