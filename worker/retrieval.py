"""Retrieval (design §4): the segments a question's answer is built from, its *context*. The one retrieval
module: the answer task calls `retrieve_context`, and nothing else asks the RAG store for context."""

from __future__ import annotations

from ingest import Segment
from worker.rag import RagStore
from worker.stores import WorkspaceSegments


def retrieve_context(rag: RagStore, segments: WorkspaceSegments, question: str, top_k: int) -> list[Segment]:
    """The top K segments for a question, best first. Text, page and box come from `document_segments`."""
    ids = rag.retrieve(segments.workspace_id, question, top_k)
    found = segments.lookup(ids)
    return [found[i] for i in ids if i in found]
