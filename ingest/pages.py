"""Document AI pages -> pieces: paragraphs (else blocks, else lines, else the page anchor), tables, lines."""

from __future__ import annotations

import bisect

from ingest.anchors import AnchoredText, Cuts, Run, anchor_runs
from ingest.geometry import cells_box, layout_box, union
from ingest.load import Shard
from ingest.model import BBox, Line, SegmentKind
from ingest.pieces import Piece, SegmentList, merge_pieces
from ingest.schema import ELEMENTS, Element, Page
from ingest.schema import Table as TableStruct
from ingest.split import split_spans
from ingest.tables import Row, Table, render_row, table_pieces


def add_shard(shard: Shard, max_chars: int, out: SegmentList) -> None:
    """The segments of a shard's pages, page by page (pieces never merge across pages)."""
    page_boxes = PageBoxes()
    text, offset = shard.doc.text, shard.text_offset
    for number, page in enumerate(shard.doc.pages, start=1):
        page_idx = (page.pageNumber or page.page_number or number) - 1
        if page.paragraphs or page.lines or page.tables or len(page.blocks):
            out.add_groups(merge_pieces(PageReader(page, page_idx, shard, max_chars).pieces(), max_chars))
            continue
        # OCR that kept only each page's own layout: its text is read from the page anchor.
        runs = anchor_runs(page.layout, shard, page_idx)
        if len(runs) == 1:  # the usual case: whole lines of the shard's text, cut in place
            spans = split_spans(text, max_chars, runs[0][0], runs[0][1], whole_lines=True)
            out.add_spans(page_idx, text, spans, offset, page_boxes.of(page))
        elif runs:
            out.add_groups([[piece] for piece in anchor_pieces(page, page_idx, shard, None, page_boxes, max_chars)])


class PageBoxes:
    """The box of a page's own layout, decoded once for the pages that share it (usually the whole page)."""

    def __init__(self) -> None:
        self.raw: object = None
        self.box: BBox | None = None

    def of(self, page: Page) -> BBox | None:
        layout = page.layout
        raw = (layout.boundingPoly or layout.bounding_poly) if layout is not None else None  # still raw JSON
        if raw != self.raw:
            self.raw, self.box = raw, layout_box(layout, page)
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
    groups = cuts.pieces(runs) if cuts is not None else [runs]
    if len(groups) == 1 and len(groups[0]) == 1:  # one run, the usual case: cut the shard's text in place
        text, offset = shard.doc.text, shard.text_offset
        ((start, end),) = groups[0]
        return [
            Piece(page_idx, "text", text[a:b], a + offset, b + offset, bbox, None, False)
            for a, b in split_spans(text, max_chars, start, end, whole_lines=True)
        ]
    pieces: list[Piece] = []
    for group in groups:
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
        flow = self._text_pieces(Cuts(cells), set(cells))
        # A table's lines are its rows, boxed by their cells: there even on a page without `lines`.
        flow.extend(piece for table in tables for piece in table_pieces(table, self.max_chars, with_lines=True))
        flow.sort(key=lambda p: p.start if p.start is not None else -1)  # reading order = text order
        return flow

    def _text_pieces(self, cuts: Cuts, cells: set[Run]) -> list[Piece]:
        """Source of text, best first: paragraphs, blocks, lines (the first that has anchored elements), else
        the page's own anchor (design §3). `cells`: the tables' cell runs, for a quick test of the paragraphs
        that are table cells (before the general one, `cuts`)."""
        page, shard, page_idx = self.page, self.shard, self.page_idx
        for elements, kind in ((page.paragraphs, "paragraph"), (_blocks(page), "text"), (page.lines, "text")):
            pieces: list[Piece] = []
            anchored = False
            for element in elements:
                runs = anchor_runs(element.layout, shard, page_idx)
                if not runs:
                    continue
                anchored = True
                if len(runs) == 1 and (runs[0] in cells or cuts.covers(*runs[0])):
                    continue  # a table cell (Form Parser reports each cell as a paragraph too)
                for group in cuts.pieces(runs):
                    pieces.extend(self._element_pieces(element, group, whole=group == runs, kind=kind))
            if anchored:
                return pieces
        return anchor_pieces(page, page_idx, shard, cuts, PageBoxes(), self.max_chars)

    def _element_pieces(self, element: Element, runs: list[Run], whole: bool, kind: SegmentKind) -> list[Piece]:
        """An element's text (or the part of it outside tables), cut at sentence ends when it is too long."""
        if whole and len(runs) == 1 and runs[0][1] - runs[0][0] <= self.max_chars:
            return self._whole_piece(element, runs[0], kind)
        anchored = AnchoredText(runs, self.shard)
        spans = split_spans(anchored.text, self.max_chars, anchored.lo, anchored.hi)
        whole = whole and len(spans) == 1
        pieces: list[Piece] = []
        for a, b in spans:
            line_spans = self.lines.spans(anchored, a, b)
            # A part of an element is boxed by its own lines; a whole one by its box and its lines (Document
            # AI's line boxes can stick out of their paragraph's), so that the box holds every line it has.
            boxes = [line.bbox for line in line_spans] if line_spans else []
            if whole or not boxes:
                boxes.append(layout_box(element.layout, self.page))
            start, end = anchored.global_span(a, b)
            text = anchored.text[a:b]
            pieces.append(Piece(self.page_idx, kind, text, start, end, union(boxes), line_spans, len(spans) == 1))
        return pieces

    def _whole_piece(self, element: Element, run: Run, kind: SegmentKind) -> list[Piece]:
        """The usual paragraph: one run that fits in a segment, read in place (no copy before its piece's)."""
        text, offset = self.shard.doc.text, self.shard.text_offset
        start, end = run
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end == start:
            return []
        lines = self.lines.run_lines(text, start, end, offset, start) if self.lines.starts else None
        boxes: list[BBox | None] = [line.bbox for line in lines] if lines else []
        boxes.append(layout_box(element.layout, self.page))
        return [Piece(self.page_idx, kind, text[start:end], start + offset, end + offset, union(boxes), lines, True)]

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
        bbox = layout_box(table.layout, self.page)
        return Table(self.page_idx, header, body, min(starts, default=None), max(ends, default=None), bbox)

    def _row(self, row: tuple[Element, ...], cells: list[Run]) -> Row | None:
        texts: list[str] = []
        start, end = None, None
        text, shard, page_idx = self.shard.doc.text, self.shard, self.page_idx
        for cell in row:
            cell_runs = anchor_runs(cell.layout, shard, page_idx)  # `textAnchor: {}` on an empty cell
            if not cell_runs:
                texts.append("")
                continue
            cells += cell_runs
            first, last = cell_runs[0][0], cell_runs[-1][1]
            start = first if start is None or first < start else start
            end = last if end is None or last > end else end
            piece = text[first:last] if len(cell_runs) == 1 else "".join(text[a:b] for a, b in cell_runs)
            texts.append(" ".join(piece.split()))
        rendered = render_row(texts)
        if rendered is None:
            return None
        offset = shard.text_offset
        return Row(
            rendered,
            offset + start if start is not None else None,
            offset + end if end is not None else None,
            cells_box(row, self.page),
        )


