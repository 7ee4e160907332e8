"""The database is the inbox (design §11): rows written with plain SQL, no segcite code, start the work, through
the taker inside real worker processes; nothing lost, nothing twice.

Each test runs on a database and a Redis of its own, so no other worker (the session's) takes its entries.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson
import psycopg
import pytest
import respx
from conftest import WorkerProcess, free_port, new_database, pings, segcite, service_env, wait_for
from docai_synth import PageSpec, build_document
from openai_stub import FakeOpenAI

from worker.answers import EMPTY_WORKSPACE
from worker.app import make_celery
from worker.embedded import Services, start_redis, stop_redis
from worker.inbox import Taker, poll
from worker.migrate import apply_migrations
from worker.objects import LocalFolderStore
from worker.settings import Settings
from worker.stores.supabase import SupabaseStore

SENTENCES = ["The lighthouse was built in 1874 on the northern cape.", "Its lamp is visible for 22 nautical miles."]


@dataclass
class Inbox:
    """A database and a broker of the test's own, and the worker processes started on them."""

    home: Path
    database_url: str
    redis_url: str
    extra_env: dict[str, str] = field(default_factory=dict)
    workers: list[WorkerProcess] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        return service_env(
            Services(self.redis_url, self.database_url), self.home, SEGCITE_INBOX_SWEEP="0.5", **self.extra_env
        )

    def start_worker(self, concurrency: int = 2) -> WorkerProcess:
        worker = WorkerProcess(self.env, self.home / "worker.log", concurrency=concurrency)
        self.workers.append(worker)
        app = make_celery(Settings(redis_url=self.redis_url, segcite_home=self.home))
        wait_for(lambda: pings(app), timeout=90, what=f"a worker (log {worker.log})", interval=0.5)
        return worker

    def sql(self, query: str, *params: object) -> list[tuple]:
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            cursor = conn.execute(query, params or None)
            return cursor.fetchall() if cursor.description else []

    def document_status(self, document_id: str) -> str:
        return self.sql("select status from documents where id = %s", document_id)[0][0]

    def message(self, message_id: str) -> tuple[str, str]:
        return self.sql("select status, content from messages where id = %s", message_id)[0]

    def put_document(self, name: str, sentences: list[str] = SENTENCES) -> str:
        """The Document AI JSON in the workers' object store (what the app's upload puts in R2); its key."""
        key = f"docai/{uuid.uuid4()}/{name}"
        LocalFolderStore(self.home / "objects").put(key, orjson.dumps(build_document([PageSpec(sentences)])[0]))
        return key


@pytest.fixture
def inbox(services: Services) -> Iterator[Inbox]:
    home = Path(tempfile.mkdtemp(prefix="sc-inbox-", dir="/tmp"))
    with new_database(services) as database_url:
        apply_migrations(database_url)
        box = Inbox(home, database_url, start_redis(home))
        try:
            yield box
        finally:
            for worker in box.workers:
                worker.stop()
                # (pytest shows a test's teardown output only when it failed: the worker's side of a failure)
                print(f"--- {worker.log}, last lines:", *worker.log.read_text().splitlines()[-60:], sep="\n")
            stop_redis(home)
            shutil.rmtree(home, ignore_errors=True)


def insert_document(conn: psycopg.Connection, workspace: str, key: str, status: str = "uploaded") -> str:
    document_id = str(uuid.uuid4())
    conn.execute(
        "insert into documents (id, workspace_id, filename, docai_raw_r2_key, status) values (%s, %s, %s, %s, %s)",
        (document_id, workspace, "lighthouse.json", key, status),
    )
    return document_id


