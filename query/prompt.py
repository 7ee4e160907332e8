"""The prompt of design §5.2: context as `[SEG=doc:idx] text` lines and the JSON `sections` contract."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ingest import Segment, neutralize_seg_tags
from query.model import as_segments

SYSTEM_PROMPT = """You answer questions about the user's documents using ONLY the context segments below.
Each segment starts with its id in a tag: [SEG=<document_id>:<segment_index>].

Reply with JSON only, exactly in this shape:
{"sections": [{"text": "<one part of the answer>", "source_ids": ["<document_id>:<segment_index>"]}]}

Rules:
- Every section lists in source_ids the ids of the segments that support it, written as
  <document_id>:<segment_index> (without "SEG=" or brackets).
- Use only ids that appear in the context. Never invent or alter an id.
- Do not put SEG tags or [n] markers in the text.
- If the context does not contain the answer, say so in one section with an empty source_ids list."""

MAX_HISTORY_MESSAGES = 8


def format_context(context: Iterable[Segment | Mapping[str, Any]]) -> str:
    """One `[SEG=id] text` block per segment; text inside the document cannot forge a tag."""
    return "\n\n".join(
        f"[SEG={s.segment_id}] (page {s.page_idx + 1}) {neutralize_seg_tags(s.text)}" for s in as_segments(context)
    )


def build_messages(
    question: str,
    context: Iterable[Segment | Mapping[str, Any]],
    history: Sequence[Mapping[str, str]] = (),
) -> list[dict[str, str]]:
    """Chat messages for an OpenAI-compatible API: system rules, recent history, then context + question.

    `history` holds earlier turns as `{"role": "user"|"assistant", "content": str}`, oldest first.
    """
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    for turn in list(history)[-MAX_HISTORY_MESSAGES:]:
        role = turn.get("role")
        content = str(turn.get("content") or "").strip()
        if role in ("user", "assistant") and content:
            messages.append({"role": role, "content": neutralize_seg_tags(content)})
    context_text = format_context(context) or "(no segments were found for this question)"
    messages.append({"role": "user", "content": f"Context:\n{context_text}\n\nQuestion: {question.strip()}"})
    return messages
