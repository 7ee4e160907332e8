"""Document AI pages -> pieces: paragraphs (else blocks, else lines, else the page anchor), tables, lines."""

from __future__ import annotations

import bisect

from ingest.anchors import AnchoredText, Cuts, Run, anchor_runs
from ingest.geometry import decode_box, extents_box, poly_extent, union
from ingest.load import Shard
from ingest.model import BBox, SegmentKind
from ingest.pieces import LineSpan, Piece
from ingest.schema import ELEMENTS, Element, Page
from ingest.schema import Table as TableStruct
from ingest.split import pack_lines, split_spans, trim
from ingest.tables import Row, Table, render_row, table_pieces


def shard_pieces(shard: Shard, max_chars: int) -> list[Piece]:
    pieces: list[Piece] = []
    for number, page in enumerate(shard.doc.pages, start=1):
        pieces.extend(page_pieces(page, (page.number or number) - 1, shard, max_chars))
    return pieces


def page_pieces(page: Page, page_idx: int, shard: Shard, max_chars: int) -> list[Piece]:
    where = f"page {page_idx + 1}"
    lines = PageLines(page, shard, where)
    tables: list[Table] = []
    cells: list[Run] = []
    for struct in page.tables:
        table = _read_table(struct, page, page_idx, shard, where, cells)
        if table is not None:
            tables.append(table)
    cuts = Cuts(cells)
    flow = _text_pieces(page, page_idx, shard, where, cuts, lines, max_chars)
    with_lines = bool(lines.starts)
    flow.extend(piece for table in tables for piece in table_pieces(table, max_chars, with_lines))
    flow.sort(key=lambda p: p.start if p.start is not None else -1)  # reading order = text order
    return flow


def _text_pieces(
    page: Page, page_idx: int, shard: Shard, where: str, cuts: Cuts, lines: PageLines, max_chars: int
) -> list[Piece]:
    """Source of text, best first: paragraphs, blocks, lines (the first that has anchored elements), else the
    page's own anchor (design §3)."""
    for elements, kind in ((page.paragraphs, "paragraph"), (_blocks(page), "text"), (page.lines, "text")):
        anchored = [(e, runs) for e in elements if (runs := anchor_runs(e.layout, shard, where))]
        if not anchored:
            continue
        pieces: list[Piece] = []
        for element, runs in anchored:
            if len(runs) == 1 and cuts.covers(*runs[0]):
                continue  # a table cell (Form Parser reports each cell as a paragraph too)
            for group in cuts.pieces(runs):
                pieces.extend(_element_pieces(element, group, runs, page, page_idx, kind, shard, lines, max_chars))
        return pieces
    runs = anchor_runs(page.layout, shard, where)
    if not runs:
        return []
    bbox = decode_box(page.layout.poly, page) if page.layout is not None else None
    pieces: list[Piece] = []
    for group in cuts.pieces(runs):
        anchored_text = AnchoredText(group, shard)
        for (a, b), text in pack_lines(anchored_text.text, max_chars):
            start, end = anchored_text.global_span(a, b)
            pieces.append(Piece(page_idx, "text", text, start, end, bbox, None, False))
    return pieces


def _blocks(page: Page) -> list[Element]:
    return ELEMENTS.decode(page.blocks) if len(page.blocks) else []


def _element_pieces(
    element: Element,
    runs: list[Run],
    all_runs: list[Run],
    page: Page,
    page_idx: int,
    kind: SegmentKind,
    shard: Shard,
    lines: PageLines,
    max_chars: int,
) -> list[Piece]:
    """An element's text (or the part of it outside tables), cut at sentence ends when it is too long."""
    anchored = AnchoredText(runs, shard)
    spans = split_spans(anchored.text, max_chars)
    whole = len(spans) == 1 and runs == all_runs
    element_box: list[BBox | None] = []  # decoded once, when first needed
    pieces: list[Piece] = []
    for a, b in spans:
        line_spans = lines.spans(anchored, a, b)
        boxes = [box for _, _, box in line_spans or ()]
        # A part of an element is boxed by its own lines; a whole one by its box, and its lines (Document AI's
        # line boxes can stick out of their paragraph's box), so that the box holds every line of the segment.
        if whole or not boxes:
            if not element_box:
                element_box.append(decode_box(element.layout.poly, page) if element.layout is not None else None)
            boxes.append(element_box[0])
        start, end = anchored.global_span(a, b)
        pieces.append(Piece(page_idx, kind, anchored.text[a:b], start, end, union(boxes), line_spans, len(spans) == 1))
    return pieces


