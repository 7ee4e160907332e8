"""Pieces: text of one page in reading order, before consecutive pieces merge into segments."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ingest.geometry import union
from ingest.model import BBox, Line, Segment, SegmentKind

# A line of a piece: its span in the piece's text and its box.
LineSpan = tuple[int, int, BBox]


class Piece(msgspec.Struct, gc=False):
    """A piece of text of one page (a paragraph, part of one, a table, a run of lines of a page anchor)."""

    page_idx: int
    kind: SegmentKind
    text: str
    start: int | None  # global code-point offsets, None where the input has no text (Layout Parser)
    end: int | None
    bbox: BBox | None
    lines: list[LineSpan] | None  # None where the input has no line geometry
    mergeable: bool  # False for tables and the pieces of a split paragraph


def _joins(group: list[Piece], length: int, piece: Piece, max_chars: int) -> bool:
    """Whether `piece` continues the segment of `group`: both mergeable, same page, same kind (a heading opens a
    segment that the paragraphs after it join), and the joined text fits."""
    last = group[-1]
    return (
        last.mergeable
        and piece.mergeable
        and last.page_idx == piece.page_idx
        and (piece.kind == last.kind or (piece.kind == "paragraph" and group[0].kind == "heading"))
        and piece.kind != "heading"
        and length + 1 + len(piece.text) <= max_chars
    )


def merge_pieces(pieces: Sequence[Piece], max_chars: int) -> list[list[Piece]]:
    """Consecutive pieces that join (see `_joins`) form one segment, joined by line breaks."""
    groups: list[list[Piece]] = []
    length = 0
    for piece in pieces:
        if groups and _joins(groups[-1], length, piece, max_chars):
            groups[-1].append(piece)
            length += 1 + len(piece.text)
        else:
            groups.append([piece])
            length = len(piece.text)
    return groups


def to_segments(groups: list[list[Piece]], document_id: str) -> list[Segment]:
    return [_segment(group, document_id, index) for index, group in enumerate(groups)]


def _segment(group: list[Piece], document_id: str, index: int) -> Segment:
    first = group[0]
    if len(group) == 1:
        lines = first.lines
        line_tuple = tuple(Line(a, b, box) for a, b, box in lines) if lines is not None else None
        return Segment(
            document_id, index, first.page_idx, first.kind, first.text, first.start, first.end, first.bbox, line_tuple
        )
    kinds = {p.kind for p in group}
    kind = "paragraph" if "paragraph" in kinds else first.kind  # a heading and the paragraphs after it
    starts = [p.start for p in group if p.start is not None]
    ends = [p.end for p in group if p.end is not None]
    return Segment(
        document_id,
        index,
        first.page_idx,
        kind,
        "\n".join(p.text for p in group),
        min(starts) if starts else None,
        max(ends) if ends else None,
        union([p.bbox for p in group]),
        _shifted_lines(group),
    )


def _shifted_lines(group: list[Piece]) -> tuple[Line, ...] | None:
    """The pieces' lines with spans in the joined text; None when no piece has line geometry."""
    if all(p.lines is None for p in group):
        return None
    lines: list[Line] = []
    offset = 0
    for piece in group:
        lines.extend(Line(offset + a, offset + b, box) for a, b, box in piece.lines or ())
        offset += len(piece.text) + 1
    return tuple(lines)
