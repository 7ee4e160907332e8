"""A conversation, not a single question (issue 41): follow-ups that leave their document out, read as the question
they stand for, and answers from the documents a user chose; through `segcite ask`/`chat` and through rows written
with plain SQL (the inbox path), with the real worker, over the shared real fixtures in one workspace that holds
them all."""

from __future__ import annotations

import re
import sys
import time
import uuid
from pathlib import Path

import orjson
import pexpect
import psycopg
import pytest
from conftest import REPO, service_env
from conftest import segcite as run
from conftest import wait_for as wait_until

from worker.app_actions import MESSAGE_DONE, ask, wait_for, workspace_id

FILES = {  # the file name as `segcite documents` lists it -> where it is in ../shared/fixtures
    "invoice_parser_1p.json": "docai-real",  # Google's invoice #23413561D to Jane Smith
    "invoice_toolbox_test0_1p.json": "docai-real",  # Company ABC's invoice to John Doe
    "utility_parser_1p_4tables.json": "docai-real",  # Jwanna Spann's SCE&G bill
    "contract_parser_1p.json": "docai-real",  # the Cymbal license agreement
    "form_parser_v1_1p.json": "docai-real",  # Sally Walker's health intake form
    "invoice_parser_edf_2p_snake_case.json": "docai",  # the Guérins' EDF bill
    "expense_parser_1p.json": "docai-real",  # an Office Depot receipt
    "us_driver_license_dl3_1p.json": "docai-real",  # Brenda Lynn Sample's Montana driver license
    "us_passport_pix2info_specimen_snake.json": "docai-real",  # a US passport specimen (another date of birth)
}
GOOGLE, SCEG, EDF = "invoice_parser_1p.json", "utility_parser_1p_4tables.json", "invoice_parser_edf_2p_snake_case.json"
INGESTED = re.compile(r"^(?P<name>\S+): ingested, .*document (?P<id>[0-9a-f-]{36})$")


class Chat:
    """The module's workspace: its name, its documents' ids by file name, and `segcite` run on it."""

    def __init__(self, env: dict[str, str], name: str, ids: dict[str, str]):
        self.env, self.name, self.ids = env, name, ids

    def ask(self, question: str, *options: str) -> dict:
        asked = run(self.env, "ask", question, "--json", *options)
        assert asked.returncode == 0, asked.stderr
        return orjson.loads(asked.stdout)

    def cited(self, payload: dict) -> set[str]:
        names = {i: n for n, i in self.ids.items()}
        return {names.get(c["document_id"], c["document_id"]) for c in payload["metadata"]["citations"]}


@pytest.fixture(scope="module")
def chat(services, service_home, celery_worker, docai_dir: Path, docai_real_dir: Path) -> Chat:
    env = service_env(services, service_home)
    name = f"conv-{uuid.uuid4().hex[:8]}"
    paths = [str((docai_dir if folder == "docai" else docai_real_dir) / file) for file, folder in FILES.items()]
    ingested = run(env, "ingest", *paths, "--workspace", name, timeout=600)
    assert ingested.returncode == 0, ingested.stderr
    ids = {m["name"]: m["id"] for line in ingested.stdout.splitlines() if (m := INGESTED.match(line))}
    assert sorted(ids) == sorted(FILES)
    return Chat(env, name, ids)


# Follow-ups (point 1) -------------------------------------------------------------------------------------------


def test_follow_ups_through_the_cli_leave_their_document_out(chat: Chat, tmp_path: Path) -> None:
    first = chat.ask("What is the total on Google invoice #23413561D for Jane Smith?", "--workspace", chat.name)
    assert "19,647.68" in first["content"] and chat.cited(first) == {GOOGLE}
    assert first["metadata"]["rewrite"] is None  # a first question is read as asked
    assert first["metadata"]["standalone_question"] == "What is the total on Google invoice #23413561D for Jane Smith?"
    conversation = first["conversation_id"]
    second = chat.ask("What tax rate was applied?", "--conversation", conversation)
    assert second["conversation_id"] == conversation and second["message_id"] != first["message_id"]
    assert second["metadata"]["standalone_question"] == (
        "What tax rate was applied on Google invoice #23413561D for Jane Smith?"
    )
    assert second["metadata"]["rewrite"] == {"by": "rules", "error": None}
    assert "10%" in second["content"] and chat.cited(second) == {GOOGLE}
    page = tmp_path / "answer.html"
    viewed = run(chat.env, "view", second["message_id"], "--out", str(page))
    assert viewed.returncode == 0, viewed.stderr
    assert (
        '<p class="question"><span class="label">Read as</span> What tax rate was applied on Google invoice '
        "#23413561D for Jane Smith?</p>"
    ) in page.read_text(encoding="utf-8")
    third = run(chat.env, "ask", "And how much was shipping?", "--conversation", conversation)
    assert third.returncode == 0, third.stderr
    lines = third.stdout.splitlines()
    assert "199.99" in lines[0]
    assert "read as: How much was shipping on Google invoice #23413561D for Jane Smith?" in lines
    assert any(line.startswith("[1] invoice_parser_1p.json, page 1") for line in lines)
    assert lines[-1] == f'continue: segcite ask "…" --conversation {conversation}'


