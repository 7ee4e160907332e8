"""An ingest's work done while the database writes (issue 44): the JSON read and segmented before the workspace's
lock is taken (another document of the workspace may be writing), and the hash embedder's vectors computed while
the segments are written. Real PostgreSQL and Redis, in process."""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import orjson
import psycopg
import pytest
import redis
from docai_synth import PageSpec, build_document
from pgvector import SparseVector

from ingest import tagged_text
from worker import documents
from worker.embedded import redis_client_url
from worker.embeddings import HashEmbedder, hash_embed
from worker.llm import ExtractiveAnswerer
from worker.objects import LocalFolderStore
from worker.rag import RagStore
from worker.runtime import Runtime
from worker.settings import Settings
from worker.stores.postgres import PostgresStore
from worker.stores.rows import DocumentStatus


@pytest.fixture(scope="module")
def rt(migrated: str, services, service_home: Path, tmp_path_factory) -> Runtime:
    settings = Settings(segcite_home=service_home)
    runtime = Runtime(
        settings=settings,
        store=PostgresStore(migrated, max_size=2),
        objects=LocalFolderStore(tmp_path_factory.mktemp("objects")),
        rag=RagStore(settings, migrated, HashEmbedder(settings.segcite_embedding_dim)),
        answerer=ExtractiveAnswerer(),
        redis=redis.Redis.from_url(redis_client_url(services.redis_url)),
    )
    yield runtime
    runtime.close()


def new_document(rt: Runtime, sentences: list[str]) -> str:
    """A document of one page a sentence (a segment each)."""
    document_id = str(uuid.uuid4())
    pages = [PageSpec([sentence]) for sentence in sentences]
    rt.objects.put(f"docai/{document_id}.json", orjson.dumps(build_document(pages)[0]))
    rt.store.create_document(str(uuid.uuid4()), "report.json", f"docai/{document_id}.json", document_id)
    return document_id


def stored_texts(rt: Runtime, document_id: str) -> list[str]:
    document = rt.store.get_document(document_id)
    found = rt.store.segments_by_ids(document.workspace_id, [f"{document_id}:{i}" for i in range(100)])
    return [s.text for _, s in sorted(found.items())]


def test_what_was_read_before_the_lock_is_what_is_written(rt: Runtime) -> None:
    document_id = new_document(rt, ["The pump station lifts 4,200 litres a minute."])
    prepared = documents._prepare(rt, rt.store.get_document(document_id))
    rt.objects.delete(f"docai/{document_id}.json")  # not read again under the lock: the row has not changed
    with rt.workspace_lock(rt.store.get_document(document_id).workspace_id) as lock:
        result = documents._ingest_locked(rt, document_id, lock, prepared)
    assert result["segments"] == 1
    assert stored_texts(rt, document_id) == ["The pump station lifts 4,200 litres a minute."]


def test_an_upload_in_place_while_the_ingest_waited_is_the_one_ingested(rt: Runtime) -> None:
    document_id = new_document(rt, ["The old figure was 3,900 litres a minute."])
    prepared = documents._prepare(rt, rt.store.get_document(document_id))
    # Meanwhile the file is uploaded again under the same key (as `segcite ingest --force` does): the row changes.
    new = build_document([PageSpec(["The new figure is 4,200 litres a minute."])])[0]
    rt.objects.put(f"docai/{document_id}.json", orjson.dumps(new))
    rt.store.update_document(document_id, status=DocumentStatus.UPLOADED, progress=0.0)
    with rt.workspace_lock(rt.store.get_document(document_id).workspace_id) as lock:
        documents._ingest_locked(rt, document_id, lock, prepared)
    assert stored_texts(rt, document_id) == ["The new figure is 4,200 litres a minute."]


def test_the_hash_embedder_embeds_a_document_once_while_its_segments_are_written(rt: Runtime, migrated: str) -> None:
    sentences = [f"Valve {n} opens at {n * 7} kilopascals on line {n % 3}." for n in range(40)]
    document_id = new_document(rt, sentences)
    calls: list[int] = []
    embedder = rt.rag.embedder

    class Counted(HashEmbedder):
        async def __call__(self, texts: list[str], **kwargs: object) -> np.ndarray:
            calls.append(len(texts))
            return await super().__call__(texts, **kwargs)

    rt.rag.embedder = Counted(embedder.dim)
    try:
        result = documents.ingest_document(rt, document_id)
    finally:
        rt.rag.embedder = embedder
    assert result["segments"] > 32  # LightRAG would have embedded them in batches of 32
    assert calls == [result["segments"]]  # one batch, ahead of LightRAG, which took its vectors
    workspace = rt.store.get_document(document_id).workspace_id
    segments = rt.store.segments_by_ids(workspace, [f"{document_id}:{i}" for i in range(result["segments"])])
    with psycopg.connect(migrated) as conn:
        rows = conn.execute(
            "select segment_index, embedding::text from segcite_hash_vectors where document_id = %s "
            "order by segment_index",
            (document_id,),
        ).fetchall()
    expected = hash_embed([tagged_text(segments[f"{document_id}:{i}"]) for i, _ in rows], embedder.dim)
    for (index, text), vector in zip(rows, expected, strict=True):
        stored = SparseVector.from_text(text)
        nonzero = np.flatnonzero(vector)
        assert stored.indices() == nonzero.tolist(), index
        assert np.array_equal(np.array(stored.values(), dtype=np.float32), vector[nonzero]), index
