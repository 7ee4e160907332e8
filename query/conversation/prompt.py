"""The model's rewrite of a follow-up (design §5.10): one short call, its messages built here and its reply read here;
the call itself is the worker's (worker/rewrite.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ingest import neutralize_seg_tags
from query.language.terms import QUESTION_CHARS_READ, has_words

REWRITE_MAX_TOKENS = 200  # a question, not an answer
REWRITE_SYSTEM_PROMPT = """You rewrite the newest question of a conversation about the user's documents so that it
can be understood without the conversation. Carry over from the earlier turns what the question leaves out: the
document, party or subject it refers to (words such as "it", "that bill", "she", "the same invoice", "cette facture",
"diese Rechnung", or nothing at all, as in "And the due date?"). If the question names a subject of its own (another
document, company, person or number), it stands alone: return it unchanged. Keep the question's language and
wording otherwise. Do not answer it. Reply with the rewritten question only, on one line."""
HISTORY_TURNS = 6  # the earlier messages the model is shown
ANSWER_CHARS = 400  # of each earlier answer: what it was about, not all of it
_MARKERS = re.compile(r"\s*\[\d+\](?:\s*\[\d+\])*")
_LABEL = re.compile(r"^(?:standalone|rewritten|rewrite|question|standalone question|rewritten question)\s*:\s*", re.I)
_QUOTES = "\"'“”«»`"


def rewrite_messages(question: str, history: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """The chat messages of the rewrite call: the rules, then the earlier turns and the newest question as one user
    message (earlier answers without their citation markers, cut to their start)."""
    lines = []
    for turn in list(history)[-HISTORY_TURNS:]:
        content = str(turn.get("content") or "").strip()
        if turn.get("role") == "assistant":
            content = _MARKERS.sub("", content)[:ANSWER_CHARS]
            lines.append(f"Assistant: {content}")
        elif turn.get("role") == "user":
            lines.append(f"User: {content[:QUESTION_CHARS_READ]}")
    conversation = neutralize_seg_tags("\n".join(lines))
    newest = neutralize_seg_tags(question[:QUESTION_CHARS_READ].strip())
    return [
        {"role": "system", "content": REWRITE_SYSTEM_PROMPT},
        {"role": "user", "content": f"Conversation so far:\n{conversation}\n\nNewest question: {newest}"},
    ]


def read_rewrite(reply: str | None, question: str) -> str | None:
    """The standalone question in a model's reply: its first line, without a label ("Standalone question:") or quotes
    around it; None where there is none (empty, no words) or the model wrote far more than a question (an answer)."""
    line = next((line.strip() for line in (reply or "").splitlines() if line.strip()), "")
    line = _LABEL.sub("", line).strip()
    if len(line) >= 2 and line[0] in _QUOTES and line[-1] in _QUOTES:
        line = line[1:-1].strip()
    if not has_words(line) or len(line) > 2 * len(question) + 400:
        return None
    return line
