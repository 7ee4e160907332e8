"""The prompt of design §5.2: context as `[SEG=doc:idx] text` lines and the JSON `sections` contract."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ingest import Segment, neutralize_seg_tags
from query.citations.model import as_segments

SYSTEM_PROMPT = """You answer questions about the user's documents using ONLY the context segments below.
Each segment starts with its id in a tag: [SEG=<document_id>:<segment_index>].

Reply with JSON only, exactly in this shape:
{"sections": [{"text": "<one part of the answer>", "source_ids": ["<document_id>:<segment_index>"]}]}

Rules:
- Write each section as one or two full sentences that state the fact in words, not only a bare value
  (write "The total of the invoice is 62,86 €.", not "62,86 €").
- In source_ids list only the ids of the segments that contain what the section says, written as
  <document_id>:<segment_index> (without "SEG=" or brackets). Do not list every id of the context: a segment
  that does not state the section's fact or number is not a source of it.
- Use only ids that appear in the context. Never invent or alter an id.
- Do not put SEG tags or [n] markers in the text, and write nothing outside the JSON.
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
    question_text = neutralize_seg_tags(question.strip())  # the user's own words cannot forge a tag either
    messages.append({"role": "user", "content": f"Context:\n{context_text}\n\nQuestion: {question_text}"})
    return messages