def insert_question(conn: psycopg.Connection, workspace: str, question: str) -> str:
    """What an Edge Function writes: a conversation, the user's question and a pending, empty reply."""
    conversation = conn.execute("insert into conversations (workspace_id) values (%s) returning id", (workspace,))
    conversation_id = conversation.fetchone()[0]
    user = conn.execute(
        "insert into messages (conversation_id, role, content, status) values (%s, 'user', %s, 'done') returning id",
        (conversation_id, question),
    ).fetchone()[0]
    return str(
        conn.execute(
            "insert into messages (conversation_id, role, reply_to) values (%s, 'assistant', %s) returning id",
            (conversation_id, user),
        ).fetchone()[0]
    )


def test_rows_written_with_plain_sql_are_ingested_answered_deleted_and_retried(inbox: Inbox) -> None:
    inbox.start_worker()
    workspace = str(uuid.uuid4())
    with psycopg.connect(inbox.database_url, autocommit=True) as conn:
        document = insert_document(conn, workspace, inbox.put_document("lighthouse.json"))
    wait_for(lambda: inbox.document_status(document) == "ingested", timeout=120, what="the ingest")
    assert inbox.sql("select count(*) > 0 from document_segments where document_id = %s", document) == [(True,)]

    with psycopg.connect(inbox.database_url, autocommit=True) as conn:
        answer = insert_question(conn, workspace, "When was the lighthouse built?")
    wait_for(lambda: inbox.message(answer)[0] == "done", timeout=120, what="the answer")
    [(context,)] = inbox.sql("select metadata->'context_ids' from messages where id = %s", answer)
    assert f"{document}:0" in context  # answered from the document ingested above

    inbox.sql("update documents set status = 'deleting' where id = %s", document)
    wait_for(lambda: inbox.document_status(document) == "deleted", timeout=120, what="the delete")
    assert inbox.sql("select count(*) from document_segments where document_id = %s", document) == [(0,)]

    # A document whose JSON is missing fails; once the app puts it there, setting `uploaded` again retries it.
    key = f"docai/{uuid.uuid4()}/late.json"
    with psycopg.connect(inbox.database_url, autocommit=True) as conn:
        late = insert_document(conn, workspace, key)
    wait_for(lambda: inbox.document_status(late) == "failed", timeout=120, what="the ingest to fail")
    LocalFolderStore(inbox.home / "objects").put(key, orjson.dumps(build_document([PageSpec(SENTENCES)])[0]))
    inbox.sql("update documents set status = 'uploaded', error = null where id = %s", late)
    wait_for(lambda: inbox.document_status(late) == "ingested", timeout=120, what="the retried ingest")
    assert inbox.sql("select count(*) from segcite_inbox") == [(0,)]


def test_rows_committed_while_no_worker_runs_are_served_once_one_starts(inbox: Inbox) -> None:
    workspace = str(uuid.uuid4())
    with psycopg.connect(inbox.database_url) as conn:  # one transaction, as an Edge Function's
        document = insert_document(conn, workspace, inbox.put_document("lighthouse.json"))
        answer = insert_question(conn, workspace, "How far is the lamp visible?")
    waiting = inbox.sql("select task, target::text from segcite_inbox order by task")
    assert waiting == [("answer_message", answer), ("ingest_document", document)]

    inbox.start_worker()
    wait_for(lambda: inbox.document_status(document) == "ingested", timeout=120, what="the ingest")
    wait_for(lambda: inbox.message(answer)[0] == "done", timeout=120, what="the answer")
    assert inbox.sql("select count(*) from segcite_inbox") == [(0,)]


def test_a_rolled_back_insert_leaves_no_entry_and_starts_nothing(inbox: Inbox) -> None:
    worker = inbox.start_worker()
    workspace = str(uuid.uuid4())
    with psycopg.connect(inbox.database_url) as conn:
        rolled_back = insert_question(conn, workspace, "Is anyone there?")
        assert conn.execute("select count(*) from segcite_inbox").fetchone() == (1,)  # seen inside only
        conn.rollback()
    assert inbox.sql("select count(*) from segcite_inbox") == [(0,)]
    with psycopg.connect(inbox.database_url, autocommit=True) as conn:
        committed = insert_question(conn, workspace, "Is the lamp visible?")
    # The workspace holds no document: the committed question is answered by saying so (`failed`, with why).
    wait_for(lambda: inbox.message(committed)[0] == "failed", timeout=120, what="the committed question's answer")
    assert inbox.sql("select error from messages where id = %s", committed) == [(EMPTY_WORKSPACE,)]
    log = worker.log.read_text()
    assert committed in log  # each task's result names its message
    assert rolled_back not in log


