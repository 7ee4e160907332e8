# ruff: noqa: RUF012  (msgspec copies empty-list defaults per instance, so they are safe here)
"""Typed decoding of the Document AI fields segcite needs, and nothing else.

Tokens, symbols, page images and entities are never declared here, so msgspec skips them without building
Python objects (design §3: orders of magnitude faster and smaller than `orjson.loads` on OCR output).
Proto3 JSON comes as camelCase (the API, `to_json()`) or snake_case (`to_dict()`-style); the same structs
are built twice, once per spelling. `strict=False` decoding accepts int64 fields written as strings.
"""

# No `from __future__ import annotations`: the structs below are built inside a function and msgspec must
# see their annotations as real types, not as strings to resolve in module globals.

from dataclasses import dataclass

import msgspec


@dataclass(frozen=True)
class Schema:
    document: type
    elements: msgspec.json.Decoder  # for `blocks` / `lines`, decoded only when a page has no paragraphs
    bounding_poly: msgspec.json.Decoder


def _build(rename: str | None) -> Schema:
    class Base(msgspec.Struct, rename=rename):
        pass

    class TextSegment(Base):
        start_index: int = 0  # proto3 leaves 0 out
        end_index: int = 0

    class TextAnchor(Base):
        text_segments: list[TextSegment] = []

    class Vertex(Base):
        x: float = 0.0  # a (0, 0) vertex is written as {}
        y: float = 0.0

    class BoundingPoly(Base):
        normalized_vertices: list[Vertex] = []
        vertices: list[Vertex] = []

    class Layout(Base):
        text_anchor: TextAnchor | None = None
        bounding_poly: msgspec.Raw = msgspec.Raw()  # decoded only for the elements a segment uses

    class Element(Base):  # a block, paragraph, line or table cell
        layout: Layout | None = None

    class TableRow(Base):
        cells: list[Element] = []

    class Table(Base):
        layout: Layout | None = None
        header_rows: list[TableRow] = []
        body_rows: list[TableRow] = []

    class Dimension(Base):
        width: float = 0.0
        height: float = 0.0

    class Page(Base):
        page_number: int = 0
        dimension: Dimension | None = None
        layout: Layout | None = None
        paragraphs: list[Element] = []
        # Fallback sources, kept raw: most pages have paragraphs, and decoding all three levels triples the work.
        blocks: msgspec.Raw = msgspec.Raw()
        lines: msgspec.Raw = msgspec.Raw()
        tables: list[Table] = []

    class ShardInfo(Base):
        shard_index: int = 0
        shard_count: int = 0
        text_offset: int = 0

    class Document(Base):
        text: str = ""
        pages: list[Page] = []
        shard_info: ShardInfo | None = None
        # Kept raw, parsed only when present; an empty Raw means absent (msgspec has no `Raw | None`).
        document_layout: msgspec.Raw = msgspec.Raw()
        document: msgspec.Raw = msgspec.Raw()

    return Schema(
        document=Document,
        elements=msgspec.json.Decoder(list[Element], strict=False),
        bounding_poly=msgspec.json.Decoder(BoundingPoly, strict=False),
    )


CAMEL = _build("camel")
SNAKE = _build(None)

_SNAKE_MARKERS = (b'"text_anchor"', b'"page_number"', b'"shard_info"', b'"document_layout"')
_CAMEL_MARKER = b'"textAnchor"'


def schema_for_bytes(data: bytes) -> Schema:
    """camelCase unless a snake_case-only key comes before the first `"textAnchor"` (memchr-fast searches;
    a camelCase file stops the search early, after its `text`)."""
    first_camel = data.find(_CAMEL_MARKER)
    end = len(data) if first_camel < 0 else first_camel
    return SNAKE if any(data.find(marker, 0, end) >= 0 for marker in _SNAKE_MARKERS) else CAMEL
