"""Pure: prompt, answer parsing, source-id validation, support scoring, citations, text-match fallback,
quotes, markers, payload. No I/O, no Celery."""

from query.answer import AnswerBuilder, build_answer, with_markers
from query.ids import check_source_ids, parse_source_id
from query.markers import parse_markers, split_sentences
from query.match import SegmentIndex, SegmentSource, best_match, match_score, ranked_matches
from query.model import ResolvedSection, Section, SectionCitation
from query.parse import ParsedAnswer, parse_answer, parse_sections
from query.prompt import build_messages
from query.quote import Quote, find_quote, quote_boxes, snippet_preview
from query.resolve import SectionResolver, resolve_sections
from query.verify import LexicalVerifier, Verdict, Verifier

__all__ = [
    "AnswerBuilder",
    "LexicalVerifier",
    "ParsedAnswer",
    "Quote",
    "ResolvedSection",
    "Section",
    "SectionCitation",
    "SectionResolver",
    "SegmentIndex",
    "SegmentSource",
    "Verdict",
    "Verifier",
    "best_match",
    "build_answer",
    "build_messages",
    "check_source_ids",
    "find_quote",
    "match_score",
    "parse_answer",
    "parse_markers",
    "parse_sections",
    "parse_source_id",
    "quote_boxes",
    "ranked_matches",
    "resolve_sections",
    "snippet_preview",
    "split_sentences",
    "with_markers",
]