def test_four_workers_answer_forty_questions_of_one_transaction_with_forty_model_calls(inbox: Inbox) -> None:
    fake = FakeOpenAI()
    try:
        inbox.extra_env.update(
            SEGCITE_LLM_PROVIDER="openai", OPENAI_BASE_URL=fake.url, OPENAI_API_KEY="sk-test-0000000000"
        )
        workspace = str(uuid.uuid4())
        with psycopg.connect(inbox.database_url, autocommit=True) as conn:
            document = insert_document(conn, workspace, inbox.put_document("lighthouse.json"))
        for _ in range(4):
            inbox.start_worker(concurrency=1)
        wait_for(lambda: inbox.document_status(document) == "ingested", timeout=120, what="the ingest")

        with psycopg.connect(inbox.database_url) as conn:
            answers = [insert_question(conn, workspace, f"Question {n} about the lighthouse?") for n in range(40)]
        # Work entering twice (an entry enqueued again after a taker crashed) still costs one model call.
        app = make_celery(Settings(redis_url=inbox.redis_url, segcite_home=inbox.home))
        for message_id in answers[:5]:
            app.send_task("segcite.answer_message", args=[message_id])

        wait_for(
            lambda: all(inbox.message(m)[0] == "done" for m in answers), timeout=300, what="40 answers", interval=0.5
        )
        time.sleep(1.0)  # a duplicate task still running would call the model now
        chats = [body for path, body in fake.requests if path.endswith("/chat/completions")]
        assert len(chats) == 40
        prompts = [orjson.dumps(body["messages"]).decode() for body in chats]
        assert [sum(f"Question {n} about" in p for p in prompts) for n in range(40)] == [1] * 40  # each once
        assert inbox.sql("select count(*) from segcite_inbox") == [(0,)]
    finally:
        fake.server.shutdown()


def test_ingest_with_redis_unreachable_records_the_work_and_says_so(inbox: Inbox, tmp_path: Path) -> None:
    """No broker is needed to enqueue (the row's trigger does it); the CLI honours --timeout, names Redis with
    its password masked, and says where the upload stands. A worker started later serves it."""
    path = tmp_path / "lighthouse.json"
    path.write_bytes(orjson.dumps(build_document([PageSpec(SENTENCES)])[0]))
    closed = f"redis://:hunter2-secret@127.0.0.1:{free_port()}/0"
    env = {**inbox.env, "REDIS_URL": closed}
    masked = closed.replace("hunter2-secret", "****")

    result = segcite(env, "ingest", str(path), "--workspace", "offline", "--timeout", "2", timeout=60)
    assert (result.returncode, result.stdout) == (1, "")
    assert "hunter2-secret" not in result.stderr
    progress, line = result.stderr.splitlines()
    assert progress == "lighthouse.json: waiting for a worker"
    assert line.startswith("error: lighthouse.json: not ingested after 2 s (recorded in the inbox; no worker has ")
    assert "taken it yet (1 waiting): " in line
    assert f"Redis at {masked} cannot be reached (" in line

    again = segcite(env, "ingest", str(path), "--workspace", "offline", "--timeout", "1", timeout=60)
    assert again.returncode == 1
    first, *_, last = again.stderr.splitlines()
    assert first.startswith("lighthouse.json: same content as document ") and first.endswith(
        "waiting to be ingested: following it"
    )
    assert "recorded in the inbox; no worker has taken it yet (1 waiting)" in last  # still true: no second entry

    status = segcite(env, "status", timeout=60)
    assert status.returncode == 1
    lines = status.stdout.splitlines()
    assert lines[0].startswith(f"redis: cannot reach {masked} (")
    assert "database: reachable (PostgreSQL)" in lines
    assert any(line.startswith("inbox: 1 waiting, oldest ") for line in lines)
    assert any(line.startswith("inbox ingest_document: 1 waiting, oldest ") for line in lines)
    assert lines[-1] == "workers: unknown (Redis cannot be reached)"

    inbox.start_worker()
    [(document,)] = inbox.sql("select id::text from documents")
    wait_for(lambda: inbox.document_status(document) == "ingested", timeout=120, what="the recorded ingest")
    served = segcite(inbox.env, "status", timeout=60)
    assert served.returncode == 0, served.stderr
    assert served.stdout.splitlines()[1:] == [
        "database: reachable (PostgreSQL)",
        "inbox: 0 waiting",
        "workers: 1 answering a ping",
    ]


