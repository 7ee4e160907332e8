"""Pure: from a question, its context and a model's reply to the message payload with checked citations. No I/O, no
Celery.

Four roles, a subpackage each:
- `query.citations`: the citation path (design §5.2-5.8): prompt, reply parsing, source-id validation, support,
  citation resolution, text-match fallback, quotes, markers, payload;
- `query.reader`: the offline answerer, which reads the context and copies what answers;
- `query.fit`: does a claim answer the question, and is it verified (design §5.9): the answer's status;
- `query.language`: what the words say, read alike by the three: words and stems, a question's kind and focus,
  values, a claim's and a passage's content words;
and `query.retrieval`, the pure half of retrieval (search terms, the fusion of rankings), and `query.conversation`, a
follow-up read with its conversation (design §5.10: the standalone question, by rules or by a model's rewrite).

Code outside `query` imports the names below; the modules behind them may move."""

from query.citations.answer import NO_PAGE_IMAGES, AnswerBuilder, PageImages, build_answer, with_markers
from query.citations.ids import check_source_ids, parse_source_id
from query.citations.markers import parse_markers, split_sentences
from query.citations.match import SegmentIndex, SegmentSource, best_match, match_score, ranked_matches
from query.citations.model import ResolvedSection, Section, SectionCitation
from query.citations.parse import ParsedAnswer, parse_answer, parse_sections
from query.citations.prompt import build_messages
from query.citations.quote import Quote, find_quote, quote_boxes, snippet_preview
from query.citations.resolve import SectionResolver, resolve_sections
from query.citations.verify import LexicalVerifier, Verdict, Verifier
from query.conversation import REWRITE_MAX_TOKENS, Standalone, read_rewrite, rewrite_messages, standalone_question
from query.fit.verdict import uncertain_note
from query.language.terms import QUESTION_CHARS_READ, embedding_features, has_words
from query.reader.extractive import NOT_FOUND, extractive_answer, extractive_sections
from query.retrieval.fusion import duplicate_key, fuse, search_terms

__all__ = [
    "NOT_FOUND",
    "NO_PAGE_IMAGES",
    "QUESTION_CHARS_READ",
    "REWRITE_MAX_TOKENS",
    "AnswerBuilder",
    "LexicalVerifier",
    "PageImages",
    "ParsedAnswer",
    "Quote",
    "ResolvedSection",
    "Section",
    "SectionCitation",
    "SectionResolver",
    "SegmentIndex",
    "SegmentSource",
    "Standalone",
    "Verdict",
    "Verifier",
    "best_match",
    "build_answer",
    "build_messages",
    "check_source_ids",
    "duplicate_key",
    "embedding_features",
    "extractive_answer",
    "extractive_sections",
    "find_quote",
    "fuse",
    "has_words",
    "match_score",
    "parse_answer",
    "parse_markers",
    "parse_sections",
    "parse_source_id",
    "quote_boxes",
    "ranked_matches",
    "read_rewrite",
    "resolve_sections",
    "rewrite_messages",
    "search_terms",
    "snippet_preview",
    "split_sentences",
    "standalone_question",
    "uncertain_note",
    "with_markers",
]
