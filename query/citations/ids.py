"""Source-id validation of design §5.4: parse -> exists -> in context -> canonical. Strict: never corrects."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection

import msgspec

from ingest import Segment, make_segment_id, parse_segment_id, take_seg_tags


class IdCheck(msgspec.Struct, frozen=True):  # a Struct: built in C, one per id
    raw: str
    segment: Segment | None  # set when the id is valid
    error: str | None  # set when it is not


@functools.lru_cache(maxsize=4096)
def parse_source_id(raw: str) -> tuple[str, int] | None:
    """(`document_id`, `segment_index`) of a well-formed id, else None. Only one `SEG=` / `[SEG=…]` wrapper
    around the whole id is unwrapped; the id itself must be strict (`ingest.parse_segment_id`)."""
    text = raw.strip()
    rest, tagged = take_seg_tags(text)
    if len(tagged) == 1 and not rest.strip():
        text = tagged[0]
    return parse_segment_id(text)


def check_source_ids(
    raw_ids: list[str],
    lookup: Callable[[str], Segment | None],
    context_ids: Collection[str],
) -> list[IdCheck]:
    """Each raw id checked in order; a repeated id is reported once."""
    checks: list[IdCheck] = []
    seen: set[str] = set()
    for raw in raw_ids:
        parsed = parse_source_id(raw)
        if parsed is None:
            checks.append(IdCheck(raw, None, f"malformed id {raw.strip()!r}"))
            continue
        segment_id = make_segment_id(*parsed)
        if segment_id in seen:
            continue
        seen.add(segment_id)
        segment = lookup(segment_id)
        if segment is None:
            checks.append(IdCheck(raw, None, f"unknown segment {segment_id}"))
        elif segment_id not in context_ids:
            checks.append(IdCheck(raw, None, f"segment {segment_id} was not in this question's context"))
        else:
            checks.append(IdCheck(raw, segment, None))
    return checks
