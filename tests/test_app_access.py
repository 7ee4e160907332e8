"""What the app may write (migrations/008_app_access.sql; design §2, §11; issue 23 points 5 and 7), on a database
made to look like Supabase, under both of its grant regimes (the `grants` fixture: everything granted, as
older setups do; nothing, as every project since 2026-10-30).

A member acts as PostgREST makes it act: `set local role authenticated` with the JWT's claims in
`request.jwt.claims`. Each write is tried through the RPCs and by direct insert/update, as a member, as a
non-member and as `anon`; every refusal is checked for its SQLSTATE and for having written nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import orjson
import psycopg
import pytest
from psycopg.types.json import Jsonb
from supabase_like import as_role, make_supabase_like

from worker.migrate import MIGRATIONS_DIR, apply_migrations, migration_files

APP_ACCESS = MIGRATIONS_DIR / "008_app_access.sql"
MEMBER_RPCS = ("segcite_new_conversation", "segcite_ask", "segcite_register_document", "segcite_delete_document")
NOT_A_MEMBER = "is not in a workspace you are a member of"
QUESTION = "insert into messages (conversation_id, role, content, status) values (%s, 'user', %s, 'done')"


@dataclass
class App:
    url: str
    grants: str
    workspace: str  # alice's and carol's
    other: str  # bob's
    alice: str
    carol: str
    bob: str
    conversation: str  # in `workspace`
    other_conversation: str  # in `other`
    document: str  # in `workspace`
    other_document: str  # in `other`


@pytest.fixture(scope="module")
def app(supabase_like_database: str, grants: str) -> App:
    apply_migrations(supabase_like_database)
    workspace, other, alice, carol, bob = (str(uuid.uuid4()) for _ in range(5))
    with psycopg.connect(supabase_like_database, autocommit=True) as conn:
        conn.execute(
            "insert into workspace_members (workspace_id, user_id) values (%s, %s), (%s, %s), (%s, %s)",
            (workspace, alice, workspace, carol, other, bob),
        )
        conversation, other_conversation = (
            conn.execute("insert into conversations (workspace_id) values (%s) returning id", (w,)).fetchone()[0]
            for w in (workspace, other)
        )
        document, other_document = (
            conn.execute(
                "insert into documents (workspace_id, filename, docai_raw_r2_key, status) "
                "values (%s, 'a.json', %s, 'ingested') returning id",
                (w, f"{w}/a.json"),
            ).fetchone()[0]
            for w in (workspace, other)
        )
    return App(
        supabase_like_database,
        grants,
        workspace,
        other,
        alice,
        carol,
        bob,
        *map(str, (conversation, other_conversation, document, other_document)),
    )


def claims(user: str) -> str:
    return orjson.dumps({"sub": user, "role": "authenticated"}).decode()


@pytest.fixture
def owner(app: App) -> Iterator[psycopg.Connection]:
    """The workers' view (the tables' owner), to check what the roles' statements left behind."""
    with psycopg.connect(app.url, autocommit=True) as conn:
        yield conn


def run(app: App, user: str | None, statement: str, params: tuple = ()) -> list[tuple]:
    """One request as PostgREST makes it: `user` as `authenticated` (None: `anon`); committed if it succeeds."""
    with psycopg.connect(app.url) as conn:
        as_role(conn, "authenticated" if user else "anon", claims(user) if user else None)
        cursor = conn.execute(statement, params)
        rows = cursor.fetchall() if cursor.description else []
        conn.commit()
    return rows


def refused(app: App, user: str | None, statement: str, params: tuple = (), *, code: str = "42501") -> str:
    """Run a statement that must be refused with SQLSTATE `code`; returns the error's message."""
    with pytest.raises(psycopg.Error) as caught:
        run(app, user, statement, params)
    assert caught.value.sqlstate == code, caught.value
    return str(caught.value)


def counts(owner: psycopg.Connection) -> tuple[int, ...]:
    """Everything a refused write could have left: rows of every app table and inbox entries."""
    return owner.execute(
        "select (select count(*) from conversations), (select count(*) from messages), "
        "(select count(*) from documents), (select count(*) from segcite_inbox), "
        "(select string_agg(id::text || status, ',' order by id) from documents)"
    ).fetchone()


def inbox(owner: psycopg.Connection, target: str) -> list[str]:
    return [r[0] for r in owner.execute("select task from segcite_inbox where target = %s", (target,)).fetchall()]


def finish_answers(owner: psycopg.Connection) -> None:
    """What the workers do: answer every pending reply (so in-flight limits start from zero)."""
    owner.execute(
        "update messages set status = 'done' where role = 'assistant' and status in ('pending', 'processing')"
    )


# The RPCs ------------------------------------------------------------------------------------------------


def test_a_member_opens_a_conversation(app: App, owner: psycopg.Connection) -> None:
    [(created,)] = run(app, app.alice, "select segcite_new_conversation(%s, %s)", (app.workspace, "Budget"))
    row = owner.execute("select workspace_id, title, created_by from conversations where id = %s", (created,))
    assert row.fetchone() == (uuid.UUID(app.workspace), "Budget", uuid.UUID(app.alice))


