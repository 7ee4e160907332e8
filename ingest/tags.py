"""SEG tags: how a segment enters the RAG store, and why a document cannot forge one."""

from __future__ import annotations

import re

from ingest.model import Segment

# Anything a reader (human, LLM or our own parser) could take for a tag: `SEG=`, `seg =`, `[SEG=`...
_SEG_LIKE = re.compile(r"S\s*E\s*G\s*=", re.IGNORECASE)
# What LightRAG deletes on insert (C0/C1 controls but tab/newline/CR, surrogates, non-characters). Removed
# before neutralizing, so `SE\x00G=` cannot turn into `SEG=` after we looked.
_STRIPPED_BY_STORE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def neutralize_seg_tags(text: str) -> str:
    """The text with every SEG-like sequence defused (`SEG=` -> `S-E-G=`)."""
    return _SEG_LIKE.sub("S-E-G=", _STRIPPED_BY_STORE.sub("", text))


def tagged_text(segment: Segment) -> str:
    """`[SEG=<segment_id>] <text>`: what the RAG store receives for one segment.

    LightRAG html-unescapes what it stores, so `&` is escaped once here: the store then holds exactly the
    neutralized text, and `SEG&#61;x:1` cannot become a tag after our check.
    """
    body = neutralize_seg_tags(segment.text).replace("&", "&amp;")
    return f"[SEG={segment.segment_id}] {body}"
