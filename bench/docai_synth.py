"""Synthetic Document AI JSON with ground truth: pages, paragraphs, lines, tokens, tables, shards, snake_case.

Written from the v1 proto's JSON form as the fixtures show it: int64 fields as strings, `startIndex` left out
when 0, `textAnchor: {}` on empty cells, page anchors that tile `text`, and (like the Form Parser) a
paragraph per table cell, which segments must not repeat.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PageSpec:
    paragraphs: list[str]
    table: list[list[str]] | None = None  # rows of cells; row 0 is the header
    table_at: int = 0  # the table comes before paragraphs[table_at]


@dataclass
class Truth:
    text: str
    page_paragraphs: list[list[str]]  # per page, the text of each non-table paragraph (stripped)
    page_tables: list[list[list[str]]] = field(default_factory=list)  # per page, table rows (empty: none)


def _anchor(start: int, end: int) -> dict[str, Any]:
    segment: dict[str, Any] = {"endIndex": str(end)}
    if start:
        segment["startIndex"] = str(start)
    return {"textSegments": [segment]}


def _poly(x0: float, y0: float, x1: float, y1: float, width: int = 1700, height: int = 2200) -> dict[str, Any]:
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    return {
        "vertices": [{"x": round(x * width), "y": round(y * height)} for x, y in corners],
        "normalizedVertices": [{"x": x, "y": y} for x, y in corners],
    }


def _layout(start: int, end: int, box: tuple[float, float, float, float]) -> dict[str, Any]:
    return {
        "textAnchor": _anchor(start, end),
        "confidence": 0.98,
        "boundingPoly": _poly(*box),
        "orientation": "PAGE_UP",
    }


class _Writer:
    def __init__(self, with_tokens: bool):
        self.text = ""
        self.with_tokens = with_tokens

    def add(self, piece: str) -> tuple[int, int]:
        start = len(self.text)
        self.text += piece
        return start, len(self.text)


def build_document(pages: list[PageSpec], *, with_tokens: bool = True) -> tuple[dict[str, Any], Truth]:
    writer = _Writer(with_tokens)
    pages_json: list[dict[str, Any]] = []
    truth_paragraphs: list[list[str]] = []
    truth_tables: list[list[list[str]]] = []
    for number, spec in enumerate(pages, start=1):
        page_start = len(writer.text)
        page: dict[str, Any] = {
            "pageNumber": number,
            "dimension": {"width": 1700, "height": 2200, "unit": "pixels"},
            "blocks": [],
            "paragraphs": [],
            "lines": [],
            "tokens": [],
            "tables": [],
        }
        items: list[Any] = list(spec.paragraphs)
        if spec.table is not None:
            items.insert(min(spec.table_at, len(items)), spec.table)
        row_y = 0.05
        for item in items:
            if isinstance(item, str):
                _write_paragraph(writer, page, item, row_y)
            else:
                _write_table(writer, page, item, row_y)
            row_y = min(row_y + 0.08, 0.9)
        page["layout"] = _layout(page_start, len(writer.text), (0, 0, 1, 1))
        if not with_tokens:
            del page["tokens"]
        pages_json.append(page)
        truth_paragraphs.append([p.strip() for p in spec.paragraphs if p.strip()])
        truth_tables.append(spec.table or [])
    document = {"mimeType": "application/pdf", "text": writer.text, "pages": pages_json}
    return document, Truth(text=writer.text, page_paragraphs=truth_paragraphs, page_tables=truth_tables)


def _write_paragraph(writer: _Writer, page: dict[str, Any], paragraph: str, y: float) -> None:
    start = len(writer.text)
    lines = [line for line in re.split(r"(?<=[.!?]) ", paragraph) if line] or [paragraph]
    for i, line in enumerate(lines):
        line_start, line_end = writer.add(line + "\n")
        box = (0.1, y + i * 0.01, 0.9, y + (i + 1) * 0.01)
        page["lines"].append({"layout": _layout(line_start, line_end, box)})
        if writer.with_tokens:
            position = line_start
            for word in re.findall(r"\S+\s*", line + "\n"):
                page["tokens"].append(
                    {
                        "layout": _layout(position, position + len(word), box),
                        "detectedBreak": {"type": "SPACE"},
                        "detectedLanguages": [{"languageCode": "en", "confidence": 0.99}],
                    }
                )
                position += len(word)
    box = (0.1, y, 0.9, y + max(len(lines), 1) * 0.01)
    page["paragraphs"].append({"layout": _layout(start, len(writer.text), box)})
    page["blocks"].append({"layout": _layout(start, len(writer.text), box)})


def _write_table(writer: _Writer, page: dict[str, Any], rows: list[list[str]], y: float) -> None:
    table_start = len(writer.text)
    json_rows: list[dict[str, Any]] = []
    for r, row in enumerate(rows):
        cells = []
        for c, cell in enumerate(row):
            box = (0.1 + c * 0.2, y + r * 0.01, 0.3 + c * 0.2, y + (r + 1) * 0.01)
            if not cell:
                cells.append({"layout": {"textAnchor": {}, "boundingPoly": _poly(*box)}, "rowSpan": 1, "colSpan": 1})
                continue
            start, end = writer.add(cell + "\n")
            cells.append({"layout": _layout(start, end, box), "rowSpan": 1, "colSpan": 1})
            # Form Parser also reports each cell as a paragraph; segments must not say it twice.
            page["paragraphs"].append({"layout": _layout(start, end, box)})
        json_rows.append({"cells": cells})
    box = (0.1, y, 0.9, y + len(rows) * 0.01)
    page["tables"].append(
        {"layout": _layout(table_start, len(writer.text), box), "headerRows": json_rows[:1], "bodyRows": json_rows[1:]}
    )


def _shift(node: Any, by: int) -> Any:
    """Global text anchors -> shard-local ones."""
    if isinstance(node, dict):
        if "endIndex" in node:  # a text segment
            start, end = int(node.get("startIndex", 0)) - by, int(node["endIndex"]) - by
            return {"startIndex": str(start), "endIndex": str(end)} if start else {"endIndex": str(end)}
        return {key: _shift(value, by) for key, value in node.items()}
    if isinstance(node, list):
        return [_shift(v, by) for v in node]
    return node


def shard_document(document: dict[str, Any], pages_per_shard: int) -> list[dict[str, Any]]:
    """Split like Document AI's batch output: each shard holds its pages and their slice of the text."""
    pages = document["pages"]
    groups = [pages[i : i + pages_per_shard] for i in range(0, len(pages), pages_per_shard)]
    shards: list[dict[str, Any]] = []
    for index, group in enumerate(groups):
        start = _page_start(group[0])
        end = int(group[-1]["layout"]["textAnchor"]["textSegments"][0]["endIndex"])
        info: dict[str, Any] = {"shardCount": str(len(groups))}
        if index:
            info.update(shardIndex=str(index), textOffset=str(start))
        shards.append(
            {
                "mimeType": document["mimeType"],
                "shardInfo": info,
                "text": document["text"][start:end],
                "pages": [_shift(copy.deepcopy(page), start) for page in group],
            }
        )
    return shards


