"""Pure: prompt, answer parsing, source-id validation, citations, text-match fallback, markers, payload."""

from query.answer import build_answer, snippet_preview, with_markers
from query.ids import check_source_ids, parse_source_id
from query.markers import parse_markers, split_sentences
from query.match import SegmentIndex, SegmentSource, best_match, match_score
from query.model import ResolvedSection, Section
from query.parse import parse_sections
from query.prompt import build_messages
from query.resolve import resolve_sections

__all__ = [
    "ResolvedSection",
    "Section",
    "SegmentIndex",
    "SegmentSource",
    "best_match",
    "build_answer",
    "build_messages",
    "check_source_ids",
    "match_score",
    "parse_markers",
    "parse_sections",
    "parse_source_id",
    "resolve_sections",
    "snippet_preview",
    "split_sentences",
    "with_markers",
]