def _read_table(
    table: TableStruct, page: Page, page_idx: int, shard: Shard, where: str, cells: list[Run]
) -> Table | None:
    """A table's rows; the runs of its cells are added to `cells`."""
    header = [r for row in table.header if (r := _read_row(row.cells, page, shard, where, cells)) is not None]
    body = [r for row in table.body if (r := _read_row(row.cells, page, shard, where, cells)) is not None]
    if not header and not body:
        return None
    own = anchor_runs(table.layout, shard, where)
    starts = [row.start for row in (*header, *body) if row.start is not None]
    ends = [row.end for row in (*header, *body) if row.end is not None]
    starts += [shard.text_offset + start for start, _ in own]
    ends += [shard.text_offset + end for _, end in own]
    bbox = decode_box(table.layout.poly, page) if table.layout is not None else None
    return Table(page_idx, header, body, min(starts, default=None), max(ends, default=None), bbox)


def _read_row(row: list[Element], page: Page, shard: Shard, where: str, cells: list[Run]) -> Row | None:
    texts: list[str] = []
    runs: list[Run] = []
    text = shard.doc.text
    for cell in row:
        cell_runs = anchor_runs(cell.layout, shard, where)  # `textAnchor: {}` on an empty cell
        runs.extend(cell_runs)
        texts.append(" ".join("".join(text[a:b] for a, b in cell_runs).split()))
    cells.extend(runs)
    rendered = render_row(texts)
    if rendered is None:
        return None
    offset = shard.text_offset
    return Row(
        rendered,
        offset + min(a for a, _ in runs) if runs else None,
        offset + max(b for _, b in runs) if runs else None,
        extents_box([poly_extent(cell.layout.poly, page) for cell in row if cell.layout is not None]),
    )


class PageLines:
    """The page's Document AI lines (`pages[].lines`), by global offset; boxes decoded on first use."""

    def __init__(self, page: Page, shard: Shard, where: str):
        offset = shard.text_offset
        entries = [
            (offset + runs[0][0], offset + runs[-1][1], index)
            for index, line in enumerate(page.lines)
            if (runs := anchor_runs(line.layout, shard, where))
        ]
        if any(entries[i][0] > entries[i + 1][0] for i in range(len(entries) - 1)):
            entries.sort()
        self.page = page
        self.starts = [start for start, _, _ in entries]
        self.ends = [end for _, end, _ in entries]
        self.indexes = [index for _, _, index in entries]
        self.boxes: dict[int, BBox | None] = {}

    def box(self, position: int) -> BBox | None:
        if position not in self.boxes:
            layout = self.page.lines[self.indexes[position]].layout
            self.boxes[position] = decode_box(layout.poly, self.page) if layout is not None else None
        return self.boxes[position]

    def spans(self, anchored: AnchoredText, a: int, b: int) -> list[LineSpan] | None:
        """The lines inside `anchored.text[a:b]`: each one's span there (trimmed, relative to `a`) and its box;
        None when the page has no lines."""
        if not self.starts:
            return None
        found: list[list[int]] = []  # [start, end, position]
        for local, global_, length in zip(anchored.starts, anchored.globals_, anchored.lengths, strict=True):
            low, high = max(a, local), min(b, local + length)
            if low >= high:
                continue
            g_low, g_high = global_ + low - local, global_ + high - local
            position = max(bisect.bisect_right(self.starts, g_low) - 1, 0)
            while position < len(self.starts) and self.starts[position] < g_high:
                if self.ends[position] > g_low:
                    start = max(self.starts[position], g_low) - g_low + low
                    end = min(self.ends[position], g_high) - g_low + low
                    start, end = trim(anchored.text, start, end)
                    if end > start:
                        if found and found[-1][2] == position:  # one line read through two runs
                            found[-1][1] = end - a
                        else:
                            found.append([start - a, end - a, position])
                position += 1
        return [(start, end, box) for start, end, position in found if (box := self.box(position)) is not None]
