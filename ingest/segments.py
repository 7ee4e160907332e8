"""Document AI JSON -> page-indexed segments (design §3)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ingest.layout_parser import layout_units
from ingest.load import LoadedDocument, Shard, load_document
from ingest.model import BBox, InvalidDocument, Segment, SegmentKind
from ingest.schema import Schema
from ingest.split import split_spans, trim
from ingest.units import Unit, merge_units


def build_segments(docai: Any, document_id: str, *, max_chars: int = 1200) -> list[Segment]:
    """Segments of one document, in reading order, each on one page and at most `max_chars` long.

    `docai`: the bytes of one Document AI JSON file, a list of such bytes (shards, any order), a parsed dict
    or list of dicts, or a `google.cloud.documentai.Document`. Raises `InvalidDocument` on bad input.
    """
    if max_chars < 20:
        raise ValueError("max_chars must be at least 20")
    loaded = load_document(docai)
    if loaded.layout is not None:
        units = layout_units(loaded.layout, max_chars)
    elif any(shard.doc.pages for shard in loaded.shards):
        units = [u for shard in loaded.shards for u in _shard_units(shard, max_chars)]
    else:
        units = _text_only_units(loaded, max_chars)
    if not units:
        raise InvalidDocument("the document holds no text (a scanned page without OCR?)")
    return [
        Segment(
            document_id=document_id,
            segment_index=i,
            page_idx=u.page_idx,
            kind=u.kind,
            text=u.text,
            char_start=u.start,
            char_end=u.end,
            bbox=u.bbox,
        )
        for i, u in enumerate(units)
    ]


@dataclass(frozen=True)
class AnchoredText:
    """Text read through a text anchor, with the global offset of each piece it was cut from."""

    text: str
    starts: list[int]  # local start of each run
    globals_: list[int]  # global start of each run

    def to_global(self, local: int) -> int:
        if len(self.starts) == 1:  # the usual case: one text segment per anchor
            return self.globals_[0] + local
        run = bisect.bisect_right(self.starts, local) - 1
        return self.globals_[run] + (local - self.starts[run])

    def global_span(self, start: int, end: int) -> tuple[int, int]:
        return self.to_global(start), self.to_global(end - 1) + 1


def _read_anchor(layout: Any, shard: Shard, where: str) -> AnchoredText | None:
    anchor = layout.text_anchor if layout is not None else None
    if anchor is None or not anchor.text_segments:
        return None
    text = shard.doc.text
    parts: list[str] = []
    starts: list[int] = []
    globals_: list[int] = []
    length = 0
    for seg in anchor.text_segments:
        if not 0 <= seg.start_index <= seg.end_index <= len(text):
            raise InvalidDocument(
                f"{where}: a text anchor [{seg.start_index}, {seg.end_index}) lies outside the document text "
                f"({len(text)} characters); the JSON is truncated or its shards are mixed up"
            )
        if seg.end_index == seg.start_index:
            continue
        parts.append(text[seg.start_index : seg.end_index])
        starts.append(length)
        globals_.append(shard.text_offset + seg.start_index)
        length += seg.end_index - seg.start_index
    if not parts:
        return None
    return AnchoredText("".join(parts), starts, globals_)


def _bbox(layout: Any, page: Any, schema: Schema) -> BBox | None:
    if layout is None or not len(layout.bounding_poly):
        return None
    poly = schema.bounding_poly.decode(layout.bounding_poly)
    points = [(v.x, v.y) for v in poly.normalized_vertices]
    if not points and poly.vertices and page.dimension and page.dimension.width and page.dimension.height:
        points = [(v.x / page.dimension.width, v.y / page.dimension.height) for v in poly.vertices]
    if not points:
        return None
    xs = [min(max(x, 0.0), 1.0) for x, _ in points]
    ys = [min(max(y, 0.0), 1.0) for _, y in points]
    return BBox(round(min(xs), 6), round(min(ys), 6), round(max(xs), 6), round(max(ys), 6))


def _element_units(
    anchored: AnchoredText,
    page_idx: int,
    kind: SegmentKind,
    bbox: BBox | None,
    max_chars: int,
    span: tuple[int, int] | None = None,
) -> list[Unit]:
    start, end = span or (0, len(anchored.text))
    pieces = split_spans(anchored.text, max_chars, start, end)
    return [
        Unit(page_idx, kind, anchored.text[a:b], *anchored.global_span(a, b), bbox, mergeable=len(pieces) == 1)
        for a, b in pieces
    ]


def _line_spans(text: str) -> Iterable[tuple[int, int]]:
    position = 0
    for line in text.splitlines(keepends=True):
        a, b = trim(text, position, position + len(line))
        if b > a:
            yield a, b
        position += len(line)


def _shard_units(shard: Shard, max_chars: int) -> list[Unit]:
    units: list[Unit] = []
    for number, page in enumerate(shard.doc.pages, start=1):
        page_idx = (page.page_number or number) - 1
        units.extend(_page_units(page, page_idx, shard, max_chars))
    return units


def _page_units(page: Any, page_idx: int, shard: Shard, max_chars: int) -> list[Unit]:
    where = f"page {page_idx + 1}"
    tables = [_table_unit(t, page, page_idx, shard, where) for t in page.tables]
    tables = [t for t in tables if t is not None]
    table_spans = [(t.start, t.end) for t in tables]
    # Source of text, best first: paragraphs, blocks, lines, the page's own anchor (design §3).
    elements, kind = _text_source(page, shard.schema)
    flow: list[Unit] = []
    for element in elements:
        if table_spans and _inside_table(element.layout, shard.text_offset, table_spans):
            continue
        anchored = _read_anchor(element.layout, shard, where)
        if anchored is None:
            continue
        flow.extend(_element_units(anchored, page_idx, kind, _bbox(element.layout, page, shard.schema), max_chars))
    if not elements:
        anchored = _read_anchor(page.layout, shard, where)
        if anchored is not None:
            bbox = _bbox(page.layout, page, shard.schema)
            for span in _line_spans(anchored.text):
                flow.extend(_element_units(anchored, page_idx, "text", bbox, max_chars, span))
    flow.extend(piece for table in tables for piece in _split_table(table, max_chars))
    flow.sort(key=lambda u: u.start if u.start is not None else -1)  # reading order = text order
    return merge_units(flow, max_chars)


def _text_source(page: Any, schema: Schema) -> tuple[list[Any], SegmentKind]:
    if page.paragraphs:
        return page.paragraphs, "paragraph"
    for raw in (page.blocks, page.lines):
        elements = schema.elements.decode(raw) if len(raw) else []
        if elements:
            return elements, "text"
    return [], "text"


def _inside_table(layout: Any, text_offset: int, table_spans: list[tuple[int | None, int | None]]) -> bool:
    """Whether an element's text lies in a table (Form Parser also reports table cells as paragraphs)."""
    anchor = layout.text_anchor if layout is not None else None
    if anchor is None or not anchor.text_segments:
        return False
    middle = text_offset + (anchor.text_segments[0].start_index + anchor.text_segments[-1].end_index) / 2
    return any(ts is not None and te is not None and ts <= middle < te for ts, te in table_spans)


