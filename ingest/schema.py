"""Typed decoding of the Document AI fields segcite needs, and nothing else.

Tokens, symbols and page images are never declared here, so msgspec skips them without building Python objects
(design §3: orders of magnitude faster and smaller than `orjson.loads` on OCR output). Entities and form fields
are: they become segments of kind `field` (ingest.fields).
Proto3 JSON comes as camelCase (the API, `to_json()`) or snake_case (`to_dict()`-style, `type_`): every field
whose two spellings differ is declared under both, read through a property (hot paths read both fields
directly). One pass decodes either spelling; guessing the spelling first would cost a scan of the whole file.
`strict=False` decoding accepts int64 fields written as strings.
"""

from __future__ import annotations

import msgspec
from msgspec import Raw, Struct

# An empty Raw means "absent" (msgspec has no `Raw | None`).
NO_RAW = Raw()


class Base(Struct, gc=False):
    """Decoded structs hold no reference cycles: untracked by the garbage collector, which would otherwise
    walk the hundreds of thousands of them that a large OCR file gives (a third of the decoding time).
    Sequences are tuples defaulting to the shared `()`: a missing field (and each field has two spellings)
    allocates nothing, where a `[]` default is copied for every instance."""


class TextSegment(Base):
    startIndex: int = 0  # proto3 leaves 0 out
    endIndex: int = 0
    start_index: int = 0
    end_index: int = 0

    @property
    def start(self) -> int:
        return self.startIndex or self.start_index

    @property
    def end(self) -> int:
        return self.endIndex or self.end_index


class TextAnchor(Base):
    textSegments: tuple[TextSegment, ...] = ()
    text_segments: tuple[TextSegment, ...] = ()


class Vertex(Base):
    x: float = 0.0  # a (0, 0) vertex is written as {}
    y: float = 0.0


class BoundingPoly(Base):
    normalizedVertices: tuple[Vertex, ...] = ()
    normalized_vertices: tuple[Vertex, ...] = ()
    vertices: Raw = NO_RAW  # pixels: decoded only when a box has no normalized vertices


class Layout(Base):
    textAnchor: TextAnchor | None = None
    text_anchor: TextAnchor | None = None
    # The polygon stays raw JSON, decoded only for the elements a segment uses (Form Parser repeats every
    # table cell as a paragraph, which segments skip; a page's own box serves only pages without elements).
    boundingPoly: Raw = NO_RAW
    bounding_poly: Raw = NO_RAW

    @property
    def poly(self) -> BoundingPoly | None:
        raw = self.boundingPoly or self.bounding_poly
        return BOUNDING_POLY.decode(raw) if raw else None


class Element(Base):  # a block, paragraph, line or table cell
    layout: Layout | None = None


class TableRow(Base):
    cells: tuple[Element, ...] = ()


class Table(Base):
    layout: Layout | None = None
    headerRows: tuple[TableRow, ...] = ()
    bodyRows: tuple[TableRow, ...] = ()
    header_rows: tuple[TableRow, ...] = ()
    body_rows: tuple[TableRow, ...] = ()

    @property
    def header(self) -> tuple[TableRow, ...]:
        return self.headerRows or self.header_rows

    @property
    def body(self) -> tuple[TableRow, ...]:
        return self.bodyRows or self.body_rows


class Dimension(Base):
    width: float = 0.0
    height: float = 0.0


class FormField(Base):
    """A Form Parser pair: the label's layout and the value's (design §3 "Fields")."""

    fieldName: Layout | None = None
    fieldValue: Layout | None = None
    field_name: Layout | None = None
    field_value: Layout | None = None
    valueType: str = ""  # "filled_checkbox" / "unfilled_checkbox" for a check box, whose value has no text
    value_type: str = ""

    @property
    def name(self) -> Layout | None:
        return self.fieldName or self.field_name

    @property
    def value(self) -> Layout | None:
        return self.fieldValue or self.field_value


class Page(Base):
    pageNumber: int = 0
    page_number: int = 0
    dimension: Dimension | None = None
    layout: Layout | None = None
    paragraphs: tuple[Element, ...] = ()
    # Lines give the segments their line geometry (design §3 `lines`) and are a fallback source of text.
    lines: tuple[Element, ...] = ()
    # Kept raw: most pages have paragraphs, and blocks are only a fallback source.
    blocks: Raw = NO_RAW
    tables: tuple[Table, ...] = ()
    formFields: tuple[FormField, ...] = ()
    form_fields: tuple[FormField, ...] = ()

    @property
    def fields(self) -> tuple[FormField, ...]:
        return self.formFields or self.form_fields


# Entities (Invoice, Expense, ID and other parsers): a type, the text it was read from, where it is on which page.


class PageRef(Base):
    page: int = 0  # an index into the shard's `pages`; proto3 leaves 0 out
    boundingPoly: Raw = NO_RAW
    bounding_poly: Raw = NO_RAW

    @property
    def poly(self) -> BoundingPoly | None:
        raw = self.boundingPoly or self.bounding_poly
        return BOUNDING_POLY.decode(raw) if raw else None


class PageAnchor(Base):
    pageRefs: tuple[PageRef, ...] = ()
    page_refs: tuple[PageRef, ...] = ()

    @property
    def refs(self) -> tuple[PageRef, ...]:
        return self.pageRefs or self.page_refs


class NormalizedValue(Base):
    text: str = ""
    dateValue: Raw = NO_RAW  # only whether it is a date matters
    date_value: Raw = NO_RAW

    @property
    def is_date(self) -> bool:
        return bool(self.dateValue or self.date_value)


