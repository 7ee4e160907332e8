"""The work on messages behind the tasks: a pending assistant message -> retrieval -> the model, streamed ->
a checked, cited answer (`query.build_answer`) -> published on the row and its realtime topic.

While the model writes, `message.delta` events carry the sections completed so far, resolved by the same path
as the final answer (design §6). The answer is kept in Redis between computing and publishing it, so a failed
publish is retried without asking the model again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from ingest import Segment, neutralize_seg_tags, take_seg_tags
from query import (
    NO_PAGE_IMAGES,
    AnswerBuilder,
    PageImages,
    SectionResolver,
    SegmentSource,
    build_answer,
    has_words,
    parse_sections,
)
from worker.errors import PermanentError, TransientError
from worker.page_images import CitedPageImages
from worker.retrieval import retrieve_context
from worker.runtime import Runtime
from worker.stores import WorkspaceSegments
from worker.stores.rows import MESSAGE_FINISHED, MessageRow, MessageStatus, Role
from worker.streaming import stream_reply

HISTORY_MESSAGES = 8
# A workspace with no live document at all; one still ingesting, or failed, answers "not found" meanwhile.
EMPTY_WORKSPACE = "the workspace holds no documents: add one, then ask again"


class AnsweredElsewhere(Exception):
    """Another task holds this message's answer: this one stands aside (one question, one model call)."""


def compute_answer(rt: Runtime, message_id: str, claimant: str | None = None) -> dict[str, Any] | None:
    """The payload for a pending assistant message (None: nothing to do). `claimant` is the task's id: a second
    task for the message raises AnsweredElsewhere while the first one works."""
    message = rt.store.get_message(message_id)
    if message is None or message.status in MESSAGE_FINISHED:
        return None
    if claimant is not None and not rt.answer_claims.take(message_id, claimant, rt.settings.segcite_task_time_limit):
        raise AnsweredElsewhere(message_id)
    cached = rt.answers.get(message_id)
    if cached is not None:
        return cached
    if message.role != Role.ASSISTANT or not message.reply_to:
        raise PermanentError("only an assistant message that replies to a user message can be answered")
    question = rt.store.get_message(message.reply_to)
    if question is None:
        raise PermanentError(f"the user message {message.reply_to} this answers does not exist")
    if not has_words(question.content):
        raise PermanentError("the question has no words (no letter or digit): ask something")
    # pending -> processing in one statement: of two tasks that both read `pending`, one starts the work.
    if message.status == MessageStatus.PENDING and rt.store.claim_message(message_id) is None:
        message = rt.store.get_message(message_id)
        if message is None or message.status in MESSAGE_FINISHED:
            return None
        if claimant is None:  # started by someone else meanwhile
            raise AnsweredElsewhere(message_id)
    history = rt.store.history(message, HISTORY_MESSAGES)
    # The question as it stands alone (design §5.10): what retrieval, the answer and its checks read; a model
    # still sees the conversation.
    rewrite = rt.rewriter.rewrite(question.content, history)
    asked = rewrite.question
    # The workspace's documents, read once: whether there is anything, the file names a question may give, and
    # which of the chosen sources are still there (one deleted since drops out).
    filenames = {d.id: d.filename for d in rt.store.documents(message.workspace_id)}
    scope = applied_scope(question.scope, filenames)
    workspace = WorkspaceSegments(rt.store, message.workspace_id, scope)
    context = retrieve_context(rt.rag, workspace, asked, rt.settings.segcite_top_k, scope)
    if not context and not filenames:  # nothing found, as there is nothing
        raise PermanentError(EMPTY_WORKSPACE)
    pages = CitedPageImages(rt.store)
    sections = StreamedSections(context, workspace, pages)
    send = _delta_sender(rt, message, restart=rt.streams.start(message_id))
    raw = stream_reply(rt.answerer.stream(asked, context, history), sections.resolve, send)
    if not raw.strip():
        raise TransientError("the LLM returned an empty answer")
    # the truth: what a client keeps
    payload = build_answer(
        raw, context=context, workspace=workspace, page_images=pages, question=asked, filenames=filenames
    )
    payload["metadata"] |= rewrite.metadata() | {"document_ids": scope}
    usage = _summed(rt.answerer.usage, rewrite.usage)
    if usage is not None:
        payload["metadata"]["usage"] = usage
    rt.answers.put(message_id, payload)
    return payload


