"""Layout Parser output (`documentLayout`, no `text`/`pages`): blocks -> pieces, pages from `pageSpan`.

There is no global text, so offsets are null; there are no boxes, so bbox and lines are null. Blocks merge
like paragraphs (a heading opens a segment); page headers and footers become `header` / `footer` pieces.
"""

from __future__ import annotations

from functools import cache

from ingest.model import SegmentKind
from ingest.pieces import Piece
from ingest.schema import (
    BLOCKS,
    LIST_BLOCK,
    Block,
    CellBlock,
    DocumentLayout,
    ListBlock,
    PageSpan,
    TableBlock,
    TableCell,
)
from ingest.split import split_spans
from ingest.tables import Row, Table, render_row, table_pieces

_KINDS: dict[str, SegmentKind] = {"header": "header", "footer": "footer", "title": "heading", "subtitle": "heading"}


def layout_pieces(layout: DocumentLayout, max_chars: int) -> list[Piece]:
    pieces: list[Piece] = []
    _walk(layout.blocks, 0, max_chars, pieces)
    return pieces


def _page_idx(span: PageSpan | None, inherited: int) -> int:
    start = (span.pageStart or span.page_start) if span is not None else 0
    return start - 1 if start > 0 else inherited


@cache  # a handful of distinct types, thousands of blocks
def _kind(text_type: str) -> SegmentKind:
    text_type = text_type.lower()
    if text_type.startswith("heading"):
        return "heading"
    return _KINDS.get(text_type, "paragraph")  # header / footer: page furniture, never sent to the RAG store


def _walk(blocks: tuple[Block, ...], inherited_page: int, max_chars: int, out: list[Piece]) -> None:
    for block in blocks:
        span = block.pageSpan or block.page_span
        start = (span.pageStart or span.page_start) if span is not None else 0
        page_idx = start - 1 if start > 0 else inherited_page
        text_block = block.textBlock or block.text_block
        if text_block is not None:
            kind = _kind(text_block.type or text_block.type_ or "paragraph")
            text = text_block.text
            if len(text) <= max_chars and text and not text[0].isspace() and not text[-1].isspace():
                out.append(Piece(page_idx, kind, text, None, None, None, None, True))  # the usual block
            else:
                spans = split_spans(text, max_chars)
                out.extend(Piece(page_idx, kind, text[a:b], None, None, None, None, len(spans) == 1) for a, b in spans)
            if text_block.blocks:
                _walk(text_block.blocks, page_idx, max_chars, out)
        elif (table := block.table_part) is not None:
            out.extend(_table_pieces(table, page_idx, max_chars))
        elif (list_block := block.list_part) is not None:
            out.extend(_list_pieces(list_block, page_idx, max_chars))


def _text_of(blocks: list[Block]) -> str:
    """All text under some blocks, flattened (cells and list entries hold nested blocks)."""
    parts: list[str] = []
    for block in blocks:
        text_block = block.text_part
        if text_block is not None:
            parts.append(text_block.text)
            parts.append(_text_of(text_block.blocks))
        list_block = block.list_part
        if list_block is not None:
            parts.extend(_text_of(entry.blocks) for entry in list_block.entries)
    return " ".join(" ".join(parts).split())


def _row_texts(cells: tuple[TableCell, ...]) -> list[str]:
    texts: list[str] = []
    for cell in cells:
        blocks = cell.blocks
        if len(blocks) == 1:
            only = blocks[0].textBlock or blocks[0].text_block
            if only is not None and len(only.blocks) <= 2:  # the usual cell: one text block, nothing nested
                texts.append(" ".join(only.text.split()))
                continue
        texts.append(_cell_text(blocks))
    return texts


def _cell_text(blocks: tuple[CellBlock, ...]) -> str:
    parts: list[str] = []
    for block in blocks:
        text_block = block.textBlock or block.text_block
        if text_block is not None:
            parts.append(text_block.text)
            if len(text_block.blocks) > 2:  # not absent, not `[]`
                parts.append(_text_of(BLOCKS.decode(text_block.blocks)))
        raw_list = block.listBlock if len(block.listBlock) else block.list_block
        if len(raw_list):
            parts.extend(_text_of(entry.blocks) for entry in LIST_BLOCK.decode(raw_list).entries)
    return " ".join(" ".join(parts).split())


def _table_pieces(table: TableBlock, page_idx: int, max_chars: int) -> list[Piece]:
    """Rows as `cell | cell`; a table that spans pages becomes one table per page, the header repeated."""
    header_rows = table.header
    header: list[Row] = []
    by_page: list[tuple[int, list[Row]]] = []
    row_page = page_idx
    for number, row in enumerate([*header_rows, *table.body]):
        cells = row.cells
        if cells and cells[0].blocks:
            first = cells[0].blocks[0]
            row_page = _page_idx(first.pageSpan or first.page_span, row_page)
        text = render_row(_row_texts(cells))
        if text is None:
            continue
        if number < len(header_rows):
            header.append(Row(text, None, None, None))
        elif by_page and by_page[-1][0] == row_page:
            by_page[-1][1].append(Row(text, None, None, None))
        else:
            by_page.append((row_page, [Row(text, None, None, None)]))
    pieces: list[Piece] = []
    for part, (page, rows) in enumerate(by_page or [(page_idx, [])]):
        split = Table(page, header, rows, None, None, None, header_is_repeat=part > 0)
        pieces.extend(table_pieces(split, max_chars, with_lines=False))
    return pieces


def _list_pieces(list_block: ListBlock, page_idx: int, max_chars: int) -> list[Piece]:
    entries = [_text_of(entry.blocks) for entry in list_block.entries]
    text = "\n".join(e for e in entries if e)
    spans = split_spans(text, max_chars)
    return [Piece(page_idx, "list", text[a:b], None, None, None, None, len(spans) == 1) for a, b in spans]
