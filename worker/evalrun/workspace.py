"""A workspace's ingested documents and their segments, read from the store for question generation."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation import SegmentRef
from evaluation.questions import segment_refs
from worker.stores import Store
from worker.stores.rows import DocumentStatus

BATCH = 2000  # segment ids per read


@dataclass
class WorkspaceSegments:
    filenames: dict[str, str] = field(default_factory=dict)  # document id -> file name
    segments: list[SegmentRef] = field(default_factory=list)


def ingested_documents(store: Store, workspace_id: str) -> dict[str, str]:
    """The workspace's ingested documents: id -> file name."""
    return {d.id: d.filename for d in store.documents(workspace_id) if d.status == DocumentStatus.INGESTED}


def read_segments(store: Store, workspace_id: str) -> WorkspaceSegments:
    """Every segment of the workspace's ingested documents, in document and reading order."""
    out = WorkspaceSegments()
    ids: list[str] = []
    for document in store.documents(workspace_id):
        if document.status != DocumentStatus.INGESTED:
            continue
        out.filenames[document.id] = document.filename
        ids.extend(f"{document.id}:{index}" for index in range(document.segment_count or 0))
    found = {}
    for start in range(0, len(ids), BATCH):
        found.update(store.segments_by_ids(workspace_id, ids[start : start + BATCH]))
    out.segments = segment_refs([found[i] for i in ids if i in found], out.filenames)
    return out
