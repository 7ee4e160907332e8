"""Vector search of one workspace, optionally scoped to chosen documents (design §4 "Scale", issues 44 and 41):
segcite's own SQL over the embedder's vectors, run on LightRAG's connections. A scope (document ids; None: the whole
workspace) is a condition of the query itself, served by an index, never a filter applied to its results.

- A real model's vectors (the `openai` provider) are LightRAG's chunk table's. A workspace of at least
  SEGCITE_HNSW_WORKSPACE_MIN segments gets an HNSW index of its own (a partial index, half precision, built once
  it reaches that size), so its search walks a graph of its own rows: LightRAG's one index over every workspace,
  filtered, walked far outside a workspace holding a few percent of the table (measured at 1,000,000 segments:
  recall@10 0.64-0.80 and p95 0.3-0.6 s for workspaces of 10,000-50,000). pgvector's iterative scans (a filtered
  scan, such as a scope's, goes on until it has K rows) and `ef_search` are set in the query's own transaction,
  so they hold through a transaction pooler as well. A smaller workspace, or a small scope, is planned as an exact
  scan of its rows (LightRAG's `(workspace, id)` index, or segcite's `(workspace, full_doc_id)` index on the same
  table for a scope).
- The offline `hash` embedder's vectors (nearly orthogonal: no HNSW graph navigates them) are kept sparse in
  `segcite_hash_vectors` (migration 012) and searched exactly, up to SEGCITE_EXACT_VECTOR_LIMIT segments in the
  workspace or scope; past it, only the candidates of the full-text search's first stage (the segments holding
  the question's rarest words, a bounded set: migration 016) are ranked by them, so its cost follows the answer.
  Either way only segments sharing a feature with the question are returned (a positive inner product): the others
  all score 0, and their order, the table's physical order, would differ between two workspaces of the same files.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from collections.abc import Collection, Sequence

import numpy as np
from pgvector import SparseVector

from ingest import leading_tag_id, make_segment_id
from worker.stores.rows import scope_ids

log = logging.getLogger(__name__)

# The exact search is forced off the sequential scan: that reads every workspace's rows, so it would grow with the
# table; a bitmap scan of the workspace's primary key prefix reads only its pages.
_EXACT_PLAN = "set local enable_seqscan = off"
_EXACT = (
    "select document_id, segment_index from (select document_id, segment_index, embedding <#> $3 as distance "
    "from segcite_hash_vectors where model = $1 and workspace_id = $2{scope}) as scored "
    "where distance < 0 order by distance limit $4"  # negative inner product (normalized vectors: cosine order)
)
_RANKED_CANDIDATES = (
    "select h.document_id, h.segment_index from segcite_search_candidates($2, $5, $4, $6) c "
    "join segcite_hash_vectors h on h.workspace_id = $2 and h.document_id = c.document_id "
    "and h.segment_index = c.segment_index and h.model = $1 "
    "where (h.embedding <#> $3) < 0 order by h.embedding <#> $3, h.document_id, h.segment_index limit $4"
)
_WORKSPACE_SIZE = "select coalesce((select segments from segcite_workspace_stats where workspace_id = $1), 0)"
_SCOPE_SIZE = "select coalesce(sum(segment_count), 0) from documents where workspace_id = $1 and id = any($2::uuid[])"
# Relaxed order returns K sooner and may swap neighbours: the K found are sorted again (pgvector's advice).
_DENSE = (
    "with found as materialized (select left(content, 200) as head, content_vector <=> $2::{kind} as distance "
    "from {table} where workspace = $1{scope} order by content_vector <=> $2::{kind} limit $3) "
    "select head from found order by distance"
)
_COLUMN_KIND = (
    "select t.typname from pg_attribute a join pg_type t on t.oid = a.atttypid "
    "where a.attrelid = $1::regclass and a.attname = 'content_vector'"
)
_WORKSPACE_ROWS = "select count(*) from {table} where workspace = $1"
_WORKSPACE_NAME = re.compile(r"ws_[0-9a-z]+")
# An HNSW build is fast while its graph fits in maintenance_work_mem, and crawls once it spills (a workspace of
# 600,000 vectors of 768 dimensions: 1.2 GB): each vector, its neighbours and some room, at most this much.
INDEX_BUILD_MEMORY_MAX = 8 * 2**30
_BYTES_PER_DIMENSION = {"halfvec": 2, "vector": 4}
_VALID_INDEX = "select i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = $1"


class HashVectorSearch:
    def __init__(self, model: str, exact_limit: int):
        self.model = model
        self.exact_limit = exact_limit

    async def search(
        self,
        pool,
        workspace_id: str,
        vector: np.ndarray,
        terms: Sequence[str],
        top_k: int,
        scope: Collection[str] | None = None,
    ) -> list[str]:
        if not np.any(vector):  # no content word: near nothing
            return []
        workspace = uuid.UUID(workspace_id)
        documents = None if scope is None else [uuid.UUID(d) for d in scope_ids(scope)]
        if documents == []:
            return []
        query = sparse(vector)
        async with pool.acquire() as conn, conn.transaction():
            if documents is None:
                size = await conn.fetchval(_WORKSPACE_SIZE, workspace)
            else:
                size = await conn.fetchval(_SCOPE_SIZE, workspace, documents)
            if size <= self.exact_limit:
                await conn.execute(_EXACT_PLAN)
                if documents is None:
                    rows = await conn.fetch(_EXACT.format(scope=""), self.model, workspace, query, top_k)
                else:
                    sql = _EXACT.format(scope=" and document_id = any($5::uuid[])")
                    rows = await conn.fetch(sql, self.model, workspace, query, top_k, documents)
            else:
                rows = await conn.fetch(_RANKED_CANDIDATES, self.model, workspace, query, top_k, list(terms), documents)
        return [make_segment_id(str(r["document_id"]), r["segment_index"]) for r in rows]


class DenseVectorSearch:
    """A real model's vectors in LightRAG's chunk table (`vdb`: its PGVectorStorage), through an HNSW index."""

    def __init__(self, ef_search: int, workspace_min: int):
        self.ef_search = ef_search
        self.workspace_min = workspace_min
        self._kinds: dict[str, str] = {}

    async def prepare(self, vdb) -> None:
        """The table's vector type (LightRAG makes it `halfvec` for its HNSW_HALFVEC index), and the index a scoped
        search takes: `(workspace, full_doc_id)`, built without blocking writes, once."""
        table = vdb.table_name.lower()
        pool = vdb.db.pool
        self._kinds[table] = await pool.fetchval(_COLUMN_KIND, table)
        name = scope_index_name(table)
        valid = await pool.fetchval(_VALID_INDEX, name)
        if not valid:
            await _build(
                pool,
                name,
                valid,
                f'create index concurrently if not exists "{name}" on {table} (workspace, full_doc_id)',
            )

    async def index_workspace(self, vdb) -> bool:
        """The workspace's own HNSW index, built (without blocking writes) once it holds `workspace_min` rows;
        whether it was built now. Its parameters are LightRAG's (POSTGRES_HNSW_M, POSTGRES_HNSW_EF)."""
        table = vdb.table_name.lower()
        if table not in self._kinds:
            await self.prepare(vdb)
        pool = vdb.db.pool
        name = workspace_index_name(table, vdb.workspace)
        valid = await pool.fetchval(_VALID_INDEX, name)
        rows = await pool.fetchval(_WORKSPACE_ROWS.format(table=table), vdb.workspace)
        if valid or rows < self.workspace_min:
            return False
        if not _WORKSPACE_NAME.fullmatch(vdb.workspace):  # it is written into the index's predicate
            raise ValueError(f"unexpected workspace name {vdb.workspace!r}")
        kind = self._kinds[table]
        graph = rows * (_BYTES_PER_DIMENSION.get(kind, 4) * vdb.embedding_func.embedding_dim + 64 * int(vdb.db.hnsw_m))
        memory = min(INDEX_BUILD_MEMORY_MAX, max(64 * 2**20, int(graph * 1.5))) // 2**20
        return await _build(
            pool,
            name,
            valid,
            f'create index concurrently if not exists "{name}" on {table} using hnsw '
            f"(content_vector {kind}_cosine_ops) with (m = {int(vdb.db.hnsw_m)}, "
            f"ef_construction = {int(vdb.db.hnsw_ef)}) where workspace = '{vdb.workspace}'",
            memory=f"{memory}MB",
        )

    async def search(self, vdb, vector: np.ndarray, top_k: int, scope: Collection[str] | None = None) -> list[str]:
        table = vdb.table_name.lower()
        if table not in self._kinds:
            await self.prepare(vdb)
        kind = self._kinds[table]
        sql = _DENSE.format(kind=kind, table=table, scope="" if scope is None else " and full_doc_id = any($4::text[])")
        args: list = [vdb.workspace, vector, top_k]
        if scope is not None:
            args.append([str(d) for d in scope])
        async with vdb.db.pool.acquire() as conn, conn.transaction():
            # Planned for this workspace and scope (a prepared statement's generic plan would be one for all).
            await conn.execute(
                f"set local hnsw.iterative_scan = relaxed_order; set local hnsw.ef_search = {int(self.ef_search)}; "
                "set local plan_cache_mode = force_custom_plan"
            )
            rows = await conn.fetch(sql, *args)
        return list(dict.fromkeys(i for i in (leading_tag_id(r["head"]) for r in rows) if i))


