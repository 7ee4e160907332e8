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
from ingest.split import split_spans, trim
from ingest.tables import Row, Table, render_row, table_pieces


def shard_pieces(shard: Shard, max_chars: int) -> list[Piece]:
    pieces: list[Piece] = []
    page_boxes = PageBoxes()
    for number, page in enumerate(shard.doc.pages, start=1):
        page_idx = (page.pageNumber or page.page_number or number) - 1
        if page.paragraphs or page.lines or page.tables or len(page.blocks):
            pieces.extend(PageReader(page, page_idx, shard, max_chars).pieces())
        else:  # OCR that kept only each page's own layout: its text is read from the page anchor
            pieces.extend(anchor_pieces(page, page_idx, shard, None, page_boxes, max_chars))
    return pieces


class PageBoxes:
    """The box of a page's own layout, decoded once for the pages that share it (usually the whole page)."""

    def __init__(self) -> None:
        self.poly: object = None
        self.box: BBox | None = None

    def of(self, page: Page) -> BBox | None:
        if page.layout is None:
            return None
        poly = page.layout.poly
        if poly != self.poly:
            self.poly, self.box = poly, decode_box(poly, page)
        return self.box


def anchor_pieces(
    page: Page, page_idx: int, shard: Shard, cuts: Cuts | None, boxes: PageBoxes, max_chars: int
) -> list[Piece]:
    """A page without paragraphs, blocks or lines: its own anchor's text (less table cells), whole lines
    packed into pieces, boxed by the page's box."""
    runs = anchor_runs(page.layout, shard, page_idx)
    if not runs:
        return []
    bbox = boxes.of(page)
    pieces: list[Piece] = []
    for group in cuts.pieces(runs) if cuts is not None else (runs,):
        anchored = AnchoredText(group, shard)
        text = anchored.text
        for a, b in split_spans(text, max_chars, anchored.lo, anchored.hi, whole_lines=True):
            pieces.append(Piece(page_idx, "text", text[a:b], *anchored.global_span(a, b), bbox, None, False))
    return pieces


class PageReader:
    """One page with layout elements: its text pieces (tables' cells taken out of them) and its tables."""

    def __init__(self, page: Page, page_idx: int, shard: Shard, max_chars: int):
        self.page = page
        self.page_idx = page_idx
        self.shard = shard
        self.max_chars = max_chars
        self.lines = PageLines(page, page_idx, shard)

    def pieces(self) -> list[Piece]:
        cells: list[Run] = []
        tables = [t for struct in self.page.tables if (t := self._table(struct, cells)) is not None]
        flow = self._text_pieces(Cuts(cells))
        # A table's lines are its rows, boxed by their cells: there even on a page without `lines`.
        flow.extend(piece for table in tables for piece in table_pieces(table, self.max_chars, with_lines=True))
        flow.sort(key=lambda p: p.start if p.start is not None else -1)  # reading order = text order
        return flow

    def _text_pieces(self, cuts: Cuts) -> list[Piece]:
        """Source of text, best first: paragraphs, blocks, lines (the first that has anchored elements), else
        the page's own anchor (design §3)."""
        page, shard, page_idx = self.page, self.shard, self.page_idx
        for elements, kind in ((page.paragraphs, "paragraph"), (_blocks(page), "text"), (page.lines, "text")):
            anchored = [(e, runs) for e in elements if (runs := anchor_runs(e.layout, shard, page_idx))]
            if not anchored:
                continue
            pieces: list[Piece] = []
            for element, runs in anchored:
                if len(runs) == 1 and cuts.covers(*runs[0]):
                    continue  # a table cell (Form Parser reports each cell as a paragraph too)
                for group in cuts.pieces(runs):
                    pieces.extend(self._element_pieces(element, group, whole=group == runs, kind=kind))
            return pieces
        return anchor_pieces(page, page_idx, shard, cuts, PageBoxes(), self.max_chars)

    def _element_pieces(self, element: Element, runs: list[Run], whole: bool, kind: SegmentKind) -> list[Piece]:
        """An element's text (or the part of it outside tables), cut at sentence ends when it is too long."""
        anchored = AnchoredText(runs, self.shard)
        spans = split_spans(anchored.text, self.max_chars, anchored.lo, anchored.hi)
        whole = whole and len(spans) == 1
        element_box: list[BBox | None] = []  # decoded once, when first needed
        pieces: list[Piece] = []
        for a, b in spans:
            line_spans = self.lines.spans(anchored, a, b)
            boxes = [box for _, _, box in line_spans or ()]
            # A part of an element is boxed by its own lines; a whole one by its box and its lines (Document
            # AI's line boxes can stick out of their paragraph's), so that the box holds every line it has.
            if whole or not boxes:
                if not element_box:
                    layout = element.layout
                    element_box.append(decode_box(layout.poly, self.page) if layout is not None else None)
                boxes.append(element_box[0])
            start, end = anchored.global_span(a, b)
            text = anchored.text[a:b]
            pieces.append(Piece(self.page_idx, kind, text, start, end, union(boxes), line_spans, len(spans) == 1))
        return pieces

    def _table(self, table: TableStruct, cells: list[Run]) -> Table | None:
        """A table's rows; the runs of its cells are added to `cells`."""
        header = [r for row in table.header if (r := self._row(row.cells, cells)) is not None]
        body = [r for row in table.body if (r := self._row(row.cells, cells)) is not None]
        if not header and not body:
            return None
        offset = self.shard.text_offset
        own = anchor_runs(table.layout, self.shard, self.page_idx)
        starts = [row.start for row in (*header, *body) if row.start is not None] + [offset + a for a, _ in own]
        ends = [row.end for row in (*header, *body) if row.end is not None] + [offset + b for _, b in own]
        bbox = decode_box(table.layout.poly, self.page) if table.layout is not None else None
        return Table(self.page_idx, header, body, min(starts, default=None), max(ends, default=None), bbox)

    def _row(self, row: list[Element], cells: list[Run]) -> Row | None:
        texts: list[str] = []
        runs: list[Run] = []
        text = self.shard.doc.text
        for cell in row:
            cell_runs = anchor_runs(cell.layout, self.shard, self.page_idx)  # `textAnchor: {}` on an empty cell
            runs.extend(cell_runs)
            texts.append(" ".join("".join(text[a:b] for a, b in cell_runs).split()))
        cells.extend(runs)
        rendered = render_row(texts)
        if rendered is None:
            return None
        offset = self.shard.text_offset
        return Row(
            rendered,
            offset + min(a for a, _ in runs) if runs else None,
            offset + max(b for _, b in runs) if runs else None,
            extents_box([poly_extent(cell.layout.poly, self.page) for cell in row if cell.layout is not None]),
        )


def _blocks(page: Page) -> list[Element]:
    return ELEMENTS.decode(page.blocks) if len(page.blocks) else []


class PageLines:
    """The page's Document AI lines (`pages[].lines`), by global offset; boxes decoded on first use."""

    def __init__(self, page: Page, page_idx: int, shard: Shard):
        offset = shard.text_offset
        entries = [
            (offset + runs[0][0], offset + runs[-1][1], index)
            for index, line in enumerate(page.lines)
            if (runs := anchor_runs(line.layout, shard, page_idx))
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
