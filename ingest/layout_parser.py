"""Layout Parser output (`documentLayout`, no `text`/`pages`): blocks -> pieces, pages from `pageSpan`.

There is no global text, so offsets are null; there are no boxes, so bbox and lines are null. Blocks merge
like paragraphs (a heading opens a segment); page headers and footers become `header` / `footer` pieces.
"""

from __future__ import annotations

from ingest.model import SegmentKind
from ingest.pieces import Piece
from ingest.schema import Block, DocumentLayout, ListBlock, TableBlock
from ingest.split import split_spans
from ingest.tables import Row, Table, render_row, table_pieces


def layout_pieces(layout: DocumentLayout, max_chars: int) -> list[Piece]:
    pieces: list[Piece] = []
    _walk(layout.blocks, 0, max_chars, pieces)
    return pieces


def _page_idx(block: Block, inherited: int) -> int:
    span = block.span
    return max(span.start - 1, 0) if span is not None and span.start else inherited


def _kind(text_type: str) -> SegmentKind:
    text_type = text_type.lower()
    if text_type.startswith("heading") or text_type in ("title", "subtitle"):
        return "heading"
    if text_type in ("header", "footer"):
        return text_type  # page furniture: stored, never sent to the RAG store
    return "paragraph"


def _walk(blocks: list[Block], inherited_page: int, max_chars: int, out: list[Piece]) -> None:
    for block in blocks:
        page_idx = _page_idx(block, inherited_page)
        text_block = block.text_part
        if text_block is not None:
            kind = _kind(text_block.type or text_block.type_ or "paragraph")
            spans = split_spans(text_block.text, max_chars)
            out.extend(
                Piece(page_idx, kind, text_block.text[a:b], None, None, None, None, len(spans) == 1) for a, b in spans
            )
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
            parts.append(" ".join(text_block.text.split()))
            parts.append(_text_of(text_block.blocks))
        list_block = block.list_part
        if list_block is not None:
            parts.extend(_text_of(entry.blocks) for entry in list_block.entries)
    return " ".join(p for p in parts if p)


def _table_pieces(table: TableBlock, page_idx: int, max_chars: int) -> list[Piece]:
    """Rows as `cell | cell`; a table that spans pages becomes one table per page, the header repeated."""
    header: list[Row] = []
    by_page: list[tuple[int, list[Row]]] = []
    row_page = page_idx
    for number, row in enumerate([*table.header, *table.body]):
        first_block = next((b for cell in row.cells for b in cell.blocks), None)
        if first_block is not None:
            row_page = _page_idx(first_block, row_page)
        text = render_row([_text_of(cell.blocks) for cell in row.cells])
        if text is None:
            continue
        if number < len(table.header):
            header.append(Row(text, None, None, None))
            continue
        if not by_page or by_page[-1][0] != row_page:
            by_page.append((row_page, []))
        by_page[-1][1].append(Row(text, None, None, None))
    if not by_page:
        by_page.append((page_idx, []))
    pieces: list[Piece] = []
    for part, (page, rows) in enumerate(by_page):
        split = Table(page, header, rows, None, None, None, header_is_repeat=part > 0)
        pieces.extend(table_pieces(split, max_chars, with_lines=False))
    return pieces


def _list_pieces(list_block: ListBlock, page_idx: int, max_chars: int) -> list[Piece]:
    entries = [_text_of(entry.blocks) for entry in list_block.entries]
    text = "\n".join(e for e in entries if e)
    spans = split_spans(text, max_chars)
    return [Piece(page_idx, "list", text[a:b], None, None, None, None, len(spans) == 1) for a, b in spans]