def test_a_french_pronoun_is_read_as_the_bill_it_stands_for(chat: Chat) -> None:
    first = chat.ask(
        "Quel est le numéro de client sur la facture EDF de Maëlle et Jérôme Guérin ?", "--workspace", chat.name
    )
    assert "567 890" in first["content"] and chat.cited(first) == {EDF}  # ("1 234 567 890" or "1234 567 890")
    follow_up = chat.ask("Quel est le montant total de cette facture ?", "--conversation", first["conversation_id"])
    assert follow_up["metadata"]["standalone_question"] == (
        "Quel est le montant total de la facture EDF de Maëlle et Jérôme Guérin ?"
    )
    assert "62,86" in follow_up["content"] and chat.cited(follow_up) == {EDF}


def test_a_topic_change_inherits_neither_the_subject_nor_the_documents_chosen_before(chat: Chat) -> None:
    first = chat.ask("What's the account number on Jwanna Spann's SCE&G bill?", "--workspace", chat.name)
    conversation = first["conversation_id"]
    scoped = chat.ask(
        "What late payment charge can be added to it?", "--conversation", conversation, "--document", SCEG
    )
    assert scoped["metadata"]["document_ids"] == [chat.ids[SCEG]]
    assert "1.5%" in scoped["content"] and chat.cited(scoped) == {SCEG}
    question = "What is the total on Google invoice #23413561D for Jane Smith?"
    changed = chat.ask(question, "--conversation", conversation)
    assert changed["metadata"]["standalone_question"] == question  # it names its own document: as asked
    assert changed["metadata"]["document_ids"] is None  # the earlier question's choice was its own
    assert "19,647.68" in changed["content"] and chat.cited(changed) == {GOOGLE}
    after = chat.ask("What tax rate was applied?", "--conversation", conversation)
    assert "Google invoice #23413561D" in after["metadata"]["standalone_question"]
    assert "10%" in after["content"] and chat.cited(after) == {GOOGLE}


def test_follow_ups_written_as_rows_with_plain_sql(chat: Chat, services) -> None:
    """The inbox path: what an Edge Function writes. Asked alone, "What's her date of birth?" gets the passport
    specimen's; in its conversation, the driver license's."""
    workspace = workspace_id(chat.name)
    questions = [
        "What's the license number on Brenda Lynn Sample's Montana driver license?",
        "What's her date of birth?",
    ]
    with psycopg.connect(services.database_url, autocommit=True) as conn:
        conversation = conn.execute(
            "insert into conversations (workspace_id) values (%s) returning id", (workspace,)
        ).fetchone()[0]
        replies = []
        for question in questions:
            asked = conn.execute(
                "insert into messages (conversation_id, role, content, status) values (%s, 'user', %s, 'done') "
                "returning id",
                (conversation, question),
            ).fetchone()[0]
            reply = conn.execute(
                "insert into messages (conversation_id, role, reply_to) values (%s, 'assistant', %s) returning id",
                (conversation, asked),
            ).fetchone()[0]
            replies.append(reply)
            wait_until(lambda r=reply: _done(conn, r), timeout=120, what=f"the answer to {question!r}")
        (content, metadata) = conn.execute(
            "select content, metadata from messages where id = %s", (replies[1],)
        ).fetchone()
    assert metadata["standalone_question"] == (
        "What's her date of birth on Brenda Lynn Sample's Montana driver license?"
    )
    assert "08/04/1968" in content
    assert {c["document_id"] for c in metadata["citations"]} == {chat.ids["us_driver_license_dl3_1p.json"]}


def _done(conn: psycopg.Connection, message_id) -> bool:
    row = conn.execute("select status from messages where id = %s", (message_id,)).fetchone()
    return row[0] in ("done", "failed")


# Chosen sources (point 2) -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "total"),
    [(GOOGLE, "19,647.68"), (EDF, "62,86"), ("expense_parser_1p.json", "544.99")],
)
def test_the_same_question_asked_of_each_document_gives_its_own_total(chat: Chat, document: str, total: str) -> None:
    payload = chat.ask("What is the total?", "--workspace", chat.name, "--document", document)
    assert payload["metadata"]["document_ids"] == [chat.ids[document]]
    assert total in payload["content"]
    assert chat.cited(payload) == {document}


