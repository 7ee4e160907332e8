"""`resolve_sections`: the one resolution path of design §5.5, one section at a time.

A section's valid ids whose segments support it are its citations (`cited`; never overridden by text
matching); a valid id whose segment does not support the text is named in `citation_error` and not shown.
A section left without a supported id is matched by text, sentence by sentence, against the context, then
the workspace (`matched`); a candidate that contradicts its sentence is never matched. What matches nothing
is `invalid` (it gave ids, none usable) or `uncited` (it gave none). The text is kept in every case.

Every (claim, segment) judgement goes through one `Verifier` (query.citations.verify), the same for both paths.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ingest import Segment, make_segment_id
from query.citations.ids import check_source_ids, parse_source_id
from query.citations.markers import split_sentences
from query.citations.match import (
    Match,
    SegmentIndex,
    SegmentSource,
    confidence,
    holding_value,
    ranked_matches,
    value_of,
)
from query.citations.model import (
    SCORE_CITED,
    SCORE_INVALID,
    SCORE_UNCITED,
    Method,
    ResolvedSection,
    Section,
    SectionCitation,
    as_segment,
    as_segments,
)
from query.citations.verify import LexicalVerifier, Verdict, Verifier
from query.language.lexical import Claim, passage, share
from query.language.lexical import claim as analyse_claim

CONTEXT_CANDIDATES = 6
WORKSPACE_CANDIDATES = 25
# A sentence gets an id's marker when the segment supports it within this margin of its best sentence; the
# last such sentence is taken (the section's last sentence when none stands out).
STANDS_OUT = 0.15
VALUE_CONFIDENCE = (0.8, 0.6)  # a terse value found in one context segment / in several (the first is cited)


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


def mentioned_ids(sections: Iterable[Section]) -> set[str]:
    """The canonical ids the sections name (well-formed ones only)."""
    return {make_segment_id(*p) for s in sections for raw in s.source_ids if (p := parse_source_id(raw))}


class SectionResolver:
    """Resolves sections one at a time with the same context, workspace and verifier, so a caller that
    receives sections as a model streams them resolves each exactly as `resolve_sections` would.

    `context`: the segments retrieved for the question; with a `workspace`, only those it holds count (a
    citation is only ever to a segment of the question's workspace). `prefetch`: ids to look up with the
    context in one call (the ids the sections mention, when they are known up front)."""

    def __init__(
        self,
        *,
        context: Iterable[Segment | Mapping[str, Any]],
        workspace: SegmentSource | Mapping[str, Any] | None = None,
        verifier: Verifier | None = None,
        prefetch: Iterable[str] = (),
    ):
        self._source = as_source(workspace)
        self._verifier = verifier or LexicalVerifier()
        segments = as_segments(context)
        if self._source is None:
            self._context = SegmentIndex(segments)
            self._known: dict[str, Segment | None] = dict(self._context)
        else:
            ids = [s.segment_id for s in segments]  # (made from their parts at each call: made once)
            self._known = dict(self._source.lookup(set(ids) | set(prefetch)))
            self._context = SegmentIndex.keyed({i: s for i, s in zip(ids, segments, strict=True) if i in self._known})

    @property
    def context_ids(self) -> list[str]:
        return list(self._context)

    def resolve(self, section: Section) -> ResolvedSection:
        spans = tuple(split_sentences(section.text)) or ((0, len(section.text)),)
        sentences = [section.text[s:e] for s, e in spans]
        checks = check_source_ids(section.source_ids, self._lookup, self._context)
        errors = [c.error for c in checks if c.error]
        valid = [c.segment for c in checks if c.segment is not None]
        cited, refused = self._id_citations(valid, sentences)
        errors += refused
        if cited:
            error = f"ignored: {'; '.join(errors)}" if errors else None
            return ResolvedSection(section.text, section.source_ids, cited, "cited", SCORE_CITED, error, spans)
        matched = self._text_citations(section.text, sentences)
        if matched:
            score = round(sum(c.score for c in matched) / len(matched), 3)
            error = f"{'; '.join(errors)}; matched by text instead" if errors else None
            return ResolvedSection(section.text, section.source_ids, matched, "matched", score, error, spans)
        if section.source_ids:
            error = "; ".join(errors)
            return ResolvedSection(section.text, section.source_ids, [], "invalid", SCORE_INVALID, error, spans)
        return ResolvedSection(section.text, section.source_ids, [], "uncited", SCORE_UNCITED, None, spans)

    def _lookup(self, segment_id: str) -> Segment | None:
        if segment_id not in self._known and self._source is not None:
            self._known[segment_id] = self._source.lookup([segment_id]).get(segment_id)
        return self._known.get(segment_id)

    def _id_citations(self, valid: list[Segment], sentences: list[str]) -> tuple[list[SectionCitation], list[str]]:
        """The citations of the valid ids that support the section, and why the others are not shown. Each id is
        judged on the sentence its marker goes after: the one whose words and numbers its segment holds most."""
        if not valid:
            return [], []
        claims = [analyse_claim(sentence) for sentence in sentences] if len(sentences) > 1 else []
        anchors = [_anchor(segment, claims) for segment in valid]
        verdicts = [self._verifier.verify(sentences[at], s) for s, (at, _) in zip(valid, anchors, strict=True)]
        shown: set[int] = set()
        refused: dict[int, str] = {}
        covered: set[str] = set()
        supports = [-verdict.support for verdict in verdicts]
        for i in sorted(range(len(valid)), key=supports.__getitem__):  # stable: ties keep the model's order
            if not verdicts[i].related:
                refused[i] = f"{valid[i].segment_id} does not support this text"
            elif covered and not verdicts[i].held - covered:  # copied along: backs nothing the better ids do not
                refused[i] = f"{valid[i].segment_id} adds nothing to the other sources"
            else:
                shown.add(i)
                covered |= verdicts[i].held
        cited = []
        for i in sorted(shown):
            at, stands_out = anchors[i]
            claim = sentences[at] if stands_out else " ".join(sentences)
            cited.append(_citation(valid[i], "source_id", SCORE_CITED, verdicts[i], (at,), claim))
        return cited, [refused[i] for i in sorted(refused)]

    def _text_citations(self, text: str, sentences: list[str]) -> list[SectionCitation]:
        """One citation per segment that a sentence matches (a terse value: the context segment holding it)."""
        value = value_of(text)
        if value is not None:
            holders = holding_value(value, self._context.values())
            if holders:
                score = VALUE_CONFIDENCE[0] if len(holders) == 1 else VALUE_CONFIDENCE[1]
                verdict = self._verifier.verify(text, holders[0])
                return [_citation(holders[0], "text_match", score, verdict, (len(sentences) - 1,), text)]
        found: dict[str, tuple[Match, Verdict, list[int]]] = {}
        for i, sentence in enumerate(sentences):
            matched = self._match(sentence)
            if matched is None:
                continue
            match, verdict = matched
            previous = found.get(match.segment.segment_id)
            if previous is None:
                found[match.segment.segment_id] = (match, verdict, [i])
            else:
                best = (match, verdict) if match.score > previous[0].score else previous[:2]
                found[match.segment.segment_id] = (*best, [*previous[2], i])
        return [
            _citation(m.segment, "text_match", confidence(m.score), v, tuple(at), " ".join(sentences[i] for i in at))
            for m, v, at in found.values()
        ]

    def _match(self, sentence: str) -> tuple[Match, Verdict] | None:
        """The best candidate the verifier finds related and not contradicting the sentence: context first, then
        the workspace."""
        tiers = [lambda: self._context.candidates(sentence, CONTEXT_CANDIDATES)]
        if self._source is not None:
            tiers.append(lambda: self._source.candidates(sentence, WORKSPACE_CANDIDATES))
        for candidates in tiers:
            for match in ranked_matches(sentence, candidates()):
                verdict = self._verifier.verify(sentence, match.segment)
                if verdict.related and not verdict.contradicts:
                    return match, verdict
        return None


def resolve_sections(
    sections: list[Section],
    *,
    context: Iterable[Segment | Mapping[str, Any]],
    workspace: SegmentSource | Mapping[str, Any] | None = None,
    verifier: Verifier | None = None,
) -> list[ResolvedSection]:
    resolver = SectionResolver(
        context=context, workspace=workspace, verifier=verifier, prefetch=mentioned_ids(sections)
    )
    return [resolver.resolve(section) for section in sections]


def _anchor(segment: Segment, claims: list[Claim]) -> tuple[int, bool]:
    """The sentence an id's marker goes after (the last of those the segment backs within STANDS_OUT of the best,
    by the lexical measure of `query.language.lexical.held`), and whether it stands out from the others. `claims`: the
    analysed sentences of the section (none when it has one sentence)."""
    if len(claims) <= 1:
        return 0, True
    text = passage(segment.text, segment.kind == "table")
    shares = [share(said, text) for said in claims]
    best = max(shares)
    near = [i for i, share in enumerate(shares) if share >= best - STANDS_OUT]
    return near[-1], len(near) == 1


def _citation(
    segment: Segment, method: Method, score: float, verdict: Verdict, sentences: tuple[int, ...], claim: str
) -> SectionCitation:
    return SectionCitation(segment, method, score, verdict.support, verdict.warning, sentences, claim)
