"""The Celery app (`celery -A worker.app ...`), configured as design §7 says."""

from __future__ import annotations

from celery import Celery
from kombu import Exchange, Queue

from worker.embedded import celery_broker_url, embedded_redis_url
from worker.settings import Settings, load_settings

INGEST_QUEUE = "ingest"
QUERY_QUEUE = "query"


def make_celery(settings: Settings) -> Celery:
    redis_url = settings.redis_url or embedded_redis_url(settings.home)
    transport = {"visibility_timeout": settings.visibility_timeout}
    celery = Celery("segcite", include=["worker.tasks"])
    celery.conf.update(
        broker_url=celery_broker_url(redis_url),
        result_backend=celery_broker_url(redis_url),
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        broker_connection_retry_on_startup=True,
        # Each queue with an exchange and routing key of its own: left implicit, both queues were bound to
        # the default queue's, which a broker with real exchanges (RabbitMQ) would deliver to both.
        task_queues=[
            Queue(name, Exchange(name, type="direct"), routing_key=name) for name in (INGEST_QUEUE, QUERY_QUEUE)
        ],
        task_default_queue=QUERY_QUEUE,
        task_routes={
            "segcite.ingest_document": {"queue": INGEST_QUEUE},
            "segcite.delete_document": {"queue": INGEST_QUEUE},
            "segcite.answer_message": {"queue": QUERY_QUEUE},
        },
        # A task is acknowledged only after it finished, and requeued if its worker dies.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=settings.segcite_task_soft_time_limit,
        task_time_limit=settings.segcite_task_time_limit,
        task_track_started=True,
        worker_send_task_events=True,
        task_send_sent_event=True,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=24 * 3600,
        worker_hijack_root_logger=False,
    )
    return celery


app = make_celery(load_settings())
