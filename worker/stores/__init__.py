"""Where rows and events go (design §2, §6): the `Store` protocol the work is written against, and the two
stores behind it (`postgres`: psycopg on any PostgreSQL; `supabase`: PostgREST and Realtime over HTTPS)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol

from ingest import Segment, parse_segment_id
from query import search_terms
from worker.settings import Settings
from worker.stores.rows import ConversationRow, DocumentRow, InboxStat, MessageRow, PageImageRow, Role, WorkspaceStat

# How many of a text's words a full-text search is given; the search keeps the rarest of them.
MAX_SEARCH_TERMS = 200


class Store(Protocol):
    def close(self) -> None: ...

    def create_document(
        self,
        workspace_id: str,
        filename: str,
        key: str,
        document_id: str | None = None,
        content_hash: str | None = None,
    ) -> DocumentRow:
        """A new `uploaded` document. Raises DuplicateContent when a live document of the workspace already has
        `content_hash` (two uploads of the same bytes racing each other make one document)."""
        ...

    def get_document(self, document_id: str) -> DocumentRow | None: ...
    def documents(self, workspace_id: str, *, include_deleted: bool = False) -> list[DocumentRow]:
        """The workspace's documents, oldest first."""
        ...

    def workspaces(self) -> list[WorkspaceStat]:
        """Every workspace that holds a document (any status) or a conversation, latest activity first."""
        ...

    def document_with_content(self, workspace_id: str, content_hash: str) -> DocumentRow | None:
        """The live (not deleted) document of the workspace whose `content_hash` this is, if any."""
        ...

    def update_document(self, document_id: str, **fields: Any) -> DocumentRow: ...
    def replace_segments(self, document: DocumentRow, segments: Sequence[Segment]) -> None: ...
    def delete_segments(self, document_id: str) -> None: ...
    def segments_by_ids(self, workspace_id: str, segment_ids: Iterable[str]) -> dict[str, Segment]: ...
    def page_images(self, document_ids: Iterable[str]) -> dict[tuple[str, int], PageImageRow]:
        """The stored page images of these documents, by (document_id, page_idx)."""
        ...

    def replace_page_images(self, document: DocumentRow, pages: Sequence[PageImageRow]) -> list[str]:
        """The document's page rows become exactly these; returns the image keys that no row names any more
        (the caller deletes those objects)."""
        ...

    def delete_page_images(self, document_id: str) -> list[str]:
        """Removes the document's page rows; returns the image keys that no row names any more."""
        ...

    def search_segments(
        self, workspace_id: str, terms: Sequence[str], limit: int, scope: Collection[str] | None = None
    ) -> list[Segment]:
        """Full-text hits for any of `terms`, best ranked first, at most `limit`; with a `scope` (document ids),
        only those documents' segments (None: the whole workspace)."""
        ...

    def create_conversation(self, workspace_id: str, document_ids: Sequence[str] | None = None) -> str:
        """A new conversation of the workspace, asked of `document_ids` (None: the whole workspace). A document of
        another workspace is refused by the database (migrations/017_conversation_scope.sql)."""
        ...

    def get_conversation(self, conversation_id: str) -> ConversationRow | None: ...
    def create_message(
        self,
        conversation_id: str,
        role: Role,
        content: str,
        reply_to: str | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> MessageRow:
        """A message; a question's `document_ids` are its sources, narrowing its conversation's (None: the
        conversation's)."""
        ...

    def get_message(self, message_id: str) -> MessageRow | None: ...
    def history(self, message: MessageRow, limit: int) -> list[dict[str, str]]: ...
    def last_answer(self, workspace_id: str | None = None) -> MessageRow | None:
        """The most recently done assistant message: of the workspace, or of any workspace with None."""
        ...

    def update_message(self, message_id: str, **fields: Any) -> MessageRow: ...
    def finish_message(self, message_id: str, **fields: Any) -> MessageRow | None:
        """`update_message` of a message still pending or processing, in one statement; None when it was
        finished meanwhile (answered, failed, or withdrawn by its asker), which is then left as it is."""
        ...

    def claim_message(self, message_id: str) -> MessageRow | None:
        """Move a `pending` message to `processing` (with its event) in one statement; None if it was not
        pending, so two tasks for one message never both start it."""
        ...

    def publish_delta(self, message: MessageRow, delta: dict[str, Any]) -> None:
        """A `message.delta` event on the message's topic; no row is written."""
        ...

    def stale(self, older_than_seconds: int, started_only: bool = False) -> tuple[list[str], list[str]]:
        """Ids of unfinished documents and messages whose row has not moved for `older_than_seconds`; with
        `started_only`, only those a task had started."""
        ...

    def record_work(self, task: str, target: str) -> None:
        """An inbox entry (migrations/007_inbox.sql), as the triggers write it: kept once if already waiting,
        and the takers woken."""
        ...

    def inbox_stats(self) -> list[InboxStat]:
        """Entries waiting in the inbox per task kind, with the oldest one's age."""
        ...

    def inbox_holds(self, task: str, target: str) -> bool:
        """Whether this entry still waits in the inbox (no worker has taken it)."""
        ...


class WorkspaceSegments:
    """One workspace's segments as the query side sees them (`query.SegmentSource`): lookups by id, and
    full-text candidates for the fallback's workspace tier (design §5.5), from whichever store is configured.
    With a `scope` (document ids: the sources a question is asked of, design §5.10) both see only those documents,
    so no id of another document exists and no text of one is matched."""

    def __init__(self, store: Store, workspace_id: str, scope: Collection[str] | None = None):
        self.store = store
        self.workspace_id = workspace_id
        self.scope = None if scope is None else frozenset(d.lower() for d in scope)

    def lookup(self, segment_ids: Iterable[str]) -> dict[str, Segment]:
        if self.scope is not None:
            scope = self.scope
            segment_ids = [i for i in segment_ids if (p := parse_segment_id(i)) is not None and p[0].lower() in scope]
        return self.store.segments_by_ids(self.workspace_id, segment_ids)

    def candidates(self, text: str, limit: int) -> list[Segment]:
        # spelled as the index holds them
        return self.search(search_terms(text, MAX_SEARCH_TERMS), limit, self.scope)

    def search(self, terms: Sequence[str], limit: int, scope: Collection[str] | None = None) -> list[Segment]:
        """Full-text hits for any of `terms`, ranked (idf of the rarest of them), at most `limit`; with a `scope`
        (document ids), only those documents' segments."""
        return self.store.search_segments(self.workspace_id, terms, limit, scope)


def make_store(settings: Settings, database_url: str, *, max_size: int = 4) -> Store:
    """The configured store (`SEGCITE_STORE`)."""
    if settings.segcite_store == "supabase":
        from worker.stores.supabase import SupabaseStore

        return SupabaseStore(settings)
    from worker.stores.postgres import PostgresStore

    return PostgresStore(database_url, max_size=max_size, timeout=settings.segcite_db_timeout)