class Entity(Base):
    type: str = ""
    type_: str = ""
    confidence: float = 1.0  # absent: as sure as can be (custom processors may leave it out)
    # Raw: a splitter's entity mentions its whole document; only a short mention is ever decoded (ingest.fields).
    mentionText: Raw = NO_RAW
    mention_text: Raw = NO_RAW
    textAnchor: TextAnchor | None = None
    text_anchor: TextAnchor | None = None
    pageAnchor: PageAnchor | None = None
    page_anchor: PageAnchor | None = None
    normalizedValue: NormalizedValue | None = None
    normalized_value: NormalizedValue | None = None
    properties: tuple[Raw, ...] = ()  # only whether there are any matters (ingest.fields leaves such entities out)

    @property
    def kind(self) -> str:
        return self.type or self.type_

    @property
    def mention(self) -> Raw:
        """The mention as raw JSON (a string literal), or an empty Raw."""
        return self.mentionText or self.mention_text

    @property
    def anchor(self) -> TextAnchor | None:
        return self.textAnchor or self.text_anchor

    @property
    def refs(self) -> tuple[PageRef, ...]:
        anchor = self.pageAnchor or self.page_anchor
        return anchor.refs if anchor is not None else ()

    @property
    def normalized(self) -> NormalizedValue | None:
        return self.normalizedValue or self.normalized_value


class ShardInfo(Base):
    shardIndex: int = 0
    shardCount: int = 0
    textOffset: int = 0
    shard_index: int = 0
    shard_count: int = 0
    text_offset: int = 0

    @property
    def index(self) -> int:
        return self.shardIndex or self.shard_index

    @property
    def count(self) -> int:
        return self.shardCount or self.shard_count

    @property
    def offset(self) -> int:
        return self.textOffset or self.text_offset


# Layout Parser (`documentLayout`): a tree of blocks, text only.


class PageSpan(Base):
    pageStart: int = 0
    page_start: int = 0


class TextBlock(Base):
    text: str = ""
    type: str = ""
    type_: str = ""
    blocks: tuple[Block, ...] = ()


class CellText(Base):
    text: str = ""
    blocks: Raw = NO_RAW  # nested blocks in a cell are rare: decoded only when present


class CellBlock(Base):
    """A block inside a table cell: its text (its `type` is never used, so never decoded)."""

    textBlock: CellText | None = None
    text_block: CellText | None = None
    listBlock: Raw = NO_RAW
    list_block: Raw = NO_RAW
    pageSpan: PageSpan | None = None
    page_span: PageSpan | None = None


class TableCell(Base):
    blocks: tuple[CellBlock, ...] = ()


class LayoutTableRow(Base):
    cells: tuple[TableCell, ...] = ()


class TableBlock(Base):
    headerRows: tuple[LayoutTableRow, ...] = ()
    bodyRows: tuple[LayoutTableRow, ...] = ()
    header_rows: tuple[LayoutTableRow, ...] = ()
    body_rows: tuple[LayoutTableRow, ...] = ()

    @property
    def header(self) -> tuple[LayoutTableRow, ...]:
        return self.headerRows or self.header_rows

    @property
    def body(self) -> tuple[LayoutTableRow, ...]:
        return self.bodyRows or self.body_rows


class ListEntry(Base):
    blocks: tuple[Block, ...] = ()


class ListBlock(Base):
    listEntries: tuple[ListEntry, ...] = ()
    list_entries: tuple[ListEntry, ...] = ()

    @property
    def entries(self) -> tuple[ListEntry, ...]:
        return self.listEntries or self.list_entries


class Block(Base):
    textBlock: TextBlock | None = None
    tableBlock: TableBlock | None = None
    listBlock: ListBlock | None = None
    pageSpan: PageSpan | None = None
    text_block: TextBlock | None = None
    table_block: TableBlock | None = None
    list_block: ListBlock | None = None
    page_span: PageSpan | None = None

    @property
    def text_part(self) -> TextBlock | None:
        return self.textBlock or self.text_block

    @property
    def table_part(self) -> TableBlock | None:
        return self.tableBlock or self.table_block

    @property
    def list_part(self) -> ListBlock | None:
        return self.listBlock or self.list_block


class DocumentLayout(Base):
    blocks: tuple[Block, ...] = ()


class Document(Base):
    text: str = ""
    pages: tuple[Page, ...] = ()
    shardInfo: ShardInfo | None = None
    shard_info: ShardInfo | None = None
    documentLayout: DocumentLayout | None = None
    document_layout: DocumentLayout | None = None
    entities: tuple[Entity, ...] = ()
    document: Raw = NO_RAW  # a ProcessResponse wrapper, recognized to say so

    @property
    def shard(self) -> ShardInfo | None:
        return self.shardInfo or self.shard_info

    @property
    def layout_tree(self) -> DocumentLayout | None:
        return self.documentLayout or self.document_layout


DOCUMENT = msgspec.json.Decoder(Document, strict=False)
BOUNDING_POLY = msgspec.json.Decoder(BoundingPoly, strict=False)
ELEMENTS = msgspec.json.Decoder(tuple[Element, ...], strict=False)  # `blocks`, decoded only when used
BLOCKS = msgspec.json.Decoder(tuple[Block, ...], strict=False)  # the rare nested blocks of a table cell
LIST_BLOCK = msgspec.json.Decoder(ListBlock, strict=False)
VERTICES = msgspec.json.Decoder(tuple[Vertex, ...], strict=False)
