"""Pure: Document AI JSON -> page-indexed segments and SEG-tagged text. No I/O, no Celery."""

from ingest.model import BBox, InvalidDocument, Line, Segment, make_segment_id, parse_segment_id
from ingest.segments import build_segments
from ingest.tags import neutralize_seg_tags, tagged_text

__all__ = [
    "BBox",
    "InvalidDocument",
    "Line",
    "Segment",
    "build_segments",
    "make_segment_id",
    "neutralize_seg_tags",
    "parse_segment_id",
    "tagged_text",
]
