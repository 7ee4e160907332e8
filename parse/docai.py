"""Page layouts -> Document AI JSON (proto3 JSON as the API returns it: camelCase, int64 as strings, zero
offsets left out), one shard at a time.

Text is written as Document AI's OCR writes it: words of a line joined by a space, each line ending in "\n".
A token's anchor holds its word and the break after it, a line's its words and its "\n"; paragraphs, blocks
and the page hold their lines. A page read by OCR also has the `formFields` and `tables` parse.ocr.forms finds, each
name, value and cell anchored on its words' characters. Anchors are local to the shard's `text`;
`shardInfo.textOffset` places it in the document's."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from parse.layout import Box, PageLayout, Word, union
from parse.ocr.forms import Field, Part, Table, page_forms


@dataclass(slots=True)
class PageImage:
    """The page as a picture: encoded bytes, their MIME type and size in pixels."""

    content: bytes
    mime_type: str
    width: int
    height: int


def _anchor(start: int, end: int) -> dict[str, Any]:
    return _anchor_runs([(start, end)] if end > start else [])


def _anchor_runs(runs: list[tuple[int, int]]) -> dict[str, Any]:
    """Proto3 JSON leaves out a zero `startIndex`."""
    segments = [{"startIndex": str(a), "endIndex": str(b)} if a else {"endIndex": str(b)} for a, b in runs]
    return {"textSegments": segments} if segments else {}


def _poly(box: Box) -> dict[str, Any]:
    x0, y0, x1, y1 = (round(v, 4) for v in box)  # a ten-thousandth of the page: a tenth of a pixel of its image
    return {"normalizedVertices": [{"x": x0, "y": y0}, {"x": x1, "y": y0}, {"x": x1, "y": y1}, {"x": x0, "y": y1}]}


def _layout(start: int, end: int, box: Box, confidence: float) -> dict[str, Any]:
    return {
        "textAnchor": _anchor(start, end),
        "confidence": round(confidence, 4),
        "boundingPoly": _poly(box),
        "orientation": "PAGE_UP",
    }


def _token_layout(start: int, end: int, box: Box, confidence: float) -> dict[str, Any]:
    """A token's layout leaves out its `orientation` (optional; its line's says it): tokens are most of the JSON."""
    return {"textAnchor": _anchor(start, end), "confidence": round(confidence, 4), "boundingPoly": _poly(box)}


def _confidence(words: list[Word]) -> float:
    return sum(w.confidence for w in words) / len(words) if words else 1.0


class ShardWriter:
    """Collects pages into one shard's `text` and `pages`."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.pages: list[dict[str, Any]] = []
        self.starts: dict[int, int] = {}  # id of a word of the page being written -> where its text starts

    def add_page(self, page_number: int, layout: PageLayout, image: PageImage) -> None:
        page_start = self.length
        tokens: list[dict[str, Any]] = []
        lines: list[dict[str, Any]] = []
        paragraphs: list[dict[str, Any]] = []
        blocks: list[dict[str, Any]] = []
        for block in layout.blocks:
            block_start = self.length
            for paragraph in block.paragraphs:
                paragraph_start = self.length
                for line in paragraph.lines:
                    line_start = self.length
                    tokens.extend(self._tokens(line.words))
                    lines.append({"layout": _layout(line_start, self.length, line.box, _confidence(line.words))})
                words = [w for line in paragraph.lines for w in line.words]
                paragraphs.append({"layout": _layout(paragraph_start, self.length, paragraph.box, _confidence(words))})
            words = [w for paragraph in block.paragraphs for line in paragraph.lines for w in line.words]
            blocks.append({"layout": _layout(block_start, self.length, block.box, _confidence(words))})
        page: dict[str, Any] = {}
        if layout.ocr:  # a text layer's PDF keeps its own layout: forms are read where OCR is the only reader
            fields, tables = page_forms(layout, image.width, image.height)
            page.update(formFields=[self._field(f) for f in fields], tables=[self._table(t) for t in tables])
        self.starts.clear()
        self.pages.append(
            {
                "pageNumber": page_number,
                "dimension": {"width": image.width, "height": image.height, "unit": "pixels"},
                "layout": _layout(page_start, self.length, (0.0, 0.0, 1.0, 1.0), 1.0),
                "blocks": blocks,
                "paragraphs": paragraphs,
                "lines": lines,
                "tokens": tokens,
                "image": {
                    "content": base64.b64encode(image.content).decode("ascii"),
                    "mimeType": image.mime_type,
                    "width": image.width,
                    "height": image.height,
                },
                **{key: value for key, value in page.items() if value},
            }
        )

    def _tokens(self, words: list[Word]) -> list[dict[str, Any]]:
        """A line's tokens: each word with the space after it, the last with the line's "\n"."""
        tokens = []
        last = len(words) - 1
        for i, word in enumerate(words):
            start = self.starts[id(word)] = self.length
            self._write(word.text + ("\n" if i == last else " "))
            token: dict[str, Any] = {"layout": _token_layout(start, self.length, word.box, word.confidence)}
            if i != last:
                token["detectedBreak"] = {"type": "SPACE"}
            tokens.append(token)
        return tokens

    def _parts_layout(self, parts: list[Part]) -> dict[str, Any]:
        """The layout of words or parts of words (a label, a value, a cell): their runs of the text, one run for
        words one after the other, and the union of their boxes."""
        runs: list[tuple[int, int]] = []
        for a, b in sorted((self.starts[id(p.word)] + p.start, self.starts[id(p.word)] + p.end) for p in parts):
            if runs and a - runs[-1][1] <= 1:  # the next word, after its space
                runs[-1] = (runs[-1][0], max(runs[-1][1], b))
            else:
                runs.append((a, b))
        layout: dict[str, Any] = {"textAnchor": _anchor_runs(runs)}
        if parts:
            layout["confidence"] = round(_confidence([p.word for p in parts]), 4)
            layout["boundingPoly"] = _poly(union([p.box for p in parts]))
        return layout

    def _field(self, field: Field) -> dict[str, Any]:
        return {"fieldName": self._parts_layout(field.name), "fieldValue": self._parts_layout(field.value)}

    def _table(self, table: Table) -> dict[str, Any]:
        rows = [
            {"cells": [{"layout": self._parts_layout([Part(w, 0, len(w.text)) for w in cell])} for cell in row]}
            for row in table.rows
        ]
        words = [Part(w, 0, len(w.text)) for row in table.rows for cell in row for w in cell]
        return {
            "layout": self._parts_layout(words),
            "headerRows": rows[: table.header_rows],
            "bodyRows": rows[table.header_rows :],
        }

    def _write(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def shard(self, mime_type: str, index: int, count: int, text_offset: int) -> dict[str, Any]:
        return {
            "mimeType": mime_type,
            "text": "".join(self.parts),
            "pages": self.pages,
            "shardInfo": {"shardIndex": str(index), "shardCount": str(count), "textOffset": str(text_offset)},
        }