def test_a_question_whose_answer_lies_outside_the_chosen_documents_is_not_found(chat: Chat) -> None:
    question = "What's the account number on Jwanna Spann's SCE&G bill?"
    everywhere = chat.ask(question, "--workspace", chat.name)
    assert "5-2100-9991-3257" in everywhere["content"]
    chosen = chat.ask(question, "--workspace", chat.name, "--document", EDF, "--document", GOOGLE)
    metadata = chosen["metadata"]
    assert sorted(metadata["document_ids"]) == sorted([chat.ids[EDF], chat.ids[GOOGLE]])
    assert (metadata["answer_status"], metadata["citations"]) == ("not_found", [])
    assert set(metadata["context_ids"]) and {i.split(":")[0] for i in metadata["context_ids"]} <= {
        chat.ids[EDF],
        chat.ids[GOOGLE],
    }


def test_a_document_deleted_since_drops_out_of_the_scope(chat: Chat, services, store) -> None:
    workspace = workspace_id(chat.name)
    with psycopg.connect(services.database_url, autocommit=True) as conn:
        gone = str(
            conn.execute(
                "insert into documents (workspace_id, filename, docai_raw_r2_key, status) "
                "values (%s, 'gone.json', 'docai/gone.json', 'deleted') returning id",
                (workspace,),
            ).fetchone()[0]
        )
    conversation = store.create_conversation(workspace, [chat.ids[GOOGLE], gone])
    answered = _answer(store, ask(store, workspace, "What is the total?", conversation))
    assert answered.metadata["document_ids"] == [chat.ids[GOOGLE]]
    assert "19,647.68" in answered.content
    only_gone = _answer(store, ask(store, workspace, "What is the total?", conversation, [gone]))
    assert only_gone.metadata["document_ids"] == []
    assert (only_gone.metadata["answer_status"], only_gone.metadata["citations"]) == ("not_found", [])


def test_a_questions_choice_narrows_its_conversations(chat: Chat, store) -> None:
    """Design §2: a message's document_ids narrow its conversation's sources; they never widen them."""
    workspace = workspace_id(chat.name)
    conversation = store.create_conversation(workspace, [chat.ids[GOOGLE], chat.ids[SCEG]])
    narrowed = _answer(store, ask(store, workspace, "What is the total?", conversation, [chat.ids[GOOGLE]]))
    assert narrowed.metadata["document_ids"] == [chat.ids[GOOGLE]]
    assert "19,647.68" in narrowed.content
    widened = _answer(store, ask(store, workspace, "What is the total?", conversation, [chat.ids[EDF]]))
    assert widened.metadata["document_ids"] == []  # the EDF bill is not among the conversation's sources
    assert (widened.metadata["answer_status"], widened.metadata["citations"]) == ("not_found", [])
    refused = run(chat.env, "ask", "What is the total?", "--conversation", conversation, "--document", EDF)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"error: {EDF}: not among the sources conversation {conversation} was opened with\n"


def _answer(store, pending):
    message = wait_for(lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout=120)
    assert message.status == "done", message.error
    return message


def test_a_document_of_another_workspace_is_refused(chat: Chat, store) -> None:
    other = store.create_document(str(uuid.uuid4()), "elsewhere.json", "docai/elsewhere.json")
    with pytest.raises(psycopg.Error) as caught:
        store.create_conversation(workspace_id(chat.name), [chat.ids[GOOGLE], other.id])
    assert caught.value.sqlstate == "42501"


# The CLI's errors (point 3) ---------------------------------------------------------------------------------------


def test_an_unknown_document_or_conversation_is_one_line_and_exit_2(chat: Chat, store) -> None:
    other = store.create_document(str(uuid.uuid4()), GOOGLE, "docai/elsewhere.json")  # another workspace's
    for options, error in [
        (["--document", "nope.json"], "error: no document 'nope.json' in this workspace (`segcite documents "),
        (["--document", other.id], f"error: no document '{other.id}' in this workspace (`segcite documents "),
        (["--conversation", str(uuid.uuid4())], "error: no conversation "),
        (["--conversation", "not-an-id"], "error: no conversation not-an-id"),
    ]:
        asked = run(chat.env, "ask", "What is the total?", "--workspace", chat.name, *options)
        assert (asked.returncode, asked.stdout) == (2, ""), options
        assert len(asked.stderr.splitlines()) == 1 and asked.stderr.startswith(error), asked.stderr
    conversation = chat.ask("What is the total?", "--workspace", chat.name, "--document", GOOGLE)["conversation_id"]
    elsewhere = run(chat.env, "ask", "Why?", "--workspace", "another", "--conversation", conversation)
    assert (elsewhere.returncode, elsewhere.stderr) == (
        2,
        f"error: conversation {conversation} is not of workspace 'another'\n",
    )