def applied_scope(chosen: Sequence[str] | None, live: Mapping[str, str]) -> list[str] | None:
    """The documents a question is answered from: those chosen (its own within its conversation's, else its
    conversation's) that the workspace still holds (`live`: its documents that are not deleted); None where none were
    chosen (the whole workspace)."""
    if chosen is None:
        return None
    held = {d.lower() for d in live}
    return [d for d in dict.fromkeys(d.lower() for d in chosen) if d in held]


def _summed(*usages: dict[str, int] | None) -> dict[str, int] | None:
    """The tokens of the answer's model calls (the rewrite's and the answer's) added up; None where none reported."""
    given = [u for u in usages if u is not None]
    if not given:
        return None
    return {key: sum(u.get(key, 0) for u in given) for key in ("prompt_tokens", "completion_tokens", "total_tokens")}


class StreamedSections:
    """The sections of a streamed reply, each resolved once as it completes, by the path the final answer
    takes (`query.SectionResolver` + `query.AnswerBuilder`): same parse, same checks, and citation numbers by
    first appearance, so a delta shows what the final answer will (design §6)."""

    def __init__(
        self,
        context: list[Segment],
        workspace: SegmentSource | Mapping[str, Segment] | None,
        pages: PageImages = NO_PAGE_IMAGES,
    ):
        self.max_marker = len(context)
        self.resolver = SectionResolver(context=context, workspace=workspace)
        self.builder = AnswerBuilder(pages)
        self.done = 0  # complete section objects read so far
        self.resolved: list[dict[str, Any]] = []

    def resolve(self, items: list[Any]) -> list[dict[str, Any]]:
        """The delta's `sections`, given the complete section objects of the reply so far."""
        for item in items[self.done :]:
            for section in parse_sections(_as_reply([item]), max_marker=self.max_marker):
                self.resolved.append(self.builder.add(self.resolver.resolve(section)))
        self.done = len(items)
        citations = {c["number"]: c for c in self.builder.citations}
        return [
            {
                "content": neutralize_seg_tags(entry["marked_text"]),
                "citation_status": entry["citation_status"],
                "citations": [citations[n] for n in entry["citations"]],
            }
            for entry in self.resolved
        ]


def _as_reply(sections: list[Any]) -> str:
    return orjson.dumps({"sections": sections}).decode()


def shown_tail(tail: str) -> str:
    """The text of the section being written as a delta shows it: the model's raw words, so its tags (in any
    form that could be read as one) are removed and anything else tag-like is defused."""
    return neutralize_seg_tags(take_seg_tags(tail)[0])


def _delta_sender(rt: Runtime, message: MessageRow, restart: bool) -> Callable[[dict[str, Any]], None]:
    def send(delta: dict[str, Any]) -> None:
        event = {"message_id": message.id, **delta, "tail": shown_tail(delta["tail"])}
        if restart:
            event["restart"] = True  # a worker died mid-stream: this stream starts over from seq 0
        rt.store.publish_delta(message, event)

    return send


def publish_answer(rt: Runtime, message_id: str, payload: dict[str, Any]) -> None:
    """The answer written `done`, unless its message was finished meanwhile: a question its asker withdrew
    (`segcite chat`'s Ctrl-C marks it failed) keeps that status, and its answer is dropped."""
    rt.store.finish_message(
        message_id, status=MessageStatus.DONE, content=payload["content"], metadata=payload["metadata"], error=None
    )
    rt.answers.drop(message_id)
    rt.streams.end(message_id)


def answer_message(rt: Runtime, message_id: str, claimant: str | None = None) -> dict[str, Any]:
    try:
        payload = compute_answer(rt, message_id, claimant)
    except AnsweredElsewhere:
        return {"message_id": message_id, "skipped": "another task is answering it"}
    if payload is None:
        return {"message_id": message_id, "skipped": "not pending"}
    publish_answer(rt, message_id, payload)
    if claimant is not None:
        rt.answer_claims.release(message_id)  # answered: a retry the app asks for later may take it
    return {"message_id": message_id, "stats": payload["metadata"]["stats"]}
