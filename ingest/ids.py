"""Segment ids: `<document_id>:<segment_index>`. The one place that writes and reads them."""

from __future__ import annotations

import re
import uuid

# ASCII only: `A:٣` (an Arabic-Indic three) is not `A:3`. A document id is a UUID or a slug-like name.
_SEGMENT_ID = re.compile(r"([A-Za-z0-9][A-Za-z0-9._\-]{0,127}):([0-9]{1,9})", re.ASCII)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.ASCII | re.IGNORECASE)


def is_uuid(text: str) -> bool:
    """Whether a document id is a UUID (segcite's are; the database's columns take nothing else)."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def make_segment_id(document_id: str, segment_index: int) -> str:
    return f"{document_id}:{segment_index}"


def parse_segment_id(raw: str) -> tuple[str, int] | None:
    """(`document_id`, `segment_index`) of a well-formed id, else None. Strict: no wrappers, no whitespace,
    ASCII digits only. A UUID document id comes back lower-cased (UUIDs compare case-insensitively)."""
    match = _SEGMENT_ID.fullmatch(raw)
    if match is None:
        return None
    document_id = match.group(1)
    if _UUID.fullmatch(document_id):
        document_id = document_id.lower()
    return document_id, int(match.group(2))
