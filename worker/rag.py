"""The RAG store: LightRAG on PostgreSQL (design §4), one instance per workspace, one event loop per process.

LightRAG's storages are bound to the loop that initialized them, and Celery tasks are synchronous, so each
process runs one private loop in a thread and every call is submitted to it. A prefork process runs one task
at a time, so the ingest in progress (`RagStore.job`) is a plain attribute.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psycopg
from pgvector import SparseVector
from psycopg.conninfo import conninfo_to_dict

from ingest import Segment, is_uuid, leading_tag_id, parse_segment_id, tagged_text
from worker.embeddings import Embedder, HashEmbedder
from worker.errors import PermanentError, TransientError
from worker.openai_client import openai_client
from worker.settings import Settings
from worker.tenancy import secure_internal_tables_async
from worker.vector_search import DenseVectorSearch, HashVectorSearch, sparse

log = logging.getLogger(__name__)
# Between two segments of one document: printable (LightRAG strips control characters) and never inside a
# segment (tagged_text cannot produce it; it is removed from segment text before joining).
SEPARATOR = "\n\u241e\n"
CHUNK_TOKEN_SIZE = 8000  # segments are at most SEGCITE_MAX_CHARS (<= 8000) characters: never re-split
# Texts per embedding request, and requests in flight: a 1000-segment document is 32 requests, 4 rounds. A
# segment is at most 8000 characters (~2000 tokens), so a batch stays far below a provider's request limit.
EMBEDDING_BATCH = 32
EMBEDDING_REQUESTS_IN_FLIGHT = 8
# Page furniture (design §3): stored with the document, never sent to the RAG store.
NOT_RETRIEVED_KINDS = frozenset({"header", "footer"})
_PIECE = re.compile(r"\w{1,4}|\s{1,4}|[^\w\s]", re.DOTALL)
_INIT_LOCK_KEY = 0x5E6C17E0  # any constant of our own; migrations use another
# Session settings of LightRAG's connections (asyncpg `server_settings`, from POSTGRES_SERVER_SETTINGS), for its
# filtered vector search `WHERE workspace = $1 ORDER BY distance LIMIT k`: a plain HNSW scan stops after
# `ef_search` candidates, of which a workspace holding 1% of the table keeps about 1%, so it returns fewer than
# K. Iterative scans (pgvector >= 0.8) go on until K rows pass the filter (design §4 "Scale"); relaxed order,
# because LightRAG's rows are ranked again by fusion anyway, and it reaches K sooner than strict order.
# Custom plans: LightRAG's query is a prepared statement, and its generic plan (planned for an average workspace)
# takes the workspace btree and sorts the whole workspace by distance: 3.4 s for a workspace of 100,000 segments
# where the HNSW scan takes 60 ms (measured). Planned with the actual workspace, a big one takes the HNSW index and
# a small one the btree (an exact scan of a few rows). Through a transaction pooler statements are unnamed, and
# planned with their values anyway.
# And commits that do not wait for the disk: an ingest's LightRAG writes are a dozen transactions a document (1-2 ms
# each waiting for its WAL flush on this machine's disk). Nothing is lost by it: the document is `ingested` only by
# the worker's own last update, whose commit waits for the WAL up to it, every write before it included; a crash
# before then loses at most writes of a document not `ingested` yet, which its task does again.
VECTOR_SEARCH_SETTINGS = {
    "hnsw.iterative_scan": "relaxed_order",
    "hnsw.ef_search": "100",
    "plan_cache_mode": "force_custom_plan",
    "synchronous_commit": "off",
}
INIT_LOCK_WAIT = 120.0
# The offline `hash` embedder's vectors are signed hashes of words and word pairs: nearly orthogonal, so HNSW's
# graph cannot be navigated (recall@10 against exact 0.06-0.13 from 4,000 chunks up, at ef_search 100). So in naive
# mode they are also kept sparse, in migration 012's `segcite_hash_vectors`, and searched there
# (worker/vector_search.py); LightRAG's table then needs no HNSW index (an insert into it was most of an ingest's
# time). A real model's vectors navigate HNSW: LightRAG's table and index, searched by segcite's own SQL.
_DELETE_HASH_VECTORS = "delete from segcite_hash_vectors where workspace_id = $1 and document_id = $2"
# Chunks of a workspace stored before migration 012, whose sparse copy is written at first use (`_backfill`).
_CHUNKS_WITHOUT_HASH_VECTOR = (
    "select c.content, c.content_vector::sparsevec as embedding from {table} c where c.workspace = $1 "
    "and not exists (select 1 from segcite_hash_vectors h where h.model = $2 and h.workspace_id = $3 "
    "and h.document_id::text = c.full_doc_id)"
)
# A document's rows at ingest, or a workspace's at backfill. Two processes may backfill one workspace at once, or
# an ingest write a document meanwhile: the first row wins.
_INSERT_HASH_VECTORS = (
    "insert into segcite_hash_vectors (model, workspace_id, document_id, segment_index, embedding) "
    "select $1, $2, d, i, e from unnest($3::uuid[], $4::int[], $5::sparsevec[]) as r(d, i, e) "
    "on conflict do nothing"
)


class _PieceIds(dict):
    """Each piece's token id, computed once: an ingest encodes every segment twice (LightRAG's chunking, then its
    check before embedding), and pieces repeat, so a lookup replaces the loop over a piece's characters (half of
    the tokenizer's time). One per process, whatever the workspaces; bounded: cleared past `LIMIT` pieces (about
    30 MB; CJK text has many)."""

    LIMIT = 1 << 18

    def __missing__(self, piece: str) -> int:
        if len(self) >= self.LIMIT:
            self.clear()
        value = len(piece)
        for i, char in enumerate(piece):
            value |= ord(char) << (3 + 21 * i)
        self[piece] = value
        return value


_PIECE_IDS = _PieceIds()


class OfflineTokenizer:
    """Reversible, download-free tokenizer (~4 characters a token) instead of tiktoken, whose BPE file is
    fetched at first use. Safe from several threads as LightRAG requires: its one state is the ids' memo, where
    two threads computing one piece store the same value."""

    def encode(self, content: str) -> list[int]:
        return list(map(_PIECE_IDS.__getitem__, _PIECE.findall(content)))

    def decode(self, tokens: list[int]) -> str:
        return "".join(chr((v >> (3 + 21 * i)) & 0x1FFFFF) for v in tokens for i in range(v & 7))


def retrieved_segments(segments: Sequence[Segment]) -> list[Segment]:
    """The segments a document gives the RAG store (its page headers and footers stay out)."""
    return [s for s in segments if s.kind not in NOT_RETRIEVED_KINDS]


def _chunk_text(segment: Segment) -> str:
    """A segment as LightRAG's chunk of it reads (and is embedded): its tagged text, without the separator."""
    return tagged_text(segment).replace("\u241e", "")


