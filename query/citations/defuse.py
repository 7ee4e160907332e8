"""`ingest.neutralize_seg_tags` without its regex passes for the text it would leave as it is.

Every section, quote, snippet and the whole content of an answer go through it; its two scans of the text cost
more than the rest of a snippet's making. ASCII text with no `=`, no character reference that could name one
(`&#61;`, `&equals;`) and no control character but a tab or a line break (which the RAG store keeps) cannot
hold a SEG-like sequence nor anything the store strips: a byte translation tells that in one C pass.
"""

from __future__ import annotations

from ingest import neutralize_seg_tags

_KEPT_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r"  # printable ASCII, tab, line breaks


def unchanged_by_neutralizing(text: str) -> bool:
    """A sufficient test that `neutralize_seg_tags(text) == text` (False says nothing)."""
    return (
        text.isascii()
        and "=" not in text
        and ("&" not in text or ("&#" not in text and "&equals;" not in text))
        and not text.encode().translate(None, _KEPT_BYTES)
    )


def defused(text: str) -> str:
    """`neutralize_seg_tags(text)`."""
    return text if unchanged_by_neutralizing(text) else neutralize_seg_tags(text)