def _cell_text(cell: Any, shard: Shard, where: str) -> tuple[str, AnchoredText | None]:
    anchored = _read_anchor(cell.layout, shard, where)
    text = " ".join(anchored.text.split()) if anchored else ""  # `textAnchor: {}` on an empty cell
    return text, anchored


def _table_unit(table: Any, page: Any, page_idx: int, shard: Shard, where: str) -> Unit | None:
    rows: list[str] = []
    spans: list[tuple[int, int]] = []
    for row in [*table.header_rows, *table.body_rows]:
        cells = [_cell_text(cell, shard, where) for cell in row.cells]
        if any(text for text, _ in cells):  # a row of empty cells says nothing
            rows.append(" | ".join(text for text, _ in cells))
        spans.extend(a.global_span(0, len(a.text)) for _, a in cells if a is not None)
    table_anchor = _read_anchor(table.layout, shard, where)
    if table_anchor is not None:
        spans.append(table_anchor.global_span(0, len(table_anchor.text)))
    text = "\n".join(rows).strip()
    if not text.replace("|", "").strip():
        return None
    start = min(s for s, _ in spans) if spans else None
    end = max(e for _, e in spans) if spans else None
    return Unit(page_idx, "table", text, start, end, _bbox(table.layout, page, shard.schema), mergeable=False)


def _split_table(table: Unit, max_chars: int) -> list[Unit]:
    """A table longer than a segment is cut between rows (a row longer than a segment, inside the row)."""
    if len(table.text) <= max_chars:
        return [table]
    # The pieces keep the whole table's offsets and box: cells are not tracked per row group.
    return [
        Unit(table.page_idx, "table", table.text[a:b], table.start, table.end, table.bbox, mergeable=False)
        for a, b in _row_groups(table.text, max_chars)
    ]


def _row_groups(text: str, max_chars: int) -> list[tuple[int, int]]:
    groups: list[tuple[int, int]] = []
    for a, b in _line_spans(text):
        pieces = split_spans(text, max_chars, a, b)
        for pa, pb in pieces:
            if groups and pb - groups[-1][0] <= max_chars and len(pieces) == 1:
                groups[-1] = (groups[-1][0], pb)
            else:
                groups.append((pa, pb))
    return groups


def _text_only_units(loaded: LoadedDocument, max_chars: int) -> list[Unit]:
    """A document with `text` but no pages: split by size, all on page 0."""
    text = loaded.text
    if not text.strip():
        return []
    anchored = AnchoredText(text, [0], [0])
    flow = [u for span in _line_spans(text) for u in _element_units(anchored, 0, "text", None, max_chars, span)]
    return merge_units(flow, max_chars)
