"""The delivery counter behind the redelivery cap (on a real Redis), and which statuses a failure may overwrite."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
import redis

from worker.answers import publish_answer
from worker.embedded import redis_client_url
from worker.redis_state import AnswerCache, DeliveryCounter, StreamMarks
from worker.stores.postgres import PostgresStore
from worker.tasks import mark_failed, settle


@pytest.fixture(scope="module")
def migrated(database_without_worker: str) -> str:
    """The rows here are moved by the tests alone: a database the session's worker does not serve."""
    return database_without_worker


def test_redeliveries_count_and_planned_retries_do_not(services) -> None:
    counter = DeliveryCounter(redis.Redis.from_url(redis_client_url(services.redis_url)))
    object_id = str(uuid.uuid4())
    task_id = str(uuid.uuid4())
    assert counter.count("document", object_id, task_id, 0) == 1  # first delivery
    assert counter.count("document", object_id, task_id, 0) == 2  # worker died: redelivered
    assert counter.count("document", object_id, task_id, 1) == 2  # a planned retry
    assert counter.count("document", object_id, task_id, 1) == 3  # died during the retry
    other = str(uuid.uuid4())  # a new task for the same object (reconciliation) counts too
    assert counter.count("document", object_id, other, 0) == 4
    assert counter.count("message", object_id, str(uuid.uuid4()), 0) == 1  # per kind


def test_a_failure_only_overwrites_the_status_its_own_work_left(migrated) -> None:
    """A failure written late (after a database outage) must not undo what happened since."""
    store = PostgresStore(migrated, max_size=1)
    rt = SimpleNamespace(store=store)
    try:
        workspace = str(uuid.uuid4())
        document = store.create_document(workspace, "a.json", "docai/a.json")
        assert mark_failed(rt, "ingest", document.id, "gave up") is True
        assert (store.get_document(document.id).status, store.get_document(document.id).error) == ("failed", "gave up")

        reuploaded = store.create_document(workspace, "b.json", "docai/b.json")
        store.update_document(reuploaded.id, status="ingested")
        assert mark_failed(rt, "ingest", reuploaded.id, "late") is False  # ingested meanwhile: kept
        assert mark_failed(rt, "delete", reuploaded.id, "late") is False  # a delete's failure needs `deleted`
        assert store.get_document(reuploaded.id).status == "ingested"
        store.update_document(reuploaded.id, status="deleted")
        assert mark_failed(rt, "delete", reuploaded.id, "could not delete") is True
        assert store.get_document(reuploaded.id).status == "failed"

        conversation = store.create_conversation(workspace)
        question = store.create_message(conversation, "user", "q?")
        answer = store.create_message(conversation, "assistant", "", reply_to=question.id)
        store.update_message(answer.id, status="done", content="an answer")
        assert mark_failed(rt, "answer", answer.id, "late") is False  # answered meanwhile: kept
        assert (store.get_message(answer.id).status, store.get_message(answer.id).content) == ("done", "an answer")
        assert mark_failed(rt, "answer", str(uuid.uuid4()), "no row") is False
    finally:
        store.close()


def test_a_late_outcome_publishes_an_answer_the_model_already_gave(migrated, services) -> None:
    """An answer computed before the database went away is delivered once it is back, not failed."""
    store = PostgresStore(migrated, max_size=1)
    client = redis.Redis.from_url(redis_client_url(services.redis_url))
    rt = SimpleNamespace(store=store, answers=AnswerCache(client), streams=StreamMarks(client))
    try:
        conversation = store.create_conversation(str(uuid.uuid4()))
        question = store.create_message(conversation, "user", "q?")
        computed, not_computed = (
            store.create_message(conversation, "assistant", "", reply_to=question.id) for _ in range(2)
        )
        store.update_message(computed.id, status="processing")
        payload = {"content": "The farm covers 42 hectares [1].", "metadata": {"citations": [{"page": 1}]}}
        rt.answers.put(computed.id, payload)

        assert settle(rt, "answer", computed.id, "gave up after 5 retries: PoolTimeout") == "published"
        row = store.get_message(computed.id)
        assert (row.status, row.content, row.metadata, row.error) == (
            "done",
            payload["content"],
            payload["metadata"],
            None,
        )
        assert rt.answers.get(computed.id) is None  # published: the copy is dropped

        assert settle(rt, "answer", not_computed.id, "gave up after 5 retries: PoolTimeout") == "failed"
        row = store.get_message(not_computed.id)
        assert (row.status, row.error) == ("failed", "gave up after 5 retries: PoolTimeout")
        assert settle(rt, "answer", not_computed.id, "again") == "unchanged"
    finally:
        store.close()


def test_an_answer_written_after_its_question_was_withdrawn_is_dropped(migrated, services) -> None:
    """`segcite chat`'s Ctrl-C withdraws the question (its answer's row `failed`, error `cancelled: …`): the worker's
    answer that comes after must not overwrite it; a withdrawal after the answer changes nothing."""
    store = PostgresStore(migrated, max_size=1)
    client = redis.Redis.from_url(redis_client_url(services.redis_url))
    rt = SimpleNamespace(store=store, answers=AnswerCache(client), streams=StreamMarks(client))
    try:
        conversation = store.create_conversation(str(uuid.uuid4()))
        question = store.create_message(conversation, "user", "q?")
        withdrawn, answered = (store.create_message(conversation, "assistant", "", reply_to=question.id) for _ in "ab")
        store.update_message(withdrawn.id, status="processing")
        assert store.finish_message(withdrawn.id, status="failed", error="cancelled").status == "failed"
        payload = {"content": "The farm covers 42 hectares [1].", "metadata": {"citations": [{"page": 1}]}}
        rt.answers.put(withdrawn.id, payload)
        publish_answer(rt, withdrawn.id, payload)
        row = store.get_message(withdrawn.id)
        assert (row.status, row.error, row.content) == ("failed", "cancelled", "")
        assert rt.answers.get(withdrawn.id) is None  # dropped, not retried

        publish_answer(rt, answered.id, payload)  # pending -> done as before
        assert store.finish_message(answered.id, status="failed", error="cancelled") is None
        row = store.get_message(answered.id)
        assert (row.status, row.error, row.content) == ("done", None, payload["content"])
    finally:
        store.close()
