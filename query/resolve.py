"""`resolve_sections`: the one resolution path of design §5.5.

A section with at least one valid id is cited by those ids (never overridden by text matching). Otherwise
its sentences are matched against the context, then the workspace; what matches is `matched`, what does not
is `invalid` (it gave ids, all bad) or `uncited` (it gave none). The text is kept in every case.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ingest import Segment, make_segment_id
from query.ids import check_source_ids, parse_source_id
from query.markers import split_sentences
from query.match import Match, SegmentIndex, SegmentSource, best_match, confidence, support
from query.model import (
    SCORE_CITED,
    SCORE_INVALID,
    SCORE_UNCITED,
    ResolvedSection,
    Section,
    SectionCitation,
    as_segment,
    as_segments,
)

CONTEXT_CANDIDATES = 6
WORKSPACE_CANDIDATES = 25


class MappingSource:
    """A plain mapping segment_id -> segment as a SegmentSource; its index is built only if searched."""

    def __init__(self, mapping: Mapping[str, Segment | Mapping[str, Any]]):
        self._mapping = mapping
        self._index: SegmentIndex | None = None

    def lookup(self, segment_ids: Iterable[str]) -> dict[str, Segment]:
        return {i: as_segment(self._mapping[i]) for i in segment_ids if i in self._mapping}

    def candidates(self, text: str, limit: int) -> list[Segment]:
        if self._index is None:
            self._index = SegmentIndex(as_segments(self._mapping.values()))
        return self._index.candidates(text, limit)


def as_source(workspace: SegmentSource | Mapping[str, Any] | None) -> SegmentSource | None:
    if workspace is None or isinstance(workspace, SegmentIndex):
        return workspace
    if isinstance(workspace, Mapping):
        return MappingSource(workspace)
    return workspace


def resolve_sections(
    sections: list[Section],
    *,
    context: Iterable[Segment | Mapping[str, Any]],
    workspace: SegmentSource | Mapping[str, Any] | None = None,
) -> list[ResolvedSection]:
    context_index = SegmentIndex(as_segments(context))
    source = as_source(workspace)
    mentioned = {make_segment_id(*p) for s in sections for raw in s.source_ids if (p := parse_source_id(raw))}
    known = context_index.lookup(mentioned) if source is None else source.lookup(mentioned)
    return [_resolve(section, context_index, source, known) for section in sections]


def _resolve(
    section: Section, context: SegmentIndex, workspace: SegmentSource | None, known: dict[str, Segment]
) -> ResolvedSection:
    checks = check_source_ids(section.source_ids, known.get, context)
    errors = [c.error for c in checks if c.error]
    valid = [c.segment for c in checks if c.segment is not None]
    if valid:
        citations = [SectionCitation(s, "source_id", SCORE_CITED, support(section.text, s.text)) for s in valid]
        error = f"ignored: {'; '.join(errors)}" if errors else None
        return ResolvedSection(section.text, section.source_ids, citations, "cited", SCORE_CITED, error)

    matches = _text_matches(section.text, context, workspace)
    if matches:
        citations = [
            SectionCitation(m.segment, "text_match", confidence(m.score), support(section.text, m.segment.text))
            for m in matches
        ]
        score = round(sum(c.score for c in citations) / len(citations), 3)
        error = f"{'; '.join(errors)}; matched by text instead" if errors else None
        return ResolvedSection(section.text, section.source_ids, citations, "matched", score, error)
    if section.source_ids:
        return ResolvedSection(section.text, section.source_ids, [], "invalid", SCORE_INVALID, "; ".join(errors))
    return ResolvedSection(section.text, section.source_ids, [], "uncited", SCORE_UNCITED, None)


def _text_matches(text: str, context: SegmentIndex, workspace: SegmentSource | None) -> list[Match]:
    """The best segment for each sentence (context first, then workspace), one per segment, in order."""
    found: dict[str, Match] = {}
    for start, end in split_sentences(text):
        sentence = text[start:end]
        match = best_match(sentence, context.candidates(sentence, CONTEXT_CANDIDATES))
        if match is None and workspace is not None:
            match = best_match(sentence, workspace.candidates(sentence, WORKSPACE_CANDIDATES))
        if match is None:
            continue
        previous = found.get(match.segment.segment_id)
        if previous is None or match.score > previous.score:
            found[match.segment.segment_id] = match
    return list(found.values())
