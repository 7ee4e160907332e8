"""A worker process using the `openai` provider against a local OpenAI-compatible server: LLM errors end as
`failed` with an actionable error, transient ones are retried, bad output is still delivered."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import WorkerProcess, service_env
from conftest import wait_for as wait_until
from fakes import FakeOpenAI

from worker.app import make_celery
from worker.app_actions import MESSAGE_DONE, wait_for
from worker.embedded import Services, start_redis, stop_redis
from worker.settings import Settings
from worker.stores.postgres import PostgresStore


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    yield fake
    fake.server.shutdown()


@pytest.fixture(scope="module")
def llm_worker(migrated: str, fake_llm: FakeOpenAI):
    """Its own broker (a second embedded Redis), the shared database, SEGCITE_LLM_PROVIDER=openai."""
    home = Path(tempfile.mkdtemp(prefix="sc-llm-", dir="/tmp"))
    redis_url = start_redis(home)
    env = service_env(
        Services(redis_url, migrated),
        home,
        SEGCITE_LLM_PROVIDER="openai",
        OPENAI_BASE_URL=fake_llm.url,
        OPENAI_API_KEY="sk-test-0000000000",
        SEGCITE_LLM_TIMEOUT="5",
    )
    worker = WorkerProcess(env, home / "worker.log", queues="query", concurrency=1)
    app = make_celery(Settings(redis_url=redis_url, segcite_home=home))
    wait_until(lambda: _pings(app), timeout=60, what="the openai worker", interval=0.5)
    store = PostgresStore(migrated, max_size=2)
    yield app, store
    worker.stop()
    store.close()
    stop_redis(home)
    shutil.rmtree(home, ignore_errors=True)


def _pings(app) -> bool:
    try:
        return bool(app.send_task("segcite.ping").get(timeout=2))
    except Exception:
        return False


def ask(app, store: PostgresStore) -> str:
    conversation = store.create_conversation(str(uuid.uuid4()))
    question = store.create_message(conversation, "user", "What is in my documents?")
    answer = store.create_message(conversation, "assistant", "", reply_to=question.id)
    app.send_task("segcite.answer_message", args=[answer.id])
    return answer.id


def outcome(store: PostgresStore, message_id: str):
    return wait_for(
        lambda: store.get_message(message_id), lambda m: m.status in MESSAGE_DONE, timeout=90, what="the answer"
    )


def test_rejected_credentials_fail_at_once_with_an_actionable_error(llm_worker, fake_llm) -> None:
    app, store = llm_worker
    fake_llm.replies.append((401, {"error": {"message": "Incorrect API key provided", "type": "auth"}}))
    message = outcome(store, ask(app, store))
    assert message.status == "failed"
    assert message.error.startswith("LLM configuration error (AuthenticationError)")
    assert "Incorrect API key" in message.error


def test_a_server_error_is_retried_then_answered(llm_worker, fake_llm) -> None:
    app, store = llm_worker
    # The SDK retries once itself; the task retries after that.
    fake_llm.replies.extend([(500, {"error": {"message": "boom", "type": "server"}})] * 2)
    fake_llm.replies.append(
        (200, FakeOpenAI.completion('{"sections": [{"text": "Nothing found.", "source_ids": []}]}'))
    )
    message = outcome(store, ask(app, store))
    assert message.status == "done", message.error
    assert message.content == "Nothing found."
    assert message.metadata["stats"] == {"cited": 0, "matched": 0, "invalid": 0, "uncited": 1}


@pytest.mark.parametrize("output", ["{not json at all", '{"sections": [{"text": "Made up.", "source_ids": ["x:1"]}]}'])
def test_bad_model_output_is_still_delivered(llm_worker, fake_llm, output: str) -> None:
    app, store = llm_worker
    fake_llm.replies.append((200, FakeOpenAI.completion(output)))
    message = outcome(store, ask(app, store))
    assert message.status == "done", message.error
    stats = message.metadata["stats"]
    assert message.content and stats["cited"] == 0 and stats["invalid"] + stats["uncited"] == 1


def test_empty_model_output_is_retried_not_delivered_empty(llm_worker, fake_llm) -> None:
    app, store = llm_worker
    fake_llm.replies.append((200, FakeOpenAI.completion("")))
    fake_llm.replies.append((200, FakeOpenAI.completion('{"sections": [{"text": "Second try.", "source_ids": []}]}')))
    message = outcome(store, ask(app, store))
    assert (message.status, message.content) == ("done", "Second try.")