def test_the_inbox_functions_claim_confirm_and_count(fresh_database: str) -> None:
    """The service-role RPCs the polling taker calls, on a real database: a claim hides its entries for the
    lease, a confirmation deletes only what the claim still holds, and a newer transition releases a claim."""
    apply_migrations(fresh_database)
    workspace = str(uuid.uuid4())
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        first = insert_document(conn, workspace, "docai/a.json")
        second = insert_document(conn, workspace, "docai/b.json")
        claimed = conn.execute("select task, target::text, claimed_until from segcite_inbox_claim(1, 60)").fetchall()
        assert [(task, target) for task, target, _ in claimed] == [("ingest_document", first)]  # oldest first
        again = conn.execute("select task, target::text, claimed_until from segcite_inbox_claim(10, 60)").fetchall()
        assert [(task, target) for task, target, _ in again] == [("ingest_document", second)]  # first is held
        assert conn.execute("select count(*) from segcite_inbox_claim(10, 60)").fetchone() == (0,)
        stats = conn.execute("select task, waiting from segcite_inbox_stats()").fetchall()
        assert stats == [("ingest_document", 2)]
        assert conn.execute("select segcite_inbox_holds('ingest_document', %s)", (first,)).fetchone() == (True,)

        # The document is retried while its entry is claimed: the claim is released, the confirmation keeps it.
        conn.execute("update documents set status = 'failed' where id = %s", (first,))
        conn.execute("update documents set status = 'uploaded' where id = %s", (first,))
        [(_, _, first_stamp)], [(_, _, second_stamp)] = claimed, again
        done = conn.execute(
            "select segcite_inbox_done(%s, %s, %s)",
            (["ingest_document", "ingest_document"], [first, second], [first_stamp, second_stamp]),
        ).fetchone()
        assert done == (1,)
        left = conn.execute("select task, target::text, claimed_until from segcite_inbox").fetchall()
        assert left == [("ingest_document", first, None)]

        # A lease that ran out (its taker died) is claimed again.
        conn.execute("update segcite_inbox set claimed_until = now() - interval '1 second'")
        assert conn.execute("select target::text from segcite_inbox_claim(10, 60)").fetchall() == [(first,)]


