"""Questions a user may type (issue 25, points 3-5), through `segcite ask` and the real worker: another
language, one or two characters, no word at all, and a workspace that holds no documents."""

from __future__ import annotations

import uuid
from pathlib import Path

import orjson
import pytest
from conftest import segcite as run
from conftest import service_env

from worker.app_actions import MESSAGE_DONE, ask, wait_for, workspace_id


@pytest.fixture(scope="module")
def edf_workspace(services, service_home, celery_worker, docai_dir: Path) -> str:
    """A workspace holding the French EDF invoice, ingested through the CLI."""
    workspace = f"lang-{uuid.uuid4().hex[:8]}"
    path = docai_dir / "invoice_parser_edf_2p_snake_case.json"
    ingested = run(service_env(services, service_home), "ingest", str(path), "--workspace", workspace)
    assert ingested.returncode == 0, ingested.stderr
    return workspace


def test_a_french_question_finds_the_french_total(services, service_home, edf_workspace: str) -> None:
    env = service_env(services, service_home)
    asked = run(env, "ask", "Quel est le montant total de la facture EDF ?", "--workspace", edf_workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    payload = orjson.loads(asked.stdout)
    assert payload["content"] == "Montant total: 62,86 € [1]"
    assert [(c["page_idx"], c["citation_status"]) for c in payload["metadata"]["citations"]] == [(0, "cited")]


def test_a_very_long_question_is_read_by_its_start(services, service_home, edf_workspace: str) -> None:
    """60,000 characters (a pasted text after the question): answered from its start, like any question."""
    question = "Quel est le montant total de la facture EDF ? " + "Texte collé sans rapport. " * 2300
    asked = run(service_env(services, service_home), "ask", question, "--workspace", edf_workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    assert orjson.loads(asked.stdout)["content"] == "Montant total: 62,86 € [1]"


@pytest.mark.parametrize("question", ["x", "ab", "税", "EDF"])
def test_short_questions_are_answered(services, service_home, edf_workspace: str, question: str) -> None:
    """Before: LightRAG refused them (RAGQueryTooShortError) and the answer failed with a traceback. Now the
    vector search is skipped below LightRAG's minimum and full-text search still runs."""
    asked = run(service_env(services, service_home), "ask", question, "--workspace", edf_workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    assert "Traceback" not in asked.stderr
    content = orjson.loads(asked.stdout)["content"]
    assert content  # an answer or "not found", never an internal error
    if question == "EDF":  # three letters: both searches run, and the invoice is what it finds
        assert "I could not find" not in content


@pytest.mark.parametrize("question", ["?", "¿?", "…", " - "])
def test_a_question_without_any_word_is_refused_up_front(services, service_home, question: str) -> None:
    asked = run(service_env(services, service_home), "ask", question)
    assert (asked.returncode, asked.stdout, asked.stderr.splitlines()) == (
        2,
        "",
        ["error: the question has no words (no letter or digit)"],
    )


def test_a_workspace_without_documents_says_so(services, service_home, celery_worker, store) -> None:
    name = f"nosuchworkspace-{uuid.uuid4().hex[:8]}"
    asked = run(service_env(services, service_home), "ask", "What is the total?", "--workspace", name)
    assert asked.returncode == 1
    assert asked.stdout == ""
    assert asked.stderr.splitlines() == [
        f"error: workspace {name!r} holds no documents: add some with `segcite ingest FILE... --workspace {name}`"
    ]
    assert store.documents(workspace_id(name)) == []


def test_the_app_asking_an_empty_workspace_gets_a_failed_message_that_says_why(celery_worker, store) -> None:
    """The app writes its message without the CLI's check: the worker says it, on the message."""
    pending = ask(store, workspace_id(f"empty-{uuid.uuid4()}"), "What is the total?")
    message = wait_for(lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout=60)
    assert (message.status, message.error) == ("failed", "the workspace holds no documents: add one, then ask again")


def test_the_app_asking_without_words_gets_a_failed_message_that_says_why(celery_worker, store) -> None:
    pending = ask(store, workspace_id(f"empty-{uuid.uuid4()}"), "??")
    message = wait_for(lambda: store.get_message(pending.id), lambda m: m.status in MESSAGE_DONE, timeout=60)
    assert message.status == "failed"
    assert message.error == "the question has no words (no letter or digit): ask something"
