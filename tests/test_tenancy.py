"""Tenancy on a Supabase-like database (design §2, §4; issue 15): the real pipeline runs for two workspaces,
then the Data API roles read and write what they can. `anon` gets nothing; a member of one workspace reads
that workspace's app rows and nothing else: not the other workspace, not LightRAG's tables, not the
migration log, not the other workspace's Realtime broadcasts. No API role writes anything beyond what
migrations/008_app_access.sql lets a member write (tests/test_app_access.py). Every test runs under both of
Supabase's grant regimes (the `grants` fixture)."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import psycopg
import pytest
from conftest import WorkerProcess, service_env
from conftest import wait_for as wait_until
from docai_synth import PageSpec, build_document
from supabase_like import as_role, make_supabase_like

from worker.app import make_celery
from worker.app_actions import DOCUMENT_DONE, MESSAGE_DONE, wait_for
from worker.embedded import Services, start_redis, stop_redis
from worker.migrate import apply_migrations
from worker.objects import LocalFolderStore
from worker.rag import workspace_name
from worker.settings import Settings
from worker.stores.postgres import PostgresStore
from worker.tenancy import TenancyError, secure_internal_tables

SOLAR = [
    PageSpec(
        ["Harbor Point solar farm generated 61.4 gigawatt hours of electricity in 2025.", "It covers 42 hectares."]
    )
]
VAULT = [PageSpec(["The Quillfeather vault stores 88 kilograms of saffron.", "Its code word is zephyrine."])]
ALL_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER"
# What migrations/008_app_access.sql and 017_conversation_scope.sql let `authenticated` execute: the browser RPCs and
# what their policies call.
MEMBER_FUNCTIONS = {
    "segcite_ask(uuid,text,uuid[])",
    "segcite_delete_document(uuid)",
    "segcite_document_key_allowed(uuid,text)",
    "segcite_document_key_prefix(uuid)",
    "segcite_new_conversation(uuid,text,uuid[])",
    "segcite_require_scope(uuid[])",
    "segcite_own_question(uuid,uuid)",
    "segcite_register_document(uuid,text,text,text)",
    "segcite_require_member(uuid,text)",
}


@dataclass
class Workspace:
    id: str
    member: str  # a user id with a workspace_members row
    document_id: str
    segment_count: int
    conversation_id: str
    message_ids: list[str]
    secret_words: list[str]  # words only this workspace's document holds

    @property
    def claims(self) -> str:
        return orjson.dumps({"sub": self.member, "role": "authenticated"}).decode()

    @property
    def topics(self) -> set[str]:
        return {f"workspace:{self.id}", f"conversation:{self.conversation_id}"}

    def identifiers(self) -> list[str]:
        """Strings no other tenant may ever see."""
        return [self.id, self.document_id, self.conversation_id, *self.message_ids, *self.secret_words]


@dataclass
class Tenants:
    database_url: str
    grants: str
    a: Workspace
    b: Workspace


class Pipeline:
    """A Redis and a Celery worker of this module's own, on the Supabase-like database (the session's worker
    serves the session's database)."""

    def __init__(self, services: Services, database_url: str, home: Path):
        self.app = make_celery(Settings(redis_url=services.redis_url, segcite_home=home))
        self.store = PostgresStore(database_url, max_size=2)
        self.objects = LocalFolderStore(home / "objects")  # the worker's SEGCITE_HOME/objects
        self.worker = WorkerProcess(service_env(services, home), home / "worker.log", concurrency=1)
        try:
            wait_until(self._pings, timeout=60, what=f"the worker (log {self.worker.log})", interval=0.5)
        except AssertionError:
            self.close()
            raise

    def _pings(self) -> bool:
        try:
            return bool(self.app.send_task("segcite.ping").get(timeout=2))
        except Exception:
            return False

    def run(self, pages: list[PageSpec], question: str, secret_words: list[str]) -> Workspace:
        """What the app does: upload a document, wait for its ingest, ask one question, wait for the answer."""
        workspace, member, document_id = (str(uuid.uuid4()) for _ in range(3))
        key = f"docai/{document_id}.json"
        self.objects.put(key, orjson.dumps(build_document(pages)[0]))
        self.store.create_document(workspace, "report.json", key, document_id)
        self.app.send_task("segcite.ingest_document", args=[document_id])
        row = wait_for(lambda: self.store.get_document(document_id), lambda r: r.status in DOCUMENT_DONE, 120)
        assert row.status == "ingested", row.error
        conversation = self.store.create_conversation(workspace)
        user = self.store.create_message(conversation, "user", question)
        assistant = self.store.create_message(conversation, "assistant", "", reply_to=user.id)
        self.app.send_task("segcite.answer_message", args=[assistant.id])
        answer = wait_for(lambda: self.store.get_message(assistant.id), lambda m: m.status in MESSAGE_DONE, 60)
        assert answer.status == "done", answer.error
        assert any(word in answer.content for word in secret_words), answer.content
        with self.store.pool.connection() as conn:
            conn.execute("insert into workspace_members (workspace_id, user_id) values (%s, %s)", (workspace, member))
        return Workspace(
            workspace, member, document_id, row.segment_count, conversation, [user.id, assistant.id], secret_words
        )

    def close(self) -> None:
        self.worker.stop()
        self.store.close()