def test_a_member_asks_and_the_inbox_records_the_answer_to_make(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    [(ids,)] = run(app, app.alice, "select segcite_ask(%s, %s)", (app.conversation, "What was spent in 2024?"))
    assert set(ids) == {"user_message_id", "assistant_message_id"}
    rows = owner.execute(
        "select id::text, role, content, status, reply_to::text, metadata, created_by::text from messages "
        "where id = any(%s::uuid[]) order by role desc",
        ([ids["user_message_id"], ids["assistant_message_id"]],),
    ).fetchall()
    assert rows == [
        (ids["user_message_id"], "user", "What was spent in 2024?", "done", None, {}, app.alice),
        (ids["assistant_message_id"], "assistant", "", "pending", ids["user_message_id"], {}, app.alice),
    ]
    assert inbox(owner, ids["assistant_message_id"]) == ["answer_message"]
    assert inbox(owner, ids["user_message_id"]) == []


def test_a_member_registers_a_document_under_its_workspace_prefix(app: App, owner: psycopg.Connection) -> None:
    key, digest = f"{app.workspace}/docai/report.json", uuid.uuid4().hex
    [(document,)] = run(
        app, app.alice, "select segcite_register_document(%s, %s, %s, %s)", (app.workspace, "report.pdf", key, digest)
    )
    row = owner.execute(
        "select workspace_id::text, filename, docai_raw_r2_key, content_hash, status, created_by::text "
        "from documents where id = %s",
        (document,),
    ).fetchone()
    assert row == (app.workspace, "report.pdf", key, digest, "uploaded", app.alice)
    assert inbox(owner, str(document)) == ["ingest_document"]
    # The same bytes again (006's one live document per content): the document that holds them.
    again = run(
        app, app.alice, "select segcite_register_document(%s, %s, %s, %s)", (app.workspace, "copy.pdf", key, digest)
    )
    assert again == [(document,)]
    assert owner.execute("select count(*) from documents where content_hash = %s", (digest,)).fetchone()[0] == 1


def test_a_member_marks_a_document_deleting(app: App, owner: psycopg.Connection) -> None:
    document = owner.execute(
        "insert into documents (workspace_id, docai_raw_r2_key, status) values (%s, %s, 'ingested') returning id::text",
        (app.workspace, f"{app.workspace}/d.json"),
    ).fetchone()[0]
    run(app, app.carol, "select segcite_delete_document(%s)", (document,))
    assert owner.execute("select status from documents where id = %s", (document,)).fetchone()[0] == "deleting"
    assert inbox(owner, document) == ["delete_document"]


@pytest.mark.parametrize(
    ("rpc", "args"),
    [
        ("segcite_new_conversation(%s, 'x')", lambda app: (app.other,)),
        ("segcite_ask(%s, 'What is the code word?')", lambda app: (app.other_conversation,)),
        ("segcite_register_document(%s, 'a.json', %s, null)", lambda app: (app.other, f"{app.other}/b.json")),
        ("segcite_delete_document(%s)", lambda app: (app.other_document,)),
    ],
    ids=MEMBER_RPCS,
)
def test_a_non_member_gets_42501_saying_so_and_anon_may_not_call(app, owner, rpc: str, args) -> None:
    before = counts(owner)
    message = refused(app, app.alice, f"select {rpc}", args(app))
    assert NOT_A_MEMBER in message
    assert "permission denied for function segcite_" in refused(app, None, f"select {rpc}", args(app))
    assert counts(owner) == before


def test_no_rpc_reaches_an_unknown_target(app: App, owner: psycopg.Connection) -> None:
    before = counts(owner)
    unknown = str(uuid.uuid4())
    assert NOT_A_MEMBER in refused(app, app.alice, "select segcite_ask(%s, 'hi?')", (unknown,))
    assert NOT_A_MEMBER in refused(app, app.alice, "select segcite_delete_document(%s)", (unknown,))
    assert NOT_A_MEMBER in refused(app, app.alice, "select segcite_new_conversation(null, 'x')")
    assert counts(owner) == before


@pytest.mark.parametrize(
    "key",
    [
        "{other}/a.json",  # another tenant's object
        "docai/a.json",  # outside any workspace
        "{workspace}",  # the prefix itself, no object
        "{workspace}/",
        "{workspace}/../{other}/a.json",  # climbing out on a file-backed store
        "x/{workspace}/a.json",
        None,
    ],
)
def test_a_key_outside_the_workspace_prefix_is_refused(app: App, owner: psycopg.Connection, key) -> None:
    key = key.format(workspace=app.workspace, other=app.other) if key else None
    before = counts(owner)
    message = refused(app, app.alice, "select segcite_register_document(%s, 'a.json', %s, null)", (app.workspace, key))
    assert f"docai_raw_r2_key must be an object under {app.workspace}/" in message
    refused(  # the direct insert meets the same rule, in its policy
        app,
        app.alice,
        "insert into documents (workspace_id, filename, docai_raw_r2_key) values (%s, 'a.json', %s)",
        (app.workspace, key),
    )
    assert counts(owner) == before


# Direct inserts and updates (supabase.from(...)) --------------------------------------------------------


def test_a_member_writes_the_same_rows_directly(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    [(conversation,)] = run(
        app,
        app.carol,
        "insert into conversations (workspace_id, title) values (%s, 'direct') returning id",
        (app.workspace,),
    )
    [(question,)] = run(
        app,
        app.carol,
        f"{QUESTION} returning id",
        (conversation, "Why?"),
    )
    [(reply,)] = run(
        app,
        app.carol,
        "insert into messages (conversation_id, role, reply_to) values (%s, 'assistant', %s) returning id",
        (conversation, question),
    )
    [(document,)] = run(
        app,
        app.carol,
        "insert into documents (workspace_id, filename, docai_raw_r2_key) values (%s, 'b.json', %s) returning id",
        (app.workspace, f"{app.workspace}/b.json"),
    )
    run(app, app.carol, "update documents set status = 'deleting' where id = %s", (document,))
    created_by = owner.execute(
        "select (select created_by::text from conversations where id = %s), "
        "(select array_agg(created_by::text) from messages where id in (%s, %s)), "
        "(select created_by::text || ':' || status from documents where id = %s)",
        (conversation, question, reply, document),
    ).fetchone()
    assert created_by == (app.carol, [app.carol, app.carol], f"{app.carol}:deleting")
    assert inbox(owner, str(reply)) == ["answer_message"]
    assert sorted(inbox(owner, str(document))) == ["delete_document", "ingest_document"]


def forgeries(app: App, question: str, carols_question: str, elsewhere_question: str) -> dict[str, tuple[str, tuple]]:
    """Each a write alice must not make: statement and parameters."""
    reply = "insert into messages (conversation_id, role, reply_to{cols}) values (%s, 'assistant', %s{vals})"
    return {
        "answer content": (reply.format(cols=", content", vals=", %s"), (app.conversation, question, "Forged [1].")),
        "answer metadata": (
            reply.format(cols=", metadata", vals=", %s"),
            (app.conversation, question, Jsonb({"citations": [{"document_id": app.other_document}]})),
        ),
        "answer status": (reply.format(cols=", status", vals=", 'done'"), (app.conversation, question)),
        "answer error": (reply.format(cols=", error", vals=", 'x'"), (app.conversation, question)),
        "reply to another's question": (reply.format(cols="", vals=""), (app.conversation, carols_question)),
        "reply across conversations": (reply.format(cols="", vals=""), (app.conversation, elsewhere_question)),
        "reply to nothing": (
            "insert into messages (conversation_id, role) values (%s, 'assistant')",
            (app.conversation,),
        ),
        "question with a reply_to": (
            "insert into messages (conversation_id, role, content, status, reply_to) "
            "values (%s, 'user', 'q', 'done', %s)",
            (app.conversation, question),
        ),
        "question as pending": (
            "insert into messages (conversation_id, role, content) values (%s, 'user', 'q')",
            (app.conversation,),
        ),
        "question in another name": (
            "insert into messages (conversation_id, role, content, status, created_by) "
            "values (%s, 'user', 'q', 'done', %s)",
            (app.conversation, app.carol),
        ),
        "question in another workspace": (
            "insert into messages (conversation_id, role, content, status) values (%s, 'user', 'q', 'done')",
            (app.other_conversation,),
        ),
        "message id chosen": (
            "insert into messages (id, conversation_id, role, content, status) values (%s, %s, 'user', 'q', 'done')",
            (str(uuid.uuid4()), app.conversation),
        ),
        "conversation in another workspace": ("insert into conversations (workspace_id) values (%s)", (app.other,)),
        "conversation in another name": (
            "insert into conversations (workspace_id, created_by) values (%s, %s)",
            (app.workspace, app.carol),
        ),
        "document in another workspace": (
            "insert into documents (workspace_id, docai_raw_r2_key) values (%s, %s)",
            (app.other, f"{app.other}/x.json"),
        ),
        "document already ingested": (
            "insert into documents (workspace_id, docai_raw_r2_key, status) values (%s, %s, 'ingested')",
            (app.workspace, f"{app.workspace}/x.json"),
        ),
        "document with counts": (
            "insert into documents (workspace_id, docai_raw_r2_key, segment_count) values (%s, %s, 3)",
            (app.workspace, f"{app.workspace}/x.json"),
        ),
        "document in another name": (
            "insert into documents (workspace_id, docai_raw_r2_key, created_by) values (%s, %s, %s)",
            (app.workspace, f"{app.workspace}/x.json", app.carol),
        ),
        "document status other than deleting": (
            "update documents set status = 'uploaded' where id = %s",
            (app.document,),
        ),
        "document key rewritten": (
            "update documents set docai_raw_r2_key = %s where id = %s",
            (f"{app.other}/a.json", app.document),
        ),
        "document moved": ("update documents set workspace_id = %s where id = %s", (app.other, app.document)),
        "document deleted outright": ("delete from documents where id = %s", (app.document,)),
        "answer rewritten": ("update messages set content = 'Forged.' where conversation_id = %s", (app.conversation,)),
        "message deleted": ("delete from messages where conversation_id = %s", (app.conversation,)),
        "membership added": (
            "insert into workspace_members (workspace_id, user_id) values (%s, %s)",
            (app.other, app.alice),
        ),
        "inbox entry": ("insert into segcite_inbox (task, target) values ('answer_message', %s)", (question,)),
    }


def test_every_forgery_is_refused_with_42501_and_writes_nothing(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    [(ids,)] = run(app, app.alice, "select segcite_ask(%s, 'Mine?')", (app.conversation,))
    [(carols,)] = run(app, app.carol, "select segcite_ask(%s, 'Hers?')", (app.conversation,))
    [(elsewhere_conversation,)] = run(app, app.alice, "select segcite_new_conversation(%s, 'b')", (app.workspace,))
    [(elsewhere,)] = run(app, app.alice, "select segcite_ask(%s, 'There?')", (elsewhere_conversation,))
    finish_answers(owner)
    cases = forgeries(app, ids["user_message_id"], carols["user_message_id"], elsewhere["user_message_id"])
    before = counts(owner)
    got_through = {}
    for name, (statement, params) in cases.items():
        for user in (app.alice, None):  # a member forging, and anon trying the same
            try:
                run(app, user, statement, params)
                got_through[f"{name} ({user or 'anon'})"] = "wrote"
            except psycopg.Error as exc:
                if exc.sqlstate != "42501":
                    got_through[f"{name} ({user or 'anon'})"] = f"{exc.sqlstate}: {exc}"
    assert got_through == {}
    assert counts(owner) == before
    assert owner.execute("select status from documents where id = %s", (app.document,)).fetchone()[0] == "ingested"


def test_an_update_of_another_workspace_touches_no_row(app: App, owner: psycopg.Connection) -> None:
    """RLS hides rows a member cannot update: the statement succeeds on zero rows."""
    with psycopg.connect(app.url) as conn:
        as_role(conn, "authenticated", claims(app.alice))
        cursor = conn.execute("update documents set status = 'deleting' where id = %s", (app.other_document,))
        assert cursor.rowcount == 0
        conn.commit()
    assert (
        owner.execute("select status from documents where id = %s", (app.other_document,)).fetchone()[0] == "ingested"
    )


# Limits ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["", "   \n", "x" * 8001])
def test_an_empty_or_over_long_question_is_refused(app: App, owner: psycopg.Connection, content: str) -> None:
    finish_answers(owner)
    before = counts(owner)
    message = refused(app, app.alice, "select segcite_ask(%s, %s)", (app.conversation, content), code="23514")
    assert "question_must_be_1_to_8000_characters" in message
    message = refused(
        app,
        app.alice,
        QUESTION,
        (app.conversation, content),
        code="23514",
    )
    assert "question_must_be_1_to_8000_characters" in message
    assert counts(owner) == before


def test_a_question_of_8000_characters_is_taken(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    [(ids,)] = run(app, app.alice, "select segcite_ask(%s, %s)", (app.conversation, "y" * 8000))
    assert owner.execute(
        "select length(content) from messages where id = %s", (ids["user_message_id"],)
    ).fetchone() == (8000,)


def test_a_sixth_question_in_flight_is_refused_by_both_paths(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    asked = [
        run(app, app.alice, "select segcite_ask(%s, %s)", (app.conversation, f"Question {i}?"))[0][0] for i in range(5)
    ]
    owner.execute(  # a worker took one: processing counts as in flight too
        "update messages set status = 'processing' where id = %s", (asked[0]["assistant_message_id"],)
    )
    before = counts(owner)
    message = refused(app, app.alice, "select segcite_ask(%s, 'Sixth?')", (app.conversation,), code="23514")
    assert "5 questions of yours are still being answered (at most 5 at a time)" in message
    refused(
        app,
        app.alice,
        QUESTION,
        (app.conversation, "Sixth?"),
        code="23514",
    )
    assert counts(owner) == before
    # Another member is not held back by alice's questions; alice asks again once one is answered.
    run(app, app.carol, "select segcite_ask(%s, 'Carol here?')", (app.conversation,))
    owner.execute("update messages set status = 'done' where id = %s", (asked[0]["assistant_message_id"],))
    run(app, app.alice, "select segcite_ask(%s, 'Sixth, now?')", (app.conversation,))
    finish_answers(owner)


def test_the_limit_counts_replies_added_to_earlier_questions(app: App, owner: psycopg.Connection) -> None:
    """Questions first, replies later: the sixth reply is refused (the reply is what makes an LLM call)."""
    finish_answers(owner)
    questions = [
        run(
            app,
            app.alice,
            f"{QUESTION} returning id",
            (app.conversation, f"Q{i}"),
        )[0][0]
        for i in range(6)
    ]
    reply = "insert into messages (conversation_id, role, reply_to) values (%s, 'assistant', %s)"
    for question in questions[:5]:
        run(app, app.alice, reply, (app.conversation, question))
    refused(app, app.alice, reply, (app.conversation, questions[5]), code="23514")
    finish_answers(owner)


# Chosen sources (migrations/017_conversation_scope.sql) ---------------------------------------------------


def scope_of(owner: psycopg.Connection, table: str, row_id: str) -> list[str] | None:
    found = owner.execute(f"select document_ids from {table} where id = %s", (row_id,)).fetchone()[0]
    return None if found is None else [str(d) for d in found]


def test_a_member_chooses_the_sources_of_a_conversation_and_of_a_question(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    [(conversation,)] = run(
        app, app.alice, "select segcite_new_conversation(%s, %s, %s::uuid[])", (app.workspace, "Scoped", [app.document])
    )
    assert scope_of(owner, "conversations", conversation) == [app.document]
    [(ids,)] = run(
        app, app.alice, "select segcite_ask(%s, %s, %s::uuid[])", (conversation, "What is the total?", [app.document])
    )
    assert scope_of(owner, "messages", ids["user_message_id"]) == [app.document]
    assert scope_of(owner, "messages", ids["assistant_message_id"]) is None
    assert inbox(owner, ids["assistant_message_id"]) == ["answer_message"]
    # the two-argument calls of 008 still work: no choice, the conversation's (or the workspace)
    [(ids,)] = run(app, app.alice, "select segcite_ask(%s, %s)", (conversation, "And the date?"))
    assert scope_of(owner, "messages", ids["user_message_id"]) is None
    # a direct insert names its sources the same way
    [(question,)] = run(
        app,
        app.carol,
        "insert into messages (conversation_id, role, content, status, document_ids) "
        "values (%s, 'user', 'Direct?', 'done', %s::uuid[]) returning id::text",
        (conversation, [app.document]),
    )
    assert scope_of(owner, "messages", question) == [app.document]
    finish_answers(owner)


def test_a_member_cannot_choose_a_document_of_a_workspace_it_is_not_in(app: App, owner: psycopg.Connection) -> None:
    finish_answers(owner)
    before = counts(owner)
    chosen = [app.document, app.other_document]
    message = refused(app, app.alice, "select segcite_new_conversation(%s, 'x', %s::uuid[])", (app.workspace, chosen))
    assert f"document {app.other_document} {NOT_A_MEMBER}" in message
    message = refused(app, app.alice, "select segcite_ask(%s, 'Total?', %s::uuid[])", (app.conversation, chosen))
    assert f"document {app.other_document} {NOT_A_MEMBER}" in message
    # directly: the trigger, reading as the member, finds no such document of the workspace
    refused(
        app,
        app.alice,
        "insert into conversations (workspace_id, document_ids) values (%s, %s::uuid[])",
        (app.workspace, chosen),
    )
    refused(
        app,
        app.alice,
        "insert into messages (conversation_id, role, content, status, document_ids) "
        "values (%s, 'user', 'Total?', 'done', %s::uuid[])",
        (app.conversation, chosen),
    )
    assert "permission denied for function segcite_" in refused(
        app, None, "select segcite_ask(%s, 'Total?', %s::uuid[])", (app.conversation, [app.document])
    )
    assert counts(owner) == before


def test_a_scope_naming_a_document_of_another_workspace_is_refused(app: App, owner: psycopg.Connection) -> None:
    """A member of both workspaces, and the workers' own writes (the owner): the document is not of this one."""
    finish_answers(owner)
    dave = str(uuid.uuid4())
    owner.execute(
        "insert into workspace_members (workspace_id, user_id) values (%s, %s), (%s, %s)",
        (app.workspace, dave, app.other, dave),
    )
    before = counts(owner)
    wrong = f"document {app.other_document} is not a document of workspace {app.workspace}"
    assert wrong in refused(
        app, dave, "select segcite_new_conversation(%s, 'x', %s::uuid[])", (app.workspace, [app.other_document])
    )
    assert wrong in refused(
        app, dave, "select segcite_ask(%s, 'Total?', %s::uuid[])", (app.conversation, [app.other_document])
    )
    with pytest.raises(psycopg.Error) as caught:
        owner.execute(
            "insert into conversations (workspace_id, document_ids) values (%s, %s::uuid[])",
            (app.workspace, [app.document, app.other_document]),
        )
    assert caught.value.sqlstate == "42501" and wrong in str(caught.value)
    with pytest.raises(psycopg.Error) as caught:  # a conversation moved to another workspace keeps its documents'
        owner.execute(
            "update conversations set document_ids = %s::uuid[] where id = %s", ([app.other_document], app.conversation)
        )
    assert caught.value.sqlstate == "42501"
    assert counts(owner) == before


@pytest.mark.parametrize(
    ("statement", "params"),
    [
        ("insert into conversations (workspace_id, document_ids) values (%s, '{}')", lambda app: (app.workspace,)),
        ("insert into conversations (workspace_id, document_ids) values (%s, '{null}')", lambda app: (app.workspace,)),
        (  # an answer has no sources of its own: its question has
            "insert into messages (conversation_id, role, document_ids) values (%s, 'assistant', %s::uuid[])",
            lambda app: (app.conversation, [app.document]),
        ),
    ],
    ids=["empty", "null", "assistant"],
)
def test_a_scope_is_1_to_1000_documents_of_a_question(app: App, owner: psycopg.Connection, statement, params) -> None:
    before = counts(owner)
    with pytest.raises(psycopg.Error) as caught:
        owner.execute(statement, params(app))
    assert caught.value.sqlstate == "23514" and "scope_must_name_1_to_1000_documents" in str(caught.value)
    assert counts(owner) == before


# Grants, under both regimes -----------------------------------------------------------------------------


def column_privileges(owner: psycopg.Connection, role: str, privilege: str) -> dict[str, list[str]]:
    rows = owner.execute(
        "select c.relname, a.attname from pg_class c join pg_attribute a on a.attrelid = c.oid "
        "where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped "
        "and has_column_privilege(%s, c.oid, a.attnum, %s) order by 1, 2",
        (role, privilege),
    ).fetchall()
    found: dict[str, list[str]] = {}
    for table, column in rows:
        found.setdefault(table, []).append(column)
    return found


def test_members_may_write_exactly_the_columns_the_policies_judge(app: App, owner: psycopg.Connection) -> None:
    assert column_privileges(owner, "authenticated", "INSERT") == {
        "conversations": ["created_by", "document_ids", "title", "workspace_id"],
        "documents": ["content_hash", "created_by", "docai_raw_r2_key", "filename", "workspace_id"],
        "messages": ["content", "conversation_id", "created_by", "document_ids", "reply_to", "role", "status"],
    }
    assert column_privileges(owner, "authenticated", "UPDATE") == {"documents": ["status"]}
    for privilege in ("SELECT", "INSERT", "UPDATE", "REFERENCES"):
        assert column_privileges(owner, "anon", privilege) == {}, privilege


def test_the_service_role_may_do_what_the_supabase_store_does(app: App, owner: psycopg.Connection) -> None:
    tables = ("workspace_members", "documents", "document_segments", "conversations", "messages", "segcite_inbox")
    for table in tables:
        for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE"):
            allowed = owner.execute("select has_table_privilege('service_role', %s, %s)", (table, privilege))
            assert allowed.fetchone()[0], (table, privilege)
    search = "segcite_search_segments(uuid,text[],integer,uuid[])"
    assert owner.execute("select has_function_privilege('service_role', %s, 'EXECUTE')", (search,)).fetchone()[0]


@pytest.mark.parametrize(
    ("call", "signature"),
    [
        ("segcite_search_segments(%s, array['code'], 12, null)", "(uuid,text[],integer,uuid[])"),
        ("segcite_search_candidates(%s, array['code'], 12, null)", "(uuid,text[],integer,uuid[])"),
        ("segcite_search_plan(%s, array['code'], 12, null)", "(uuid,text[],integer,uuid[])"),
        ("segcite_workspace_key(%s)", "(uuid)"),
        ("segcite_workspace_terms(%s, to_tsvector('simple', 'code'))", "(uuid,tsvector)"),
    ],
)
def test_the_search_s_functions_are_the_workers_alone(app: App, owner, call: str, signature: str) -> None:
    """Migrations 016 and 018: a member of the workspace, a non-member and anon are all refused (the search reads
    every segment of a workspace, past the row policies); the service role may call them."""
    for user in (app.alice, app.bob, None):
        assert "permission denied for function segcite_" in refused(app, user, f"select {call}", (app.workspace,))
    function = call.split("(", 1)[0] + signature
    assert owner.execute("select has_function_privilege('service_role', %s, 'EXECUTE')", (function,)).fetchone()[0]


def test_nobody_may_call_the_limit_trigger_function(app: App, owner: psycopg.Connection) -> None:
    function = "segcite_limit_questions_in_flight()"
    for role in ("anon", "authenticated", "service_role"):
        allowed = owner.execute("select has_function_privilege(%s, %s, 'EXECUTE')", (role, function))
        assert allowed.fetchone()[0] is False, role
    prosecdef = owner.execute("select prosecdef from pg_proc where oid = %s::regprocedure", (function,)).fetchone()
    assert prosecdef == (True,)


# Supabase's database linter (github.com/supabase/splinter, lints/ at 55db5b1f): the conditions of lints
# 0011_function_search_path_mutable.sql, 0028_anon_security_definer_function_executable.sql and
# 0029_authenticated_security_definer_function_executable.sql, written as our own queries.
_LINT_SKIPPED_SCHEMAS = [
    "_timescaledb_cache", "_timescaledb_catalog", "_timescaledb_config", "_timescaledb_internal", "auth", "cron",
    "extensions", "graphql", "graphql_public", "information_schema", "net", "pgmq", "pgroonga", "pgsodium",
    "pgsodium_masks", "pgtle", "pgbouncer", "pg_catalog", "realtime", "repack", "storage", "supabase_functions",
    "supabase_migrations", "tiger", "topology", "vault",
]  # fmt: skip

# 0011: any function (not an extension's) outside Supabase's own schemas without `search_path` in its config.
LINT_0011 = """
select format('%%I.%%s', n.nspname, p.oid::regprocedure)
from pg_proc p join pg_namespace n on n.oid = p.pronamespace
where n.nspname <> all(%(skipped)s)
  and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
  and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) as config where config like 'search_path=%%')
order by 1
"""
# 0028 / 0029: a SECURITY DEFINER function in an exposed schema (PostgREST's db_schemas) that the role may execute.
LINT_DEFINER_EXECUTABLE = """
select format('%%I.%%s', n.nspname, p.oid::regprocedure)
from pg_proc p join pg_namespace n on n.oid = p.pronamespace
where p.prosecdef
  and has_function_privilege(%(role)s, p.oid, 'EXECUTE')
  and n.nspname = any(array(select trim(unnest(string_to_array(%(exposed)s, ',')))))
  and n.nspname <> all(%(skipped)s)
order by 1
"""


def test_supabase_lints_find_nothing(app: App, owner: psycopg.Connection) -> None:
    assert owner.execute(LINT_0011, {"skipped": _LINT_SKIPPED_SCHEMAS}).fetchall() == []
    for role in ("anon", "authenticated"):  # 0028, 0029; Supabase exposes `public` and `graphql_public`
        found = owner.execute(
            LINT_DEFINER_EXECUTABLE,
            {"role": role, "exposed": "public, graphql_public", "skipped": _LINT_SKIPPED_SCHEMAS},
        ).fetchall()
        assert found == [], role
    # The lints do look at segcite's functions: the RPCs are there, SECURITY INVOKER, with a fixed search_path.
    rpcs = owner.execute(
        "select proname, prosecdef, proconfig from pg_proc where proname = any(%s) order by 1", (list(MEMBER_RPCS),)
    ).fetchall()
    assert [(name, definer, any(c.startswith("search_path=") for c in config)) for name, definer, config in rpcs] == [
        (name, False, True) for name in sorted(MEMBER_RPCS)
    ]


def test_the_lints_would_see_a_mistake(app: App, owner: psycopg.Connection) -> None:
    """The queries above are not vacuous: a definer function open to members, without a search_path, is found."""
    with owner.transaction():
        owner.execute("create function segcite_oops() returns int language sql security definer as 'select 1'")
        owner.execute("grant execute on function segcite_oops() to anon, authenticated")
        assert owner.execute(LINT_0011, {"skipped": _LINT_SKIPPED_SCHEMAS}).fetchall() == [("public.segcite_oops()",)]
        for role in ("anon", "authenticated"):
            found = owner.execute(
                LINT_DEFINER_EXECUTABLE, {"role": role, "exposed": "public", "skipped": _LINT_SKIPPED_SCHEMAS}
            ).fetchall()
            assert found == [("public.segcite_oops()",)], role
        owner.execute("drop function segcite_oops()")


# The migration on its own -------------------------------------------------------------------------------


def catalog(conn: psycopg.Connection) -> list[tuple]:
    """What 008 could change: columns and their defaults, constraints, indexes, policies, triggers, functions
    with their definitions, settings and grants, and table and column grants."""
    return conn.execute(
        """
        select 'column', table_name || '.' || column_name, coalesce(column_default, '') || ' ' || data_type
        from information_schema.columns where table_schema = 'public'
        union all
        select 'constraint', conname, pg_get_constraintdef(oid) || convalidated::text
        from pg_constraint where connamespace = 'public'::regnamespace
        union all
        select 'index', indexname, indexdef from pg_indexes where schemaname = 'public'
        union all
        select 'policy', tablename || '.' || policyname, cmd || coalesce(qual, '') || coalesce(with_check, '') ||
               array_to_string(roles, ',')
        from pg_policies
        union all
        select 'trigger', tgrelid::regclass::text || '.' || tgname, pg_get_triggerdef(oid)
        from pg_trigger where not tgisinternal
        union all
        select 'function', oid::regprocedure::text,
               md5(prosrc) || prosecdef::text || coalesce(proconfig::text, '') || coalesce(proacl::text, '')
        from pg_proc where pronamespace = 'public'::regnamespace
        union all
        select 'grant', c.relname, coalesce(c.relacl::text, '') || coalesce((
            select string_agg(a.attname || a.attacl::text, ',' order by a.attnum)
            from pg_attribute a where a.attrelid = c.oid and a.attacl is not null), '')
        from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
        order by 1, 2, 3
        """
    ).fetchall()


def apply_twice_more(url: str) -> tuple[list[tuple], list[tuple]]:
    """008 and every migration after it (which replace some of its functions: 016's search, 017's RPCs), in order,
    twice more."""
    chain = [path for path in migration_files() if path.name >= APP_ACCESS.name]
    with psycopg.connect(url, autocommit=True) as conn:
        before = catalog(conn)
        for _ in range(2):
            for path in chain:
                conn.execute(path.read_text(encoding="utf-8"))
        return before, catalog(conn)


def test_the_migration_applies_twice_without_change(app: App) -> None:
    before, after = apply_twice_more(app.url)
    assert after == before
    assert any(kind == "policy" and "members ask" in name for kind, name, _ in before)


def test_on_plain_postgres_none_of_the_supabase_parts_exist(fresh_database: str) -> None:
    apply_migrations(fresh_database)
    before, after = apply_twice_more(fresh_database)
    assert after == before
    with psycopg.connect(fresh_database) as conn:
        functions = {r[0] for r in conn.execute("select proname from pg_proc where proname like 'segcite\\_%'")}
        assert functions.isdisjoint({*MEMBER_RPCS, "segcite_limit_questions_in_flight", "segcite_document_key_allowed"})
        assert conn.execute("select count(*) from pg_policies").fetchone()[0] == 0
        assert (
            conn.execute(
                "select count(*) from pg_constraint where conname = 'question_must_be_1_to_8000_characters'"
            ).fetchone()[0]
            == 0
        )
        # What is everywhere: who wrote a row (null for the workers and the CLI), and the lints' fixes.
        assert (
            conn.execute(
                "select count(*) from information_schema.columns "
                "where column_name = 'created_by' and column_default is null"
            ).fetchone()[0]
            == 3
        )
        unset = conn.execute(LINT_0011, {"skipped": _LINT_SKIPPED_SCHEMAS}).fetchall()
        assert unset == []


def test_the_search_still_ranks_rare_words_first(fresh_database: str) -> None:
    """008 rebuilds the search's OR query without the aggregate (which lint 0011 would flag): same results."""
    make_supabase_like(fresh_database, "none")
    apply_migrations(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        workspace = str(uuid.uuid4())
        document = conn.execute(
            "insert into documents (workspace_id) values (%s) returning id", (workspace,)
        ).fetchone()[0]
        texts = ["company added value", "company added staff", "the tax on the company", 'company\'s "quoted" added']
        for index, text in enumerate(texts):
            conn.execute(
                "insert into document_segments (document_id, segment_index, workspace_id, page_idx, kind, text) "
                "values (%s, %s, %s, 0, 'paragraph', %s)",
                (document, index, workspace, text),
            )
        found = conn.execute(
            "select segment_index from segcite_search_segments(%s, %s, 10)",
            (workspace, ["company", "added", "tax", 'it\'s "odd"']),
        ).fetchall()
        assert found[0][0] == 2  # the one rare word outweighs two common ones
        assert sorted(r[0] for r in found) == [0, 1, 2, 3]
        assert conn.execute("select to_regprocedure('segcite_tsquery_or(tsquery)')").fetchone()[0] is None
        with conn.transaction():  # and the workers' role may call it through PostgREST
            as_role(conn, "service_role")
            assert (
                len(conn.execute("select * from segcite_search_segments(%s, %s, 10)", (workspace, ["tax"])).fetchall())
                == 1
            )


# README's "For the app" ---------------------------------------------------------------------------------


def readme_sql() -> list[str]:
    """The statements of the SQL block in README's "For the app", as an app developer copies them."""
    readme = (MIGRATIONS_DIR.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## For the app") :]
    block = section[section.index("```sql\n") + len("```sql\n") : section.index("```", section.index("```sql\n") + 6)]
    code = "\n".join(line.split("--")[0] for line in block.splitlines())
    return [" ".join(statement.split()) for statement in code.split(";") if statement.strip()]


def test_the_readme_sql_starts_the_work_as_the_service_role(app: App, owner: psycopg.Connection) -> None:
    """Run as written (with `$n` parameters, as an Edge Function's driver sends them), as `service_role`."""
    statements = readme_sql()
    assert [s.split()[0] for s in statements] == ["insert", "insert", "insert", "insert", "update"]
    finish_answers(owner)
    with psycopg.connect(app.url) as conn:
        as_role(conn, "service_role", orjson.dumps({"role": "service_role"}).decode())
        raw = psycopg.RawCursor(conn)
        key = f"{app.workspace}/docai/report.json"
        document = raw.execute(statements[0], (app.workspace, app.carol, key, uuid.uuid4().hex)).fetchone()[0]
        conversation = raw.execute(statements[1], (app.workspace, [document])).fetchone()[0]
        question = raw.execute(statements[2], (conversation, app.carol)).fetchone()[0]
        reply = raw.execute(statements[3], (conversation, app.carol, question)).fetchone()[0]
        conn.commit()
        as_role(conn, "service_role")
        psycopg.RawCursor(conn).execute(statements[4], (document,))
        conn.commit()
    assert scope_of(owner, "conversations", str(conversation)) == [str(document)]
    assert inbox(owner, str(reply)) == ["answer_message"]
    assert sorted(inbox(owner, str(document))) == ["delete_document", "ingest_document"]
    row = owner.execute("select role, status, reply_to, created_by::text from messages where id = %s", (reply,))
    assert row.fetchone() == ("assistant", "pending", question, app.carol)
    finish_answers(owner)
