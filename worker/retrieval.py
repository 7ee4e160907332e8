"""Retrieval (design §4): the segments a question's answer is built from, its *context*. The one retrieval
module: the answer task calls `retrieve_context`, and nothing else asks for context.

Hybrid: a vector search (worker/vector_search.py) and PostgreSQL's full-text search over the workspace's
`document_segments` (the question's rarest informative terms, ranked by idf: migrations/016_search_scope.sql) each
rank candidates; reciprocal rank fusion merges them and drops segments whose text repeats a better-ranked one
(`query.retrieval.fusion`, pure). Both stores run the same full-text search (the `supabase` one through its RPC).

A question may be scoped to chosen documents (`scope`: their ids; None: the whole workspace): both searches apply
it inside their SQL, through an index, so a scoped question costs no more than one over the whole workspace.
"""

from __future__ import annotations

from collections.abc import Collection

from ingest import Segment
from query import QUESTION_CHARS_READ, duplicate_key, fuse, search_terms
from worker.rag import RagStore
from worker.stores import WorkspaceSegments

# Each search returns this many times top K, so that dropping repeated texts still leaves K.
CANDIDATES_PER_SLOT = 3
VECTOR_SEARCH_TIMEOUT = 120.0  # seconds, as RagStore.retrieve's


def retrieve_context(
    rag: RagStore,
    segments: WorkspaceSegments,
    question: str,
    top_k: int,
    scope: Collection[str] | None = None,
) -> list[Segment]:
    """The context of a question, best first: its top K segments that are not fields, then at most K // 2 fields
    of their documents, which ride along (`query.retrieval.fusion.fuse`): at most K + K // 2 in all, as the README and
    docs/answer-payload.md say of `context_ids`. Text, page and box come from `document_segments`. A
    question too short for LightRAG ("税", "ab": it refuses under 3 characters, a CJK one counting 2) is looked
    up by full-text search alone; a very long one by its start (`QUESTION_CHARS_READ`), as the answerer reads it.
    With a `scope` (document ids of the workspace), only those documents' segments are searched."""
    from lightrag.query_validation import meets_min_rag_query_weight

    pool = top_k * CANDIDATES_PER_SLOT
    start = question[:QUESTION_CHARS_READ]  # the rest is pasted text (and an embedding model has a token limit)
    # The two searches run at once: the vector one on the RAG store's loop, the full-text one here.
    vector_search = (
        rag.start_retrieve(segments.workspace_id, start, pool, scope) if meets_min_rag_query_weight(start) else None
    )
    full_text = segments.search(search_terms(start), pool, scope)
    vector_ids = vector_search.result(VECTOR_SEARCH_TIMEOUT) if vector_search is not None else []
    found = {s.segment_id: s for s in full_text}
    found |= segments.lookup(i for i in vector_ids if i not in found)
    ranked_vector = [i for i in vector_ids if i in found]  # a chunk whose segment is gone is not context
    ranked_full_text = [s.segment_id for s in full_text]
    texts = {i: duplicate_key(s.kind, s.text) for i, s in found.items()}
    fields = {i for i, s in found.items() if s.kind == "field"}  # they ride along with their documents
    laid_out = {i for i, s in found.items() if s.lines}  # of two copies of one text, the one with boxes
    chosen = fuse([ranked_vector, ranked_full_text], texts, top_k, fields=fields, laid_out=laid_out)
    return [found[i] for i in chosen]
