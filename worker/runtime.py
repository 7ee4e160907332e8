"""The adapters one worker process uses, created on first use (after Celery forks its children)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import redis

from worker.embedded import redis_client_url, resolve_services
from worker.objects import ObjectStore, make_object_store
from worker.providers import Answerer, make_answerer, make_embedder
from worker.rag import RagStore
from worker.settings import Settings, load_settings
from worker.store import PostgresStore, Store


@dataclass
class Runtime:
    settings: Settings
    store: Store
    objects: ObjectStore
    rag: RagStore
    answerer: Answerer
    redis: redis.Redis

    def close(self) -> None:
        self.rag.close()
        closer = getattr(self.store, "close", None)
        if closer:
            closer()


def make_runtime(settings: Settings) -> Runtime:
    services = resolve_services(settings, start=False)
    if settings.segcite_store == "supabase":
        from worker.supabase_store import SupabaseStore

        store: Store = SupabaseStore(settings)
    else:
        store = PostgresStore(services.database_url, timeout=settings.segcite_db_timeout)
    return Runtime(
        settings=settings,
        store=store,
        objects=make_object_store(settings),
        rag=RagStore(settings, services.database_url, make_embedder(settings)),
        answerer=make_answerer(settings),
        redis=redis.Redis.from_url(redis_client_url(services.redis_url), socket_timeout=30),
    )


@functools.cache
def runtime() -> Runtime:
    return make_runtime(load_settings())