@pytest.fixture(scope="module")
def tenants(services: Services, supabase_like_database: str, grants: str) -> Iterator[Tenants]:
    home = Path(tempfile.mkdtemp(prefix="segcite-ten-", dir="/tmp"))  # short: unix socket paths are limited
    apply_migrations(supabase_like_database)
    pipeline = None
    try:
        pipeline = Pipeline(Services(start_redis(home), supabase_like_database), supabase_like_database, home)
        a = pipeline.run(SOLAR, "How much electricity did the solar farm generate in 2025?", ["61.4", "Harbor"])
        b = pipeline.run(VAULT, "How much saffron does the Quillfeather vault store?", ["Quillfeather", "saffron"])
        yield Tenants(supabase_like_database, grants, a, b)
    finally:
        if pipeline is not None:
            pipeline.close()
        stop_redis(home)
        shutil.rmtree(home, ignore_errors=True)


# Reading and writing as a Data API role ------------------------------------------------------------------


def relations(conn: psycopg.Connection, kinds: str = "rpvmfS") -> list[str]:
    """Every table, view, foreign table and sequence outside the system schemas, from the catalog."""
    rows = conn.execute(
        "select format('%%I.%%I', n.nspname, c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace "
        "where c.relkind = any(%s) and n.nspname not in ('pg_catalog', 'information_schema') "
        "and n.nspname not like 'pg\\_%%' order by 1",
        (list(kinds),),
    ).fetchall()
    return [r[0] for r in rows]


@dataclass
class Seen:
    rows: dict[str, list[str]] = field(default_factory=dict)  # relation -> its rows as JSON text
    denied: set[str] = field(default_factory=set)

    def text(self) -> str:
        return "\n".join(row for rows in self.rows.values() for row in rows)


def read_everything(database_url: str, role: str, claims: str | None = None, topic: str | None = None) -> Seen:
    seen = Seen()
    with psycopg.connect(database_url) as conn:
        names = relations(conn)
        as_role(conn, role, claims, topic)
        for name in names:
            try:
                with conn.transaction():
                    rows = conn.execute(f"select row_to_json(t)::text from {name} t").fetchall()
                seen.rows[name] = [r[0] for r in rows]
            except psycopg.errors.InsufficientPrivilege:
                seen.denied.add(name)
        conn.rollback()
    return seen


def first_column(conn: psycopg.Connection, name: str) -> str:
    return conn.execute(
        "select quote_ident(attname) from pg_attribute where attrelid = %s::regclass and attnum > 0 "
        "and not attisdropped and attgenerated = '' order by attnum limit 1",
        (name,),
    ).fetchone()[0]


def writes_that_got_through(database_url: str, role: str, claims: str | None = None) -> list[str]:
    """Try every kind of write on every table as `role`; each is rolled back. Returns those that wrote: a
    statement refused for lack of privilege (or by RLS, the same SQLSTATE) or touching no row did not."""
    wrote = []
    with psycopg.connect(database_url) as conn:
        names = relations(conn, "rp")
        statements = {name: statements_for(conn, name) for name in names}
        as_role(conn, role, claims)
        for name in names:
            for statement in statements[name]:
                try:
                    with conn.transaction():
                        cursor = conn.execute(statement)
                        if statement.startswith("truncate") or cursor.rowcount > 0:
                            wrote.append(statement)
                        raise psycopg.Rollback()
                except psycopg.errors.InsufficientPrivilege:
                    pass
                except psycopg.Error as exc:  # past the privilege and RLS checks: the role may write here
                    wrote.append(f"{statement} -> {type(exc).__name__}")
        conn.rollback()
    return wrote


def statements_for(conn: psycopg.Connection, name: str) -> list[str]:
    column = first_column(conn, name)
    return [
        f"insert into {name} default values",
        f"update {name} set {column} = {column}",
        f"delete from {name}",
        f"truncate {name} cascade",
    ]


# The pipeline's tables ---------------------------------------------------------------------------------