# segcite chat (point 3), on a pseudo-terminal ------------------------------------------------------------------


def spawn_chat(env: dict[str, str], *args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable, ["-m", "worker.cli", "chat", *args], env=env, cwd=str(REPO), encoding="utf-8", timeout=120
    )
    child.setwinsize(40, 200)
    return child


def test_chat_asks_follow_ups_with_line_editing_and_ends_with_ctrl_d(chat: Chat) -> None:
    child = spawn_chat(chat.env, "--workspace", chat.name, "--document", SCEG, "--document", GOOGLE)
    child.expect_exact(f"chatting with {SCEG}, {GOOGLE} of workspace '{chat.name}'")
    child.expect_exact("you> ")
    # line editing (readline): the line's start typed last, after Ctrl-A took the cursor there
    child.send("the account number on Jwanna Spann's SCE&G bill?")
    child.send("\x01What's \r")
    child.expect_exact("5-2100-9991-3257")
    child.expect_exact(f"[1] {SCEG}, page 1 (cited)")
    child.expect_exact("you> ")
    child.sendline("What late payment charge can be added to it?")
    child.expect_exact("1.5%")
    child.expect_exact("read as: What late payment charge can be added to Jwanna Spann's SCE&G bill?")
    child.expect_exact(f"asked of: {SCEG}, {GOOGLE}")
    child.expect_exact("you> ")
    child.send("half a question")
    child.expect_exact("half a question")  # (echoed by readline)
    time.sleep(0.5)  # a person's pause: a SIGINT among the keystrokes readline is still handling waits for the next
    child.sendintr()  # Ctrl-C clears the line being typed; the chat goes on
    child.expect_exact("you> ")
    child.sendline("/exit")
    child.expect(r"continue: segcite ask \"…\" --conversation ([0-9a-f-]{36})")
    conversation = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    with psycopg.connect(chat.env["DATABASE_URL"]) as conn:
        rows = conn.execute(
            "select role, content from messages where conversation_id = %s order by created_at", (conversation,)
        ).fetchall()
    assert [r[1] for r in rows if r[0] == "user"] == [
        "What's the account number on Jwanna Spann's SCE&G bill?",
        "What late payment charge can be added to it?",
    ]


def test_ctrl_c_withdraws_the_question_being_answered_and_the_chat_goes_on(
    services, service_home, database_without_worker
):
    """No worker serves this database: the answer never comes; Ctrl-C withdraws the question (its answer's row
    `failed`, `cancelled: …`, which a late answer no longer overwrites) and gives the prompt back; Ctrl-D ends."""
    workspace = f"wait-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(database_without_worker, autocommit=True) as conn:
        conn.execute(
            "insert into documents (workspace_id, filename, docai_raw_r2_key, status) values (%s, 'a.json', 'k', "
            "'ingested')",
            (workspace_id(workspace),),
        )
    env = {**service_env(services, service_home), "DATABASE_URL": database_without_worker}
    child = spawn_chat(env, "--workspace", workspace)
    child.expect_exact("you> ")
    child.sendline("What is the total?")
    with psycopg.connect(database_without_worker, autocommit=True) as conn:
        query = "select count(*) from messages where role = 'assistant' and status = 'pending'"
        wait_until(lambda: conn.execute(query).fetchone()[0] == 1, timeout=60, what="the question written")
    child.sendintr()
    child.expect(r"cancelled \(message ([0-9a-f-]{36})\)")
    withdrawn = child.match.group(1)
    child.expect_exact("you> ")
    child.sendeof()
    child.expect_exact("continue: segcite ask")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    with psycopg.connect(database_without_worker, autocommit=True) as conn:
        status, error = conn.execute("select status, error from messages where id = %s", (withdrawn,)).fetchone()
    assert (status, error) == ("failed", "cancelled: the question was withdrawn (Ctrl-C in segcite chat)")


def test_id_checks_and_the_fallbacks_workspace_tier_see_only_the_chosen_documents(chat: Chat, store) -> None:
    from worker.stores import WorkspaceSegments

    workspace = workspace_id(chat.name)
    google, sceg = chat.ids[GOOGLE], chat.ids[SCEG]
    everywhere = WorkspaceSegments(store, workspace)
    chosen = WorkspaceSegments(store, workspace, [google.upper()])  # (an id in any case)
    text = "ACCOUNT NUMBER 5-2100-9991-3257"
    assert sceg in {s.document_id for s in everywhere.candidates(text, 5)}
    assert {s.document_id for s in chosen.candidates(text, 5)} <= {google}
    assert set(everywhere.lookup([f"{sceg}:0", f"{google}:0"])) == {f"{sceg}:0", f"{google}:0"}
    assert set(chosen.lookup([f"{sceg}:0", f"{google}:0"])) == {f"{google}:0"}
