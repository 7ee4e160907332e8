"""The work on messages behind the tasks: a pending assistant message -> retrieval -> the model -> a checked,
cited answer (`query.build_answer`) -> published on the row and its realtime topic.

The answer is kept in Redis between computing and publishing it, so a failed publish is retried without
asking the model again.
"""

from __future__ import annotations

from typing import Any

from query import build_answer
from worker.errors import PermanentError
from worker.retrieval import retrieve_context
from worker.runtime import Runtime
from worker.stores import WorkspaceSegments
from worker.stores.rows import MESSAGE_FINISHED, MessageStatus, Role

HISTORY_MESSAGES = 8


def compute_answer(rt: Runtime, message_id: str) -> dict[str, Any] | None:
    """The payload for a pending assistant message (None: nothing to do)."""
    message = rt.store.get_message(message_id)
    if message is None or message.status in MESSAGE_FINISHED:
        return None
    cached = rt.answers.get(message_id)
    if cached is not None:
        return cached
    if message.role != Role.ASSISTANT or not message.reply_to:
        raise PermanentError("only an assistant message that replies to a user message can be answered")
    question = rt.store.get_message(message.reply_to)
    if question is None:
        raise PermanentError(f"the user message {message.reply_to} this answers does not exist")
    if message.status != MessageStatus.PROCESSING:
        rt.store.update_message(message_id, status=MessageStatus.PROCESSING)
    history = rt.store.history(message, HISTORY_MESSAGES)
    workspace = WorkspaceSegments(rt.store, message.workspace_id)
    context = retrieve_context(rt.rag, workspace, question.content, rt.settings.segcite_top_k)
    raw = rt.answerer.answer(question.content, context, history)
    payload = build_answer(raw, context=context, workspace=workspace)
    payload["metadata"]["context_ids"] = [s.segment_id for s in context]
    rt.answers.put(message_id, payload)
    return payload


def publish_answer(rt: Runtime, message_id: str, payload: dict[str, Any]) -> None:
    rt.store.update_message(
        message_id, status=MessageStatus.DONE, content=payload["content"], metadata=payload["metadata"], error=None
    )
    rt.answers.drop(message_id)


def answer_message(rt: Runtime, message_id: str) -> dict[str, Any]:
    payload = compute_answer(rt, message_id)
    if payload is None:
        return {"message_id": message_id, "skipped": "not pending"}
    publish_answer(rt, message_id, payload)
    return {"message_id": message_id, "stats": payload["metadata"]["stats"]}