def internal_tables(conn: psycopg.Connection) -> list[str]:
    rows = conn.execute(
        "select c.relname from pg_class c where c.relkind in ('r', 'p') "
        "and (c.relname like 'lightrag\\_%' or c.relname = 'segcite_migrations') order by 1"
    ).fetchall()
    return [r[0] for r in rows]


def privileges(conn: psycopg.Connection, role: str, table: str) -> list[str]:
    kinds = [k.strip() for k in ALL_PRIVILEGES.split(",")]
    return [k for k in kinds if conn.execute("select has_table_privilege(%s, %s, %s)", (role, table, k)).fetchone()[0]]


def test_lightrag_tables_and_the_migration_log_are_closed_to_the_api_roles(tenants: Tenants) -> None:
    with psycopg.connect(tenants.database_url) as conn:
        tables = internal_tables(conn)
        # LightRAG created its tables on first use, after the migrations, and holds A's chunks in them.
        assert {"lightrag_doc_chunks", "lightrag_doc_full", "lightrag_doc_status", "segcite_migrations"} <= set(tables)
        assert any(t.startswith("lightrag_vdb_chunks") for t in tables), tables
        chunks = conn.execute(
            "select count(*) from lightrag_doc_chunks where workspace = %s and full_doc_id = %s",
            (workspace_name(tenants.a.id), tenants.a.document_id),
        ).fetchone()[0]
        assert chunks == tenants.a.segment_count
        for table in tables:
            rls = conn.execute("select relrowsecurity from pg_class where oid = %s::regclass", (table,)).fetchone()[0]
            policies = conn.execute("select count(*) from pg_policies where tablename = %s", (table,)).fetchone()[0]
            assert (table, rls, policies) == (table, True, 0)
            assert privileges(conn, "anon", table) == [], table
            assert privileges(conn, "authenticated", table) == [], table
            # The workers may connect as service_role, which bypasses RLS: where Supabase granted it these
            # tables, securing them leaves that alone (today's Supabase grants it nothing on new tables).
            expected = ["SELECT"] if tenants.grants == "legacy" else []
            assert [k for k in privileges(conn, "service_role", table) if k == "SELECT"] == expected, table


def test_anon_reads_no_row_of_any_table(tenants: Tenants) -> None:
    seen = read_everything(tenants.database_url, "anon")
    assert {name: rows for name, rows in seen.rows.items() if rows} == {}
    with psycopg.connect(tenants.database_url) as conn:
        public_tables = [n for n in relations(conn, "rp") if n.startswith("public.")]
    assert set(public_tables) <= seen.denied  # not even an empty read of a segcite or LightRAG table
    assert "public.documents" in public_tables and "public.lightrag_doc_chunks" in public_tables


@pytest.mark.parametrize("reader", ["a", "b"])
def test_a_member_reads_only_their_workspace(tenants: Tenants, reader: str) -> None:
    own, other = (tenants.a, tenants.b) if reader == "a" else (tenants.b, tenants.a)
    seen = read_everything(tenants.database_url, "authenticated", own.claims)
    leaked = [word for word in other.identifiers() if word in seen.text()]
    assert leaked == []
    # What the member does read is their own workspace, in full.
    counts = {name: len(seen.rows.get(f"public.{name}", [])) for name in ("documents", "conversations", "messages")}
    assert counts == {"documents": 1, "conversations": 1, "messages": 2}
    assert len(seen.rows["public.document_segments"]) == own.segment_count
    assert [orjson.loads(r)["user_id"] for r in seen.rows["public.workspace_members"]] == [own.member]
    assert own.secret_words[0] in seen.text()
    with psycopg.connect(tenants.database_url) as conn:
        internal = {f"public.{t}" for t in internal_tables(conn)}
        # The hash embedder's vectors (012_hash_vectors.sql) are there for both workspaces, and closed too.
        vectors = conn.execute("select count(distinct workspace_id) from segcite_hash_vectors").fetchone()[0]
    assert internal | {"public.segcite_hash_vectors"} <= seen.denied and vectors == 2


@pytest.mark.parametrize("role", ["anon", "authenticated"])
def test_no_api_role_writes_anywhere(tenants: Tenants, role: str) -> None:
    claims = tenants.a.claims if role == "authenticated" else None
    assert writes_that_got_through(tenants.database_url, role, claims) == []