def _page_start(page: dict[str, Any]) -> int:
    return int(page["layout"]["textAnchor"]["textSegments"][0].get("startIndex", 0))


_HUMP = re.compile(r"(?<!^)(?=[A-Z])")


def to_snake_case(node: Any) -> Any:
    """The `to_dict()`-style spelling: snake_case keys, `type` as `type_`."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            snake = _HUMP.sub("_", key).lower()
            out["type_" if snake == "type" else snake] = to_snake_case(value)
        return out
    if isinstance(node, list):
        return [to_snake_case(v) for v in node]
    return node


def to_camel_case(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            head, *rest = key.rstrip("_").split("_")
            out[head + "".join(part.title() for part in rest)] = to_camel_case(value)
        return out
    if isinstance(node, list):
        return [to_camel_case(v) for v in node]
    return node


def page_anchors_only(document: dict[str, Any]) -> dict[str, Any]:
    """The document as OCR output that keeps only each page's own layout (no paragraphs, blocks, lines,
    tokens or tables): segments are then read from the page anchors."""
    keep = ("pageNumber", "dimension", "layout")
    pages = [{key: page[key] for key in keep} for page in document["pages"]]
    return {**document, "pages": pages}


@dataclass
class LayoutPageSpec:
    """One page of Layout Parser output: a header, headings and paragraphs, an optional table, a footer."""

    header: str
    blocks: list[tuple[str, str]]  # (type, text): "heading-1", "paragraph", ...
    table: list[list[str]] | None = None
    footer: str = ""


def build_layout_document(pages: list[LayoutPageSpec]) -> dict[str, Any]:
    """Layout Parser output as `Document.to_json` writes it: `documentLayout.blocks`, no text, no pages."""
    blocks: list[dict[str, Any]] = []
    next_id = iter(range(1, 10**9))

    def text_block(kind: str, text: str, page: int) -> dict[str, Any]:
        span = {"pageStart": page, "pageEnd": page}
        block = {"text": text, "type": kind, "blocks": []}
        return {"blockId": str(next(next_id)), "textBlock": block, "pageSpan": span}

    for number, spec in enumerate(pages, start=1):
        blocks.append(text_block("header", spec.header, number))
        blocks.extend(text_block(kind, text, number) for kind, text in spec.blocks)
        if spec.table:
            rows = [
                {
                    "cells": [
                        {"blocks": [text_block("paragraph", cell, number)], "rowSpan": 1, "colSpan": 1} for cell in row
                    ]
                }
                for row in spec.table
            ]
            blocks.append(
                {
                    "blockId": str(next(next_id)),
                    "tableBlock": {"headerRows": rows[:1], "bodyRows": rows[1:], "caption": ""},
                    "pageSpan": {"pageStart": number, "pageEnd": number},
                }
            )
        if spec.footer:
            blocks.append(text_block("footer", spec.footer, number))
    return {"mimeType": "application/pdf", "text": "", "pages": [], "documentLayout": {"blocks": blocks}}