def _blocks(page: Page) -> tuple[Element, ...]:
    return ELEMENTS.decode(page.blocks) if page.blocks else ()


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
        self.boxes: list[BBox | bool | None] = [False] * len(entries)  # False: not decoded yet

    def spans(self, anchored: AnchoredText, a: int, b: int) -> list[Line] | None:
        """The lines inside `anchored.text[a:b]`: each one's span there (trimmed, relative to `a`) and its box;
        None when the page has no lines."""
        if not self.starts:
            return None
        if anchored.shift is not None:  # one run (the usual case): local and global offsets differ by `shift`
            return self.run_lines(anchored.text, a, b, anchored.shift, a)
        found: list[Line] = []
        for local, global_, length in zip(anchored.starts, anchored.globals_, anchored.lengths, strict=True):
            low, high = max(a, local), min(b, local + length)
            if low < high:
                for line in self.run_lines(anchored.text, low, high, global_ - local, a):
                    if found and found[-1].bbox is line.bbox:  # one line read through two runs
                        found[-1] = Line(found[-1].start, line.end, line.bbox)
                    else:
                        found.append(line)
        return found

    def run_lines(self, text: str, low: int, high: int, shift: int, origin: int) -> list[Line]:
        """Lines within `text[low:high]`, whose global offsets are local ones + `shift`; spans from `origin`."""
        starts, ends, found = self.starts, self.ends, []
        boxes, lines, indexes = self.boxes, self.page.lines, self.indexes
        g_low, g_high = low + shift, high + shift
        position = bisect.bisect_right(starts, g_low) - 1
        if position < 0 or ends[position] <= g_low:
            position += 1
        count = len(starts)
        while position < count and starts[position] < g_high:
            start = (starts[position] if starts[position] > g_low else g_low) - shift
            end = (ends[position] if ends[position] < g_high else g_high) - shift
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start:
                box = boxes[position]
                if box is False:  # not decoded yet
                    box = boxes[position] = layout_box(lines[indexes[position]].layout, self.page)
                if box is not None:
                    found.append(Line(start - origin, end - origin, box))
            position += 1
        return found
