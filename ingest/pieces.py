"""Pieces: text of one page in reading order, before consecutive pieces merge into segments."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ingest.geometry import union
from ingest.model import BBox, Line, Segment, SegmentKind


class Piece(msgspec.Struct, gc=False):
    """A piece of text of one page (a paragraph, part of one, a table, a run of lines of a page anchor)."""

    page_idx: int
    kind: SegmentKind
    text: str
    start: int | None  # global code-point offsets, None where the input has no text (Layout Parser)
    end: int | None
    bbox: BBox | None
    lines: list[Line] | None  # spans in this piece's text; None where the input has no line geometry
    mergeable: bool  # False for tables and the pieces of a split paragraph


def merge_pieces(pieces: Sequence[Piece], max_chars: int) -> list[list[Piece]]:
    """Consecutive pieces form one segment, joined by line breaks, when both are mergeable, on one page, of one
    kind (a heading opens a segment that the paragraphs after it join), and the joined text fits."""
    groups: list[list[Piece]] = []
    group: list[Piece] = []
    last: Piece | None = None
    length = 0
    for piece in pieces:
        kind = piece.kind
        if (
            last is not None
            and piece.mergeable
            and last.mergeable
            and last.page_idx == piece.page_idx
            and kind != "heading"
            and (kind == last.kind or (kind == "paragraph" and group[0].kind == "heading"))
            and length + 1 + len(piece.text) <= max_chars
        ):
            group.append(piece)
            length += 1 + len(piece.text)
        else:
            group = [piece]
            groups.append(group)
            length = len(piece.text)
        last = piece
    return groups


class SegmentList:
    """A document's segments as they are made, numbered in reading order."""

    def __init__(self, document_id: str):
        self.document_id = document_id
        self.segments: list[Segment] = []

    def add_groups(self, groups: list[list[Piece]]) -> None:
        """One segment per group of merged pieces."""
        segments, document_id = self.segments, self.document_id
        for group in groups:
            segments.append(_segment(group, document_id, len(segments)))

    def add_spans(self, page_idx: int, text: str, spans: list[tuple[int, int]], offset: int, bbox: BBox | None) -> None:
        """One `text` segment per span of `text` (global offsets = span + `offset`), all boxed by `bbox`: a page
        read from its anchor, made without pieces (a shard of page anchors has little else to do; design §3 asks
        for the speed of `orjson.loads` there)."""
        document_id, segments = self.document_id, self.segments
        first = len(segments)
        segments.extend(
            [
                Segment(document_id, first + n, page_idx, "text", text[a:b], a + offset, b + offset, bbox, None)
                for n, (a, b) in enumerate(spans)
            ]
        )


def _segment(group: list[Piece], document_id: str, index: int) -> Segment:
    first = group[0]
    if len(group) == 1:
        lines = tuple(first.lines) if first.lines is not None else None
        return Segment(
            document_id, index, first.page_idx, first.kind, first.text, first.start, first.end, first.bbox, lines
        )
    # One kind throughout, or a heading and the paragraphs after it: the last piece's kind either way.
    if first.start is None:  # Layout Parser: no offsets, no boxes, no lines
        return Segment(
            document_id,
            index,
            first.page_idx,
            group[-1].kind,
            "\n".join([p.text for p in group]),
            None,
            None,
            None,
            None,
        )
    return Segment(
        document_id,
        index,
        first.page_idx,
        group[-1].kind,
        "\n".join([p.text for p in group]),
        min([p.start for p in group if p.start is not None]),
        max([p.end for p in group if p.end is not None]),
        union([p.bbox for p in group]),
        _shifted_lines(group),
    )


def _shifted_lines(group: list[Piece]) -> tuple[Line, ...] | None:
    """The pieces' lines with spans in the joined text; None when no piece has line geometry."""
    if all(p.lines is None for p in group):
        return None
    lines: list[Line] = list(group[0].lines or ())
    offset = len(group[0].text) + 1
    for piece in group[1:]:
        if piece.lines:
            lines += [Line(line.start + offset, line.end + offset, line.bbox) for line in piece.lines]
        offset += len(piece.text) + 1
    return tuple(lines)
