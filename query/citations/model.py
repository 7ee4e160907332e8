"""Plain data of the query side: parsed sections, resolved sections, and citations. Frozen msgspec Structs, like
`ingest.Segment`: built in C, and a long answer makes hundreds of them per call."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec

from ingest import Segment

CitationStatus = Literal["cited", "matched", "invalid", "uncited"]
Method = Literal["source_id", "text_match"]

# Scores of design §5.5 (and of the seed's cited/invalid/uncited contract).
SCORE_CITED = 1.0
SCORE_INVALID = 0.5
SCORE_UNCITED = 0.3


class Section(msgspec.Struct, frozen=True):
    """One section of the model's answer as written: its text and the ids it gave, unvalidated."""

    text: str
    source_ids: list[str] = msgspec.field(default_factory=list)


class SectionCitation(msgspec.Struct, frozen=True):
    segment: Segment
    method: Method
    score: float
    support: float  # 0..1, from the verifier
    warning: str | None  # why the segment may not back the claim, or None
    sentences: tuple[int, ...]  # the section's sentences this citation backs: its marker goes after each
    claim: str  # the text it backs, where its quote is looked for


class ResolvedSection(msgspec.Struct, frozen=True):
    text: str
    source_ids: list[str]  # as the model wrote them
    citations: list[SectionCitation]  # in order; one per segment
    status: CitationStatus
    score: float
    error: str | None = None
    sentences: tuple[tuple[int, int], ...] = ()  # sentence spans of `text` (markers go at their ends)


def as_segment(value: Segment | Mapping[str, Any]) -> Segment:
    return value if isinstance(value, Segment) else Segment.from_dict(value)


def as_segments(values: Iterable[Segment | Mapping[str, Any]]) -> list[Segment]:
    return [as_segment(v) for v in values]