@pytest.mark.parametrize("reader", ["a", "b"])
def test_a_member_receives_no_broadcast_of_another_workspace(tenants: Tenants, reader: str) -> None:
    """Realtime authorizes a private channel by reading `realtime.messages` of its topic as the user, with
    `realtime.topic` set to it (supabase/realtime, BroadcastPolicies)."""
    own, other = (tenants.a, tenants.b) if reader == "a" else (tenants.b, tenants.a)
    with psycopg.connect(tenants.database_url) as conn:
        sent = conn.execute("select topic, count(*) from realtime.messages group by 1").fetchall()
    # The worker broadcast every status change with realtime.send, on both workspaces' topics.
    assert {topic for topic, _ in sent} == own.topics | other.topics

    def receivable(topic: str) -> list[str]:
        with psycopg.connect(tenants.database_url) as conn:
            as_role(conn, "authenticated", own.claims, topic)
            rows = conn.execute("select distinct topic from realtime.messages order by 1").fetchall()
            conn.rollback()
        return [r[0] for r in rows]

    for topic in sorted(other.topics):
        assert receivable(topic) == [], topic
    for topic in sorted(own.topics):
        assert receivable(topic) == [topic]  # own channel: its own rows, never another topic's


# Migrations on their own -------------------------------------------------------------------------------


def test_migrate_takes_back_grants_given_after_it(fresh_database: str, grants: str) -> None:
    """A LightRAG table created later gets Supabase's default grants, and a tutorial's `grant all ... to anon`
    opens everything: the next `migrate` (every worker start) closes the internal tables again."""
    make_supabase_like(fresh_database, grants)
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute("create table lightrag_later (id text primary key, workspace text)")
        conn.execute("grant all on all tables in schema public to anon, authenticated")
        assert privileges(conn, "anon", "lightrag_later") == [k.strip() for k in ALL_PRIVILEGES.split(",")]
    assert apply_migrations(fresh_database) == []
    with psycopg.connect(fresh_database) as conn:
        for table in ("lightrag_later", "segcite_migrations"):
            assert privileges(conn, "anon", table) == [] and privileges(conn, "authenticated", table) == []
        assert conn.execute("select relrowsecurity from pg_class where relname = 'lightrag_later'").fetchone()[0]


def test_app_tables_are_select_only_for_members_and_closed_to_anon(fresh_database: str, grants: str) -> None:
    """Table-wide, members only read; what they may write is column grants and policies (test_app_access.py),
    and the only functions they may execute are 008's RPCs and the key rule its policy calls."""
    make_supabase_like(fresh_database, grants)
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database) as conn:
        app_tables = ("documents", "document_segments", "document_pages", "conversations", "messages")
        for table in (*app_tables, "workspace_members"):
            assert privileges(conn, "anon", table) == [], table
            assert privileges(conn, "authenticated", table) == ["SELECT"], table
        functions = conn.execute(
            "select p.oid::regprocedure::text from pg_proc p where p.proname like 'segcite\\_%' order by 1"
        ).fetchall()
        assert {"segcite_secure_internal_tables()", "segcite_touch_updated_at()"} <= {f[0] for f in functions}
        executable = {
            role: {
                f
                for (f,) in functions
                if conn.execute("select has_function_privilege(%s, %s, 'EXECUTE')", (role, f)).fetchone()[0]
            }
            for role in ("anon", "authenticated")
        }
    assert executable == {"anon": set(), "authenticated": MEMBER_FUNCTIONS}


def test_a_forged_log_entry_cannot_skip_the_tenancy_migration(fresh_database: str, grants: str) -> None:
    """Before this change `anon` could write segcite_migrations: a row naming the tenancy migration made
    `migrate` skip it and leave LightRAG's tables open. Now `migrate` stops with a line saying so."""
    make_supabase_like(fresh_database, grants)
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:  # back to the state before this change
        conn.execute("drop function segcite_secure_internal_tables()")
        conn.execute("delete from segcite_migrations where name = '004_tenancy.sql'")
        conn.execute("alter table segcite_migrations disable row level security")
        conn.execute("grant all on segcite_migrations to anon")
    with psycopg.connect(fresh_database) as conn:
        as_role(conn, "anon")
        conn.execute("insert into segcite_migrations (name, sha256) values ('004_tenancy.sql', 'forged')")
        conn.commit()
    with pytest.raises(TenancyError, match=r"segcite_migrations already lists 004_tenancy\.sql"):
        apply_migrations(fresh_database)


def test_securing_is_idempotent_and_harmless_on_plain_postgres(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute("create table lightrag_plain (id text primary key)")
        assert secure_internal_tables(conn) == 1  # the new table; the migration log was done by migrate
        assert secure_internal_tables(conn) == 0  # nothing left to do: no ALTER, no lock taken
        rls = conn.execute("select relrowsecurity from pg_class where relname = 'lightrag_plain'").fetchone()[0]
        assert rls is True
        assert conn.execute("select count(*) from pg_policies").fetchone()[0] == 0
        conn.execute("insert into lightrag_plain values ('x')")  # the owner still reads and writes
        assert conn.execute("select id from lightrag_plain").fetchall() == [("x",)]
