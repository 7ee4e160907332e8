"""The Celery app (`celery -A worker.app ...`), configured as design §7 says.

Its configuration is computed from the settings when Celery first needs it (a worker starting, a task sent),
not when this module is imported.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from kombu import Exchange, Queue

from worker.embedded import celery_broker_url, embedded_redis_url
from worker.settings import Settings, load_settings

INGEST_QUEUE = "ingest"
QUERY_QUEUE = "query"
ROUTES = {
    "segcite.ingest_document": INGEST_QUEUE,
    "segcite.delete_document": INGEST_QUEUE,
    "segcite.parse_shard": INGEST_QUEUE,  # one page range of a PDF through Document AI (worker/parsing)
    "segcite.answer_message": QUERY_QUEUE,
}


def celery_config(settings: Settings) -> dict[str, Any]:
    redis_url = celery_broker_url(settings.redis_url or embedded_redis_url(settings.home))
    transport = {"visibility_timeout": settings.visibility_timeout}
    return {
        "broker_url": redis_url,
        "result_backend": redis_url,
        "broker_transport_options": transport,
        "result_backend_transport_options": transport,
        "broker_connection_retry_on_startup": True,
        # Each queue with an exchange and routing key of its own: left implicit, both queues were bound to
        # the default queue's, which a broker with real exchanges (RabbitMQ) would deliver to both.
        "task_queues": [
            Queue(name, Exchange(name, type="direct"), routing_key=name) for name in (INGEST_QUEUE, QUERY_QUEUE)
        ],
        "task_default_queue": QUERY_QUEUE,
        "task_routes": {name: {"queue": queue} for name, queue in ROUTES.items()},
        # The retry budget of the work on rows (worker.tasks.RowTask): SEGCITE_MAX_RETRIES.
        "task_annotations": {name: {"max_retries": settings.segcite_max_retries} for name in ROUTES},
        # A task is acknowledged only after it finished, and requeued if its worker dies.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_soft_time_limit": settings.segcite_task_soft_time_limit,
        "task_time_limit": settings.segcite_task_time_limit,
        "task_track_started": True,
        "worker_send_task_events": True,
        "task_send_sent_event": True,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "result_expires": 24 * 3600,
        "worker_hijack_root_logger": False,
    }


def make_celery(settings: Settings | None = None) -> Celery:
    """The segcite app; without `settings`, configured from the environment when first used."""
    celery = Celery("segcite", include=["worker.tasks"])
    celery.add_defaults(lambda: celery_config(settings or load_settings()))
    return celery


app = make_celery()