def segment_ids_of(chunks: Sequence[dict[str, Any]]) -> list[str]:
    """The SEG ids of retrieved chunks, in order, once each (only a chunk's leading tag counts)."""
    ids = (leading_tag_id(str(chunk.get("content", ""))) for chunk in chunks)
    return list(dict.fromkeys(i for i in ids if i))


def context_chunks(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunks of an `aquery_data` result. A query that found nothing is an answer, not an error: LightRAG
    says so with `metadata.failure_reason == "no_results"`, or with its empty dataset (`data.chunks == []`).
    Any other failure (its `data` has no chunks at all) is raised: it may pass on a retry."""
    data = result.get("data") or {}
    chunks = data.get("chunks")
    if result.get("status") != "failure":
        return list(chunks or [])
    if (result.get("metadata") or {}).get("failure_reason") == "no_results" or chunks == []:
        return []
    raise TransientError(f"retrieval failed: {result.get('message', 'no message')}")


def workspace_name(workspace_id: str) -> str:
    return "ws_" + re.sub(r"[^0-9a-zA-Z]", "", workspace_id).lower()


def postgres_env(database_url: str, vector_index: bool = True) -> dict[str, str]:
    """LightRAG reads its connection from POSTGRES_* variables. Without `vector_index` (the hash embedder in naive
    mode, searched in segcite_hash_vectors) its chunk table gets no HNSW index, unless the operator asks for one
    (a value this process set itself for an earlier RagStore is not the operator's)."""
    info = conninfo_to_dict(database_url)
    port = str(info.get("port") or 5432)
    env = {
        "POSTGRES_HOST": str(info.get("host") or "localhost"),
        "POSTGRES_PORT": port,
        "POSTGRES_USER": str(info.get("user") or "postgres"),
        "POSTGRES_PASSWORD": str(info.get("password") or ""),
        "POSTGRES_DATABASE": str(info.get("dbname") or "postgres"),
        "POSTGRES_MAX_CONNECTIONS": os.environ.get("POSTGRES_MAX_CONNECTIONS", "4"),
        # Half-precision vectors in the HNSW index: inserts about 3x faster at 1024 dimensions (measured,
        # bench/bench_scale.py), half the table and index size, up to 4000 dimensions indexed; recall unchanged.
        # LightRAG converts an existing table's column and index once, at first use. "": no index.
        "POSTGRES_VECTOR_INDEX_TYPE": "HNSW_HALFVEC" if vector_index else "",
    }
    operators = _operators("POSTGRES_VECTOR_INDEX_TYPE")
    if operators is not None:
        env["POSTGRES_VECTOR_INDEX_TYPE"] = operators
    if port == "6543":  # Supabase's transaction pooler cannot keep prepared statements
        env["POSTGRES_STATEMENT_CACHE_SIZE"] = "0"
    else:  # nor session settings (a pooler refuses startup parameters): there, migration 010's database defaults
        env["POSTGRES_SERVER_SETTINGS"] = server_settings(os.environ.get("POSTGRES_SERVER_SETTINGS", ""))
    return env


_SET_HERE: dict[str, str] = {}  # the POSTGRES_* values a RagStore of this process put in the environment


def _operators(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None or _SET_HERE.get(name) == value else value


def server_settings(given: str) -> str:
    """LightRAG's `key=value&key=value` session settings: the operator's, plus VECTOR_SEARCH_SETTINGS for any
    key they do not set themselves."""
    pairs = dict(pair.split("=", 1) for pair in given.split("&") if "=" in pair)
    return "&".join(f"{key}={value}" for key, value in (VECTOR_SEARCH_SETTINGS | pairs).items())


class _QuietLightRAG(logging.Filter):
    """Lines LightRAG logs that alarm and say nothing: an ERROR per missing table as it probes for each before
    creating it, a warning per empty table of a new workspace, and the warning of a purge of a document that never
    touched the knowledge graph (`expect_graphless_purge`)."""

    def __init__(self) -> None:
        super().__init__()
        self.graphless: set[str] = set()  # ids of the documents being deleted whose purge warning is expected

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        probe = message.startswith('PostgreSQL database, error:relation "lightrag_') and "does not exist" in message
        empty = message.startswith("PostgreSQL: workspace data in table") and "is empty" in message
        return not (probe or empty or self._graphless_purge(message))

    def _graphless_purge(self, message: str) -> bool:
        """LightRAG's purge (`_resolve_purge_recovery_proof`) looks for a document's knowledge-graph "recovery
        anchors" (`full_entities`, `full_relations`), which only an extraction writes. A document inserted with
        process option `!` (segcite's naive mode) skips extraction, so it has none: its `kg_write_state` stays
        `pre_graph`, which LightRAG accepts as the proof that there is nothing in the graph to clean, and deletes
        its chunks, yet warns every time. Only that warning, for a document known to be such, is dropped."""
        if not message.startswith("[purge] ") or not message.endswith("cleaning up staged chunks only"):
            return False
        document_id = message.removeprefix("[purge] ").split(":", 1)[0]
        return document_id in self.graphless and "recovery anchor row(s) missing" in message


_QUIET = _QuietLightRAG()


def never_touched_the_graph(status: Any) -> bool:
    """Whether LightRAG's doc status says the document skipped knowledge-graph extraction (process option `!`)
    and never started a graph write: its purge has nothing in the graph to clean."""
    metadata = status.get("metadata") if isinstance(status, dict) else getattr(status, "metadata", None)
    if not isinstance(metadata, dict):
        return False
    skipped = metadata.get("skip_kg") is True or "!" in str(metadata.get("process_options") or "")
    return skipped and metadata.get("kg_write_state") == "pre_graph"


def _quiet_lightrag_logger() -> None:
    """Importing lightrag sets its logger to INFO with a console handler of its own: a line per chunk and
    query in worker.log. Warnings and real errors still show."""
    logger = logging.getLogger("lightrag")
    logger.setLevel(logging.WARNING)
    if _QUIET not in logger.filters:
        logger.addFilter(_QUIET)


async def _take_init_lock(conn: psycopg.AsyncConnection) -> None:
    deadline = time.monotonic() + INIT_LOCK_WAIT
    while True:
        cursor = await conn.execute("select pg_try_advisory_lock(%s)", (_INIT_LOCK_KEY,))
        if (await cursor.fetchone())[0]:
            return
        if time.monotonic() > deadline:
            raise TransientError("another worker is still creating LightRAG's tables")
        await asyncio.sleep(0.2)


@dataclass
class _Job:
    """The ingest in progress: how many of its chunks are embedded, and whom to tell."""

    total: int
    on_progress: Callable[[float], None]
    embedded: int = 0
    error: BaseException | None = None
    # The hash embedder's vectors of this ingest by SEG id, kept for segcite_hash_vectors (naive mode).
    vectors: dict[str | None, np.ndarray] | None = None
    # The chunks' vectors the offline embedder gave ahead of LightRAG (`RagStore._replace_job`), by text.
    ahead: dict[str, np.ndarray] = field(default_factory=dict)


class _ReportingEmbedder:
    """The embedder as LightRAG calls it, reporting each batch of the ingest in progress (`RagStore.job`): the
    report may stop the work (a lost lock). LightRAG deep-copies its configuration, this included; the copy
    must be this object, or the ingest's reports would go to a copy."""

    def __init__(self, store: RagStore):
        self.store = store

    def __deepcopy__(self, memo: dict[int, Any]) -> _ReportingEmbedder:
        return self

    async def __call__(self, texts: list[str], **kwargs: Any) -> np.ndarray:
        job = self.store.job
        ahead = job.ahead if job is not None else {}
        if ahead and all(t in ahead for t in texts):
            vectors = np.stack([ahead[t] for t in texts])
        else:
            vectors = await self.store.embedder(texts, **kwargs)
        if job is not None and job.vectors is not None:
            job.vectors.update(zip(map(leading_tag_id, texts), vectors, strict=True))
        if job is not None:
            job.embedded += len(texts)
            try:
                job.on_progress(min(1.0, job.embedded / max(job.total, 1)))
            except Exception as exc:
                job.error = exc  # LightRAG keeps only the failure's text: keep the exception itself
                raise
        return vectors


class RagStore:
    def __init__(self, settings: Settings, database_url: str, embedder: Embedder):
        # The hash embedder's vectors are searched in segcite_hash_vectors (worker/vector_search.py); in mix
        # mode LightRAG's own searches of entities and relations need its vectors and index whatever the model.
        self.exact_hash = settings.segcite_rag_mode == "naive" and isinstance(embedder, HashEmbedder)
        self.hash_model = embedder.model_name if self.exact_hash else ""  # it names the dimension too
        self.hash_search = HashVectorSearch(self.hash_model, settings.segcite_exact_vector_limit)
        self.dense_search = DenseVectorSearch(settings.segcite_hnsw_ef_search, settings.segcite_hnsw_workspace_min)
        env = postgres_env(database_url, vector_index=not self.exact_hash)
        os.environ.update(env)
        _SET_HERE.update(env)
        os.environ.pop("POSTGRES_WORKSPACE", None)  # it would override every instance's workspace
        self.settings = settings
        self.database_url = database_url
        self.embedder = embedder
        self._instances: dict[str, Any] = {}
        self.job: _Job | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="segcite-rag-loop", daemon=True)
        self._thread.start()

    def _run(self, coro, timeout: float):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _instance(self, workspace_id: str):
        from lightrag import LightRAG
        from lightrag.utils import EmbeddingFunc, Tokenizer

        _quiet_lightrag_logger()
        name = workspace_name(workspace_id)
        if name in self._instances:
            return self._instances[name]
        # LightRAG makes its folder only when it finds none, which races between workers starting at once
        # (FileExistsError): made here, where a second maker is harmless.
        working_dir = self.settings.home / "rag"
        working_dir.mkdir(parents=True, exist_ok=True)
        rag = LightRAG(
            working_dir=str(working_dir),
            workspace=name,
            kv_storage="PGKVStorage",
            vector_storage="PGVectorStorage",
            doc_status_storage="PGDocStatusStorage",
            graph_storage="PGTableGraphStorage",
            embedding_func=EmbeddingFunc(
                embedding_dim=self.embedder.dim,
                func=_ReportingEmbedder(self),
                max_token_size=8192,
                model_name=self.embedder.model_name,
            ),
            llm_model_func=self._llm_func(),
            tokenizer=Tokenizer("segcite-offline", OfflineTokenizer()),
            chunk_token_size=CHUNK_TOKEN_SIZE,
            # LightRAG's own variables still win where given (a slow or rate-limited provider).
            embedding_batch_num=int(os.environ.get("EMBEDDING_BATCH_NUM") or EMBEDDING_BATCH),
            embedding_func_max_async=int(os.environ.get("EMBEDDING_FUNC_MAX_ASYNC") or EMBEDDING_REQUESTS_IN_FLIGHT),
            # Retrieval returns the top K whatever their similarity; the citation checks judge relevance.
            vector_db_storage_cls_kwargs={"cosine_better_than_threshold": -1.0},
        )
        # LightRAG checks for its tables, then creates them: two workers doing that at once on a new database
        # fail with DuplicateTableError. A session advisory lock makes them take turns. It is polled, not
        # waited on: a session blocked in pg_advisory_lock would hold up LightRAG's CREATE INDEX CONCURRENTLY.
        async with await psycopg.AsyncConnection.connect(
            self.database_url, autocommit=True, connect_timeout=10
        ) as conn:
            await _take_init_lock(conn)
            await rag.initialize_storages()
            await secure_internal_tables_async(conn)  # before any document goes in (design §4, tenancy)
        if self.exact_hash:
            await self._backfill_hash_vectors(rag, workspace_id)
        else:
            await self.dense_search.prepare(rag.chunks_vdb)
        self._instances[name] = rag
        return rag

    def _llm_func(self):
        settings = self.settings
        if settings.segcite_rag_mode != "mix":

            async def no_llm(*_: Any, **__: Any) -> str:  # naive mode never calls it
                raise PermanentError("LightRAG asked for an LLM in naive mode")

            return no_llm
        if settings.segcite_llm_provider != "openai":
            raise PermanentError(
                "SEGCITE_RAG_MODE=mix extracts a knowledge graph and needs SEGCITE_LLM_PROVIDER=openai"
            )
        client = openai_client(settings, asynchronous=True)

        async def complete(prompt: str, system_prompt: str | None = None, history_messages=None, **_: Any) -> str:
            messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
            messages += [*list(history_messages or []), {"role": "user", "content": prompt}]
            response = await client.chat.completions.create(model=settings.segcite_llm_model, messages=messages)
            return response.choices[0].message.content or ""

        return complete

    # public, synchronous API ---------------------------------------------------------------------------

    def replace_document(
        self,
        workspace_id: str,
        document_id: str,
        segments: Sequence[Segment],
        on_progress: Callable[[float], None] = lambda _: None,
        timeout: float = 600,
    ) -> int:
        """Delete, then insert the retrievable segments 1:1 as chunks; wait until LightRAG says PROCESSED.
        `on_progress(fraction)` is called after each embedding batch; what it raises stops the ingest."""
        return self.start_replace(workspace_id, document_id, segments, on_progress, timeout).result(timeout + 30)

    def start_replace(
        self,
        workspace_id: str,
        document_id: str,
        segments: Sequence[Segment],
        on_progress: Callable[[float], None] = lambda _: None,
        timeout: float = 600,
    ) -> Future[int]:
        """`replace_document`, running on the store's loop while the caller does something else (writes the
        document's segments: other tables, so the database works on both at once): its chunk count, when done."""
        chunks = retrieved_segments(segments)
        job = self.job = _Job(total=len(chunks), on_progress=on_progress, vectors={} if self.exact_hash else None)
        future = asyncio.run_coroutine_threadsafe(
            self._replace_job(job, workspace_id, document_id, chunks, timeout), self._loop
        )
        future.add_done_callback(lambda _: self._end(job))
        return future

    def _end(self, job: _Job) -> None:
        if self.job is job:
            self.job = None

    async def _replace_job(
        self, job: _Job, workspace_id: str, document_id: str, segments: Sequence[Segment], timeout: float
    ) -> int:
        """The offline embedder embeds the document's chunks in one batch first, and LightRAG takes those vectors
        (its own batches of 32 would each wait for its turn); a provider's requests are LightRAG's to batch and pace,
        each batch moving the document's progress and checking the lock, as a slow model needs."""
        if isinstance(self.embedder, HashEmbedder):
            texts = [_chunk_text(s) for s in segments]
            job.ahead = dict(zip(texts, await self.embedder(texts), strict=True))
        return await self._replace(workspace_id, document_id, segments, timeout)

    async def _replace(self, workspace_id: str, document_id: str, segments: Sequence[Segment], timeout: float) -> int:
        from lightrag.parser.routing import resolve_chunk_options

        rag = await self._instance(workspace_id)
        await self._delete(rag, workspace_id, document_id)
        if not segments:
            return 0
        text = SEPARATOR.join(map(_chunk_text, segments))
        options = resolve_chunk_options(rag.addon_params, split_by_character=SEPARATOR, split_by_character_only=True)
        process = "F!" if self.settings.segcite_rag_mode == "naive" else "F"  # "!": no knowledge-graph extraction
        await rag.apipeline_enqueue_documents(
            [text],
            ids=[document_id],
            file_paths=[f"{document_id}.json"],
            process_options=process,
            chunk_options=options,
        )
        try:
            count = await self._process_until_done(rag, document_id, timeout)
            if self.exact_hash:
                await self._store_hash_vectors(rag, workspace_id, document_id, segments)
            else:  # the workspace's own HNSW index, once it is big enough
                await self.dense_search.index_workspace(rag.chunks_vdb)
            return count
        except BaseException:
            await self._drop_buffered_writes(rag)
            raise

    async def _process_until_done(self, rag, document_id: str, timeout: float) -> int:
        """`ainsert`-style processing does not raise on failure: the document's status says how it went."""
        deadline = time.monotonic() + timeout
        while True:
            await rag.apipeline_process_enqueue_documents()
            job = self.job
            if job is not None and job.error is not None:
                raise job.error
            status = await rag.doc_status.get_by_id(document_id)
            state = str((status or {}).get("status", "")).lower()
            if state.endswith("processed"):
                return int(status.get("chunks_count") or 0)
            if state.endswith("failed"):
                raise TransientError(f"the RAG store failed to index the document: {status.get('error_msg')}")
            if time.monotonic() > deadline:
                raise TransientError(f"the RAG store did not finish indexing within {timeout:.0f} s")
            await asyncio.sleep(0.2)

    @staticmethod
    async def _drop_buffered_writes(rag) -> None:
        """LightRAG buffers vector writes in memory until a flush, and keeps them when a flush fails: dropped
        here, so a stopped ingest can never be written later by this process."""
        for storage in (rag.chunks_vdb, rag.entities_vdb, rag.relationships_vdb, rag.text_chunks):
            if storage is not None:
                await storage.drop_pending_index_ops()

    async def _delete(self, rag, workspace_id: str, document_id: str) -> None:
        if self.exact_hash:
            await rag.chunks_vdb.db.pool.execute(_DELETE_HASH_VECTORS, uuid.UUID(workspace_id), uuid.UUID(document_id))
        status = await rag.doc_status.get_by_id(document_id)
        if status is not None:
            if never_touched_the_graph(status):
                _QUIET.graphless.add(document_id)
            try:
                result = await rag.adelete_by_doc_id(document_id)
            finally:
                _QUIET.graphless.discard(document_id)
            if result.status not in ("success", "not_found"):
                raise TransientError(f"the RAG store could not delete the old version: {result.message}")

    def delete_document(self, workspace_id: str, document_id: str, timeout: float = 300) -> None:
        async def run() -> None:
            await self._delete(await self._instance(workspace_id), workspace_id, document_id)

        self._run(run(), timeout)

    def retrieve(
        self, workspace_id: str, question: str, top_k: int, timeout: float = 120, scope: Collection[str] | None = None
    ) -> list[str]:
        """The SEG ids of the segments the vector search finds for a question, best first; with a `scope` (document
        ids), only those documents' (None: the whole workspace)."""
        return self.start_retrieve(workspace_id, question, top_k, scope).result(timeout)

    def start_retrieve(
        self, workspace_id: str, question: str, top_k: int, scope: Collection[str] | None = None
    ) -> Future[list[str]]:
        """`retrieve`, running on the store's loop while the caller does something else (its full-text search)."""
        return asyncio.run_coroutine_threadsafe(self._retrieve(workspace_id, question, top_k, scope), self._loop)

    async def _retrieve(self, workspace_id: str, question: str, top_k: int, scope: Collection[str] | None) -> list[str]:
        """Naive mode, or any scoped question: segcite's SQL over the vectors (worker/vector_search.py). Mix mode's
        knowledge-graph query (LightRAG's `aquery_data`) cannot be limited to documents: a scoped question in mix
        mode searches the chunks alone."""
        from lightrag import QueryParam

        rag = await self._instance(workspace_id)
        if self.settings.segcite_rag_mode == "mix" and scope is None:
            result = await rag.aquery_data(
                question, QueryParam(mode="mix", chunk_top_k=top_k, top_k=top_k, enable_rerank=False)
            )
            return segment_ids_of(context_chunks(result))
        vector = (await self.embedder([question]))[0]
        if self.exact_hash:
            from query import search_terms

            terms = search_terms(question)
            return await self.hash_search.search(rag.chunks_vdb.db.pool, workspace_id, vector, terms, top_k, scope)
        return await self.dense_search.search(rag.chunks_vdb, np.asarray(vector, dtype=np.float32), top_k, scope)

    async def _store_hash_vectors(self, rag, workspace_id: str, document_id: str, segments: Sequence[Segment]) -> None:
        """The sparse copy of a document's chunk vectors, as LightRAG embedded them (kept by `_ReportingEmbedder`);
        one the ingest did not embed is embedded here."""
        kept = self.job.vectors if self.job is not None and self.job.vectors is not None else {}
        missing = [s for s in segments if s.segment_id not in kept]
        if missing:
            vectors = await self.embedder([tagged_text(s) for s in missing])
            kept = kept | {s.segment_id: v for s, v in zip(missing, vectors, strict=True)}
        async with rag.chunks_vdb.db.pool.acquire() as conn, conn.transaction():
            await conn.execute(_DELETE_HASH_VECTORS, uuid.UUID(workspace_id), uuid.UUID(document_id))
            await self._insert_hash_vectors(
                conn, workspace_id, [(document_id, s.segment_index, sparse(kept[s.segment_id])) for s in segments]
            )

    async def _backfill_hash_vectors(self, rag, workspace_id: str) -> None:
        """Chunks stored before migration 012 get their sparse copy, from LightRAG's own vectors, at the
        workspace's first use in this process (a no-op once written: one index probe per document's chunk)."""
        vdb = rag.chunks_vdb
        query = _CHUNKS_WITHOUT_HASH_VECTOR.format(table=vdb.table_name)
        chunks = await vdb.db.pool.fetch(query, vdb.workspace, self.hash_model, uuid.UUID(workspace_id))
        rows = []
        for chunk in chunks:
            parsed = parse_segment_id(leading_tag_id(chunk["content"]) or "")
            if parsed is not None and is_uuid(parsed[0]):  # segcite's document ids are; a stray chunk is skipped
                rows.append((*parsed, chunk["embedding"]))
        if rows:
            await self._insert_hash_vectors(vdb.db.pool, workspace_id, rows)

    async def _insert_hash_vectors(self, conn, workspace_id: str, rows: list[tuple[str, int, SparseVector]]) -> None:
        """(document id, segment index, vector) rows into segcite_hash_vectors."""
        await conn.execute(
            _INSERT_HASH_VECTORS,
            self.hash_model,
            uuid.UUID(workspace_id),
            [uuid.UUID(document) for document, _, _ in rows],
            [index for _, index, _ in rows],
            [vector for _, _, vector in rows],
        )

    def index_workspace(self, workspace_id: str, timeout: float = 3600) -> bool:
        """A real model's workspace gets its own HNSW index once it is big enough (done at ingest; this builds it
        for a workspace that grew before it was done, e.g. one ingested before this version)."""

        async def run() -> bool:
            rag = await self._instance(workspace_id)
            return False if self.exact_hash else await self.dense_search.index_workspace(rag.chunks_vdb)

        return self._run(run(), timeout)

    def chunk_count(self, workspace_id: str, document_id: str) -> int:
        async def run() -> int:
            status = await (await self._instance(workspace_id)).doc_status.get_by_id(document_id)
            return int((status or {}).get("chunks_count") or 0)

        return self._run(run(), 60)

    def close(self) -> None:
        async def finalize() -> None:
            for rag in self._instances.values():
                await rag.finalize_storages()

        try:
            self._run(finalize(), 30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
