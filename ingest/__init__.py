"""Pure: Document AI JSON -> page-indexed segments and SEG-tagged text. No I/O, no Celery.

`ingest` owns the segment id format (`ingest.ids`) and the SEG tag format (`ingest.tags`): everyone else calls
these functions instead of matching ids or tags themselves.
"""

from ingest.ids import is_uuid, make_segment_id, parse_segment_id
from ingest.model import BBox, InvalidDocument, Line, Segment
from ingest.segments import build_segments, page_sizes
from ingest.tags import (
    contains_seg_tag,
    leading_tag_id,
    neutralize_seg_tags,
    seg_tag,
    split_ids,
    tagged_text,
    take_seg_tags,
    without_leading_tag,
)

__all__ = [
    "BBox",
    "InvalidDocument",
    "Line",
    "Segment",
    "build_segments",
    "contains_seg_tag",
    "is_uuid",
    "leading_tag_id",
    "make_segment_id",
    "neutralize_seg_tags",
    "page_sizes",
    "parse_segment_id",
    "seg_tag",
    "split_ids",
    "tagged_text",
    "take_seg_tags",
    "without_leading_tag",
]
