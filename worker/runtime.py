"""The adapters one worker process uses, created on first use (after Celery forks its children)."""

from __future__ import annotations

import functools
import gc
from dataclasses import dataclass, field

import redis

from worker.embedded import redis_client_url, resolve_services
from worker.embeddings import make_embedder
from worker.llm import Answerer, make_answerer
from worker.objects import ObjectStore, make_object_store
from worker.rag import RagStore
from worker.redis_state import AnswerCache, AnswerClaims, DeliveryCounter, StreamMarks
from worker.rewrite import Rewriter, RulesRewriter, make_rewriter
from worker.settings import Settings, load_settings
from worker.stores import Store, make_store
from worker.workspace_lock import WorkspaceLock


@dataclass
class Runtime:
    settings: Settings
    store: Store
    objects: ObjectStore
    rag: RagStore
    answerer: Answerer
    redis: redis.Redis
    rewriter: Rewriter = field(default_factory=RulesRewriter)  # a follow-up's standalone question (design §5.10)

    @property
    def answers(self) -> AnswerCache:
        return AnswerCache(self.redis)

    @property
    def answer_claims(self) -> AnswerClaims:
        return AnswerClaims(self.redis)

    @property
    def streams(self) -> StreamMarks:
        return StreamMarks(self.redis)

    @property
    def deliveries(self) -> DeliveryCounter:
        return DeliveryCounter(self.redis)

    def workspace_lock(self, workspace_id: str) -> WorkspaceLock:
        return WorkspaceLock(self.redis, workspace_id, self.settings.segcite_lock_ttl)

    def close(self) -> None:
        self.rag.close()
        self.store.close()


def make_runtime(settings: Settings) -> Runtime:
    services = resolve_services(settings, start=False)
    return Runtime(
        settings=settings,
        store=make_store(settings, services.database_url),
        objects=make_object_store(settings),
        rag=RagStore(settings, services.database_url, make_embedder(settings)),
        answerer=make_answerer(settings),
        redis=redis.Redis.from_url(redis_client_url(services.redis_url), socket_timeout=30),
        rewriter=make_rewriter(settings),
    )


@functools.cache
def runtime() -> Runtime:
    built = make_runtime(load_settings())
    # What is loaded by now (libraries, LightRAG, clients) lives as long as the process: kept out of the
    # collector's full scans, which otherwise grow with it and stall every task now and then.
    gc.collect()
    gc.freeze()
    return built