async def _build(pool, name: str, valid: bool | None, statement: str, memory: str | None = None) -> bool:
    """An index built without blocking writes; whether it was. An interrupted build leaves an invalid index, dropped
    first. Two workers may build it at once: the index is an optimization, so a failure is logged, and the next
    ingest (or worker) tries again."""
    import asyncpg

    async with pool.acquire() as conn:
        try:
            if valid is False:
                await conn.execute(f'drop index concurrently if exists "{name}"')
            if memory:  # the graph is built in memory
                await conn.execute(f"set maintenance_work_mem = '{memory}'")
            await conn.execute(statement)
            return True
        except asyncpg.PostgresError as exc:
            log.warning("index %s not built (%s); it will be tried again", name, exc)
            return False
        finally:
            await conn.execute("reset maintenance_work_mem")


def workspace_index_name(table: str, workspace: str) -> str:
    return "segcite_hnsw_" + hashlib.md5(f"{table}/{workspace}".encode()).hexdigest()[:16]


def scope_index_name(table: str) -> str:
    return "segcite_scope_" + hashlib.md5(table.encode()).hexdigest()[:16]


def sparse(vector: np.ndarray) -> SparseVector:
    """A vector as pgvector's sparsevec, built from its binary form in numpy (pgvector's own conversion of a dense
    one loops over every dimension in Python, and one from a dict over every element: 0.2 ms a segment at ingest)."""
    nonzero = np.flatnonzero(vector)
    head = np.array([len(vector), len(nonzero), 0], dtype=">i4").tobytes()
    return SparseVector.from_binary(head + nonzero.astype(">i4").tobytes() + vector[nonzero].astype(">f4").tobytes())
