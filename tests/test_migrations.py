import psycopg
import pytest
from psycopg.types.json import Jsonb

from worker.migrate import MIGRATIONS_DIR, apply_migrations, migration_files

EXPECTED_COLUMNS = {
    "documents": {
        "id",
        "workspace_id",
        "filename",
        "status",
        "docai_raw_r2_key",
        "page_count",
        "segment_count",
        "error",
        "progress",
        "content_hash",
        "created_by",
        "created_at",
        "updated_at",
    },
    "document_segments": {
        "document_id",
        "segment_index",
        "workspace_id",
        "page_idx",
        "kind",
        "text",
        "char_start",
        "char_end",
        "bbox",
        "lines",
    },
    "conversations": {"id", "workspace_id", "created_by", "document_ids"},
    "messages": {
        "id",
        "conversation_id",
        "role",
        "reply_to",
        "content",
        "status",
        "metadata",
        "error",
        "created_by",
        "created_at",
        "updated_at",
        "document_ids",
    },
}


def columns(conn: psycopg.Connection, table: str) -> set[str]:
    rows = conn.execute(
        "select column_name from information_schema.columns where table_schema='public' and table_name=%s",
        (table,),
    ).fetchall()
    return {r[0] for r in rows}


def schema_snapshot(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute(
        "select table_name, column_name, data_type, is_nullable, column_default "
        "from information_schema.columns where table_schema='public' order by 1, 2"
    ).fetchall()


def test_migrations_apply_twice_without_change(fresh_database: str) -> None:
    first = apply_migrations(fresh_database)
    assert first == [p.name for p in migration_files()]
    with psycopg.connect(fresh_database) as conn:
        before = schema_snapshot(conn)
    assert apply_migrations(fresh_database) == []
    with psycopg.connect(fresh_database) as conn:
        assert schema_snapshot(conn) == before
        assert conn.execute("select count(*) from segcite_migrations").fetchone()[0] == len(first)
        for table, expected in EXPECTED_COLUMNS.items():
            assert expected <= columns(conn, table), table


def test_constraints_of_the_data_model(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        doc = conn.execute(
            "insert into documents (workspace_id, filename) values (gen_random_uuid(), 'a.json') "
            "returning id, status, progress"
        ).fetchone()
        assert doc[1] == "uploaded" and doc[2] == 0
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("update documents set status = 'bogus' where id = %s", (doc[0],))
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("update documents set progress = 1.5 where id = %s", (doc[0],))
        insert_segment = (
            "insert into document_segments (document_id, segment_index, workspace_id, page_idx, kind, text) "
            "select id, 0, workspace_id, 0, 'paragraph', 'Hello world' from documents where id = %s"
        )
        conn.execute(insert_segment, (doc[0],))
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(insert_segment, (doc[0],))
        found = conn.execute(
            "select segment_index from document_segments where tsv @@ plainto_tsquery('simple', 'hello')"
        ).fetchall()
        assert found == [(0,)]
        # Segments go with their document.
        conn.execute("delete from documents where id = %s", (doc[0],))
        assert conn.execute("select count(*) from document_segments").fetchone()[0] == 0

        conv = conn.execute("insert into conversations (workspace_id) values (gen_random_uuid()) returning id")
        conv_id = conv.fetchone()[0]
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("insert into messages (conversation_id, role) values (%s, 'system')", (conv_id,))
        msg = conn.execute(
            "insert into messages (conversation_id, role, content) values (%s, 'user', 'hi') "
            "returning id, status, metadata, updated_at",
            (conv_id,),
        ).fetchone()
        assert msg[1] == "pending" and msg[2] == {}
        updated = conn.execute(
            "update messages set status = 'done' where id = %s returning updated_at", (msg[0],)
        ).fetchone()
        assert updated[0] >= msg[3]


def test_a_workspace_holds_one_live_document_per_content_hash(fresh_database: str) -> None:
    """migrations/006_content_hash.sql: the same bytes twice in a workspace are refused unless one is deleted;
    rows without a hash (older ones, or an app that sets none) are never compared."""
    apply_migrations(fresh_database)
    insert = "insert into documents (workspace_id, filename, content_hash) values (%s, %s, %s) returning id"
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        workspace, other = conn.execute("select gen_random_uuid(), gen_random_uuid()").fetchone()
        first = conn.execute(insert, (workspace, "a.json", "abc")).fetchone()[0]
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(insert, (workspace, "copy.json", "abc"))
        conn.execute(insert, (other, "a.json", "abc"))
        conn.execute(insert, (workspace, "x.json", None))
        conn.execute(insert, (workspace, "y.json", None))
        conn.execute("update documents set status = 'deleted' where id = %s", (first,))
        conn.execute(insert, (workspace, "a.json", "abc"))
        counts = conn.execute(
            "select workspace_id = %s, status, count(*) from documents group by 1, 2 order by 1, 2", (workspace,)
        ).fetchall()
    assert counts == [(False, "uploaded", 1), (True, "deleted", 1), (True, "uploaded", 3)]


def test_supabase_parts_apply_where_supabase_pieces_exist(fresh_database: str) -> None:
    """Stand-ins for Supabase's `authenticated` role, `auth.uid()`, realtime schema and publication."""
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute(
            """
            do $$ begin
                if not exists (select 1 from pg_roles where rolname = 'authenticated') then
                    create role authenticated nologin;
                end if;
            end $$;
            create schema auth;
            create function auth.uid() returns uuid language sql stable as $f$ select null::uuid $f$;
            create schema realtime;
            create table realtime.messages (topic text, payload jsonb);
            create function realtime.topic() returns text language sql stable as $f$ select ''::text $f$;
            create publication supabase_realtime;
            """
        )
    apply_migrations(fresh_database)
    apply_migrations(fresh_database)  # still idempotent with the guarded parts active
    with psycopg.connect(fresh_database) as conn:
        policies = conn.execute("select schemaname, tablename, policyname from pg_policies order by 1, 2").fetchall()
        published = conn.execute(
            "select tablename from pg_publication_tables where pubname = 'supabase_realtime' order by 1"
        ).fetchall()
        rls = conn.execute(
            "select relname from pg_class where relrowsecurity and relnamespace = 'public'::regnamespace order by 1"
        ).fetchall()
    assert ("public", "documents", "workspace members") in policies
    assert ("public", "messages", "workspace members") in policies
    assert ("public", "workspace_members", "members read own") in policies
    assert ("realtime", "messages", "segcite members receive") in policies
    # What members may write (008_app_access.sql; tests/test_app_access.py).
    assert ("public", "conversations", "members open conversations") in policies
    assert ("public", "messages", "members ask") in policies
    assert ("public", "documents", "members register documents") in policies
    assert ("public", "documents", "members delete documents") in policies
    assert ("public", "document_pages", "workspace members") in policies  # 011_page_images.sql
    assert len(policies) == 11
    assert published == [("documents",), ("messages",)]
    assert [r[0] for r in rls] == [
        "conversations",
        "document_pages",  # page images (011_page_images.sql): members read their workspace's
        "document_segments",
        "documents",
        "messages",
        "segcite_hash_vectors",  # the hash embedder's vectors (012_hash_vectors.sql): RLS with no policy, internal
        "segcite_inbox",  # the inbox (007_inbox.sql): RLS with no policy, only the workers take from it
        "segcite_migrations",  # the log too: RLS with no policy (004_tenancy.sql)
        "segcite_term_stats",  # search statistics (010_search_scale.sql): RLS with no policy, internal
        "segcite_workspace_stats",
        "workspace_members",
    ]


def test_plain_postgres_gets_rls_but_no_policies(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database) as conn:
        assert conn.execute("select count(*) from pg_policies where schemaname='public'").fetchone()[0] == 0
        assert conn.execute("select relrowsecurity from pg_class where relname='documents'").fetchone()[0]


def kind_check(conn: psycopg.Connection) -> str:
    return conn.execute(
        "select pg_get_constraintdef(oid) from pg_constraint where conname = 'document_segments_kind_check'"
    ).fetchone()[0]


def test_segment_lines_and_kinds_migration_applies_twice(fresh_database: str) -> None:
    """003 on a migrated database: run as a file twice more (then 009, which widens its list of kinds), the schema
    does not change."""
    apply_migrations(fresh_database)
    sql = (MIGRATIONS_DIR / "003_segment_lines_kinds.sql").read_text(encoding="utf-8")
    fields = (MIGRATIONS_DIR / "009_field_kind.sql").read_text(encoding="utf-8")
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        before, check = schema_snapshot(conn), kind_check(conn)
        conn.execute(sql)
        conn.execute(sql)
        conn.execute(fields)
        assert schema_snapshot(conn) == before
        assert kind_check(conn) == check
        assert "'footer'" in check and "'header'" in check and "'paragraph'" in check
        assert conn.execute(
            "select data_type, is_nullable from information_schema.columns "
            "where table_name = 'document_segments' and column_name = 'lines'"
        ).fetchone() == ("jsonb", "YES")


def test_field_kind_migration_applies_twice_and_stores_fields(fresh_database: str) -> None:
    """009: segments of kind `field` (design §3 "Fields") are stored; run twice more, nothing changes."""
    apply_migrations(fresh_database)
    sql = (MIGRATIONS_DIR / "009_field_kind.sql").read_text(encoding="utf-8")
    lines = [
        {"start": 0, "end": 9, "bbox": {"x0": 0.6, "y0": 0.55, "x1": 0.7, "y1": 0.57}},
        {"start": 11, "end": 20, "bbox": {"x0": 0.85, "y0": 0.55, "x1": 0.92, "y1": 0.57}},
    ]
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        before, check = schema_snapshot(conn), kind_check(conn)
        conn.execute(sql)
        conn.execute(sql)
        assert schema_snapshot(conn) == before and kind_check(conn) == check
        assert "'field'" in check and "'footer'" in check
        doc_id, workspace = conn.execute(
            "insert into documents (workspace_id, filename) values (gen_random_uuid(), 'a.json') "
            "returning id, workspace_id"
        ).fetchone()
        conn.execute(
            "insert into document_segments (document_id, segment_index, workspace_id, page_idx, kind, text, lines) "
            "values (%s, 0, %s, 0, 'field', 'Tax (10%%): $1,767.97', %s)",
            (doc_id, workspace, Jsonb(lines)),
        )
        row = conn.execute("select kind, text, lines from document_segments where document_id = %s", (doc_id,))
        assert row.fetchone() == ("field", "Tax (10%): $1,767.97", lines)


def test_footer_segment_with_lines_is_stored(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    lines = [{"start": 0, "end": 11, "bbox": {"x0": 0.1, "y0": 0.95, "x1": 0.3, "y1": 0.97}}]
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        doc_id, workspace = conn.execute(
            "insert into documents (workspace_id, filename) values (gen_random_uuid(), 'a.json') "
            "returning id, workspace_id"
        ).fetchone()
        insert = (
            "insert into document_segments (document_id, segment_index, workspace_id, page_idx, kind, text, lines) "
            "values (%s, %s, %s, 0, %s, %s, %s)"
        )
        conn.execute(insert, (doc_id, 0, workspace, "footer", "Page 1 of 2", Jsonb(lines)))
        conn.execute(insert, (doc_id, 1, workspace, "header", "ANNUAL REPORT", None))
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(insert, (doc_id, 2, workspace, "sidebar", "x", None))
        rows = conn.execute(
            "select segment_index, kind, lines from document_segments where document_id = %s order by 1", (doc_id,)
        ).fetchall()
    assert rows == [(0, "footer", lines), (1, "header", None)]