def test_the_polling_taker_claims_enqueues_and_confirms_through_the_rpcs(tmp_path: Path) -> None:
    """The path for a worker with only SUPABASE_URL and the service key. PostgREST cannot run here, so its
    answers are mocked with respx (the SQL behind them is tested above on a real database)."""
    url, key = "https://project.supabase.co", "service-role-key-0123456789"
    settings = Settings(
        segcite_store="supabase",
        supabase_url=url,
        supabase_service_role_key=key,
        segcite_home=tmp_path,
        database_url=None,  # nothing to LISTEN on: the taker polls
    )
    entries = [
        {"task": "ingest_document", "target": str(uuid.uuid4()), "claimed_until": "2026-11-25T15:00:01.5+00:00"},
        {"task": "answer_message", "target": str(uuid.uuid4()), "claimed_until": "2026-11-25T15:00:01.5+00:00"},
    ]
    sent: list[tuple[str, str]] = []
    with respx.mock(assert_all_called=False) as mock:
        claim = mock.post(f"{url}/rest/v1/rpc/segcite_inbox_claim").mock(
            side_effect=[httpx.Response(200, json=entries)] + [httpx.Response(200, json=[])] * 1000
        )
        done = mock.post(f"{url}/rest/v1/rpc/segcite_inbox_done").mock(return_value=httpx.Response(200, json=2))

        store = SupabaseStore(settings)
        assert poll(store, lambda name, target: sent.append((name, target))) == 2
        assert sent == [(f"segcite.{e['task']}", e["target"]) for e in entries]
        assert orjson.loads(claim.calls[0].request.content) == {"p_limit": 100, "p_lease_seconds": 60}
        assert orjson.loads(done.calls.last.request.content) == {
            "p_tasks": ["ingest_document", "answer_message"],
            "p_targets": [e["target"] for e in entries],
            "p_claimed_until": [e["claimed_until"] for e in entries],
        }

        # A send that fails is not confirmed: its lease runs out and it is claimed again.
        claim.side_effect = [httpx.Response(200, json=entries)]

        def broker_down(name: str, target: str) -> None:
            if name == "segcite.answer_message":
                raise ConnectionError("broker down")
            sent.append((name, target))

        with pytest.raises(ConnectionError):
            poll(store, broker_down)
        assert orjson.loads(done.calls.last.request.content)["p_targets"] == [entries[0]["target"]]
        store.close()

        # The taker itself, with no database to LISTEN on, polls on its own.
        claim.side_effect = [httpx.Response(200, json=entries[:1])] + [httpx.Response(200, json=[])] * 1000
        sent.clear()
        stopping = threading.Event()
        taker = Taker(settings, lambda name, target: sent.append((name, target)), stopping)
        thread = threading.Thread(target=taker.run, daemon=True)
        thread.start()
        try:
            wait_for(lambda: sent, timeout=30, what="the polling taker")
            wait_for(lambda: claim.call_count >= 3, timeout=30, what="the taker to poll again")
        finally:
            stopping.set()
            thread.join(10)
        assert sent == [("segcite.ingest_document", entries[0]["target"])]
        assert not thread.is_alive()


def test_the_taker_reconnects_when_its_connection_is_cut_and_takes_what_came_meanwhile(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    settings = Settings(segcite_inbox_database_url=fresh_database, segcite_inbox_sweep=0.5)
    sent: list[tuple[str, str]] = []
    stopping = threading.Event()
    taker = Taker(settings, lambda name, target: sent.append((name, target)), stopping)
    thread = threading.Thread(target=taker.run, daemon=True)
    thread.start()
    try:
        workspace = str(uuid.uuid4())
        with psycopg.connect(fresh_database, autocommit=True) as conn:
            first = insert_document(conn, workspace, "docai/a.json")
            wait_for(lambda: sent == [("segcite.ingest_document", first)], timeout=30, what="the first entry")
            cut = conn.execute(
                "select pg_terminate_backend(pid) from pg_stat_activity "
                "where application_name = 'segcite-inbox' and datname = current_database()"
            ).fetchall()
            assert cut == [(True,)]
            second = insert_document(conn, workspace, "docai/b.json")  # while the taker is away
            wait_for(lambda: len(sent) == 2, timeout=30, what="the taker to come back")
            assert sent[1] == ("segcite.ingest_document", second)
            # sent inside the taking transaction: its entry goes when that commits
            wait_for(
                lambda: conn.execute("select count(*) from segcite_inbox").fetchone() == (0,),
                timeout=30,
                what="the entry to leave the inbox",
            )
        assert len(sent) == 2  # nothing sent twice
    finally:
        stopping.set()
        thread.join(10)
    assert not thread.is_alive()
