"""The delivery counter behind the redelivery cap, on a real Redis."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import redis

from worker.embedded import redis_client_url
from worker.tasks import _count_delivery


def fake_task(task_id: str, retries: int):
    return SimpleNamespace(request=SimpleNamespace(id=task_id, retries=retries))


def test_redeliveries_count_and_planned_retries_do_not(services) -> None:
    rt = SimpleNamespace(redis=redis.Redis.from_url(redis_client_url(services.redis_url)))
    object_id = str(uuid.uuid4())
    task_id = str(uuid.uuid4())
    assert _count_delivery(rt, fake_task(task_id, 0), "document", object_id) == 1  # first delivery
    assert _count_delivery(rt, fake_task(task_id, 0), "document", object_id) == 2  # worker died: redelivered
    assert _count_delivery(rt, fake_task(task_id, 1), "document", object_id) == 2  # a planned retry
    assert _count_delivery(rt, fake_task(task_id, 1), "document", object_id) == 3  # died during the retry
    other = str(uuid.uuid4())  # a new task for the same object (reconciliation) counts too
    assert _count_delivery(rt, fake_task(other, 0), "document", object_id) == 4
    assert _count_delivery(rt, fake_task(str(uuid.uuid4()), 0), "message", object_id) == 1  # per kind
