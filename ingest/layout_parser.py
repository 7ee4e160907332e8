"""Layout Parser output (`documentLayout`, no `text`/`pages`): blocks -> units, pages from `pageSpan`.

There is no global text, so offsets are null; there are no boxes, so bbox is null. Layout files carry text
only (no tokens or images), so they are read as plain dicts.
"""

from __future__ import annotations

import re
from typing import Any

from ingest.model import InvalidDocument, SegmentKind
from ingest.split import split_spans
from ingest.units import Unit

_CAMEL_HUMP = re.compile(r"(?<!^)(?=[A-Z])")


def _get(data: dict[str, Any], camel: str, default: Any = None) -> Any:
    """A field by its proto3 JSON name or its snake_case name."""
    if camel in data:
        return data[camel]
    return data.get(_CAMEL_HUMP.sub("_", camel).lower(), default)


def _page_idx(block: dict[str, Any], inherited: int) -> int:
    span = _get(block, "pageSpan") or {}
    start = _get(span, "pageStart")
    try:
        return max(int(start) - 1, 0) if start is not None else inherited
    except (TypeError, ValueError):
        raise InvalidDocument(f"block {_get(block, 'blockId', '?')}: pageSpan.pageStart is not a number") from None


def _kind(text_type: str) -> SegmentKind:
    text_type = text_type.lower()
    if text_type.startswith("heading") or text_type in ("title", "subtitle"):
        return "heading"
    if text_type in ("header", "footer"):
        return "text"
    return "paragraph"


def _text_of(blocks: list[dict[str, Any]]) -> str:
    """All text under some blocks, flattened (cells and list entries hold nested blocks)."""
    parts: list[str] = []
    for block in blocks:
        text_block = _get(block, "textBlock")
        if isinstance(text_block, dict):
            parts.append(" ".join(str(text_block.get("text", "")).split()))
            parts.append(_text_of(_get(text_block, "blocks", [])))
        for entry in _get(_get(block, "listBlock") or {}, "listEntries", []):
            parts.append(_text_of(_get(entry, "blocks", [])))
    return " ".join(p for p in parts if p)


def _pieces(text: str, page_idx: int, kind: SegmentKind, max_chars: int) -> list[Unit]:
    return [Unit(page_idx, kind, text[a:b], None, None, None, mergeable=False) for a, b in split_spans(text, max_chars)]


def layout_units(layout: dict[str, Any], max_chars: int) -> list[Unit]:
    blocks = _get(layout, "blocks", [])
    if not isinstance(blocks, list):
        raise InvalidDocument("documentLayout.blocks is not a list")
    units: list[Unit] = []
    _walk(blocks, 0, max_chars, units)
    return units


def _walk(blocks: list[dict[str, Any]], inherited_page: int, max_chars: int, out: list[Unit]) -> None:
    for block in blocks:
        page_idx = _page_idx(block, inherited_page)
        text_block = _get(block, "textBlock")
        table_block = _get(block, "tableBlock")
        list_block = _get(block, "listBlock")
        if isinstance(text_block, dict):
            text = str(text_block.get("text", ""))
            text_type = str(text_block.get("type") or text_block.get("type_") or "paragraph")
            out.extend(_pieces(text, page_idx, _kind(text_type), max_chars))
            _walk(_get(text_block, "blocks", []), page_idx, max_chars, out)
        elif isinstance(table_block, dict):
            out.extend(_table_units(table_block, page_idx, max_chars))
        elif isinstance(list_block, dict):
            out.extend(_list_units(list_block, page_idx, max_chars))


def _table_units(table: dict[str, Any], page_idx: int, max_chars: int) -> list[Unit]:
    """Rows as `cell | cell`, header kept; a table that spans pages becomes one unit per page."""
    by_page: list[tuple[int, list[str]]] = []
    row_page = page_idx
    for row in [*_get(table, "headerRows", []), *_get(table, "bodyRows", [])]:
        cells = _get(row, "cells", [])
        cell_blocks = [b for cell in cells for b in _get(cell, "blocks", [])]
        if cell_blocks:
            row_page = _page_idx(cell_blocks[0], row_page)
        line = " | ".join(_text_of(_get(cell, "blocks", [])) for cell in cells)
        if not line.replace("|", "").strip():
            continue
        if not by_page or by_page[-1][0] != row_page:
            by_page.append((row_page, []))
        by_page[-1][1].append(line)
    units: list[Unit] = []
    for page, rows in by_page:
        text = "\n".join(rows)
        units.extend(_pieces(text, page, "table", max_chars))
    return units


def _list_units(list_block: dict[str, Any], page_idx: int, max_chars: int) -> list[Unit]:
    entries = [_text_of(_get(entry, "blocks", [])) for entry in _get(list_block, "listEntries", [])]
    text = "\n".join(e for e in entries if e)
    return _pieces(text, page_idx, "list", max_chars)
