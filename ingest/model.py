"""The plain data ingest produces: segments, and the one error it raises."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ingest.ids import make_segment_id

# `header` / `footer`: page furniture (Layout Parser); stored, but never sent to the RAG store (design §3).
# `field`: a label -> value pair Document AI found (ingest.fields); its text repeats what other segments hold.
SegmentKind = Literal["paragraph", "heading", "table", "list", "text", "header", "footer", "field"]


class InvalidDocument(ValueError):
    """The input is not a Document AI document segcite can read; the message says what to do."""


class BBox(msgspec.Struct, frozen=True, gc=False):
    """Normalized (0..1) bounding box on the segment's page. A frozen msgspec Struct: built in C, and ingest
    builds one per line, table row and paragraph."""

    x0: float
    y0: float
    x1: float
    y1: float

    def union(self, other: BBox | None) -> BBox:
        if other is None:
            return self
        return BBox(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))

    def to_dict(self) -> dict[str, float]:
        return {"x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}


class Line(msgspec.Struct, frozen=True, gc=False):
    """One Document AI line inside a segment: its code-point span in the segment's `text`, and its box.
    A frozen msgspec Struct like Segment: a large OCR file has tens of thousands of lines."""

    start: int
    end: int
    bbox: BBox

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "bbox": self.bbox.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Line:
        return cls(int(data["start"]), int(data["end"]), BBox(**data["bbox"]))


class Segment(msgspec.Struct, frozen=True, gc=False):
    """One segment (design §3). A frozen msgspec Struct rather than a dataclass: it is built in C, and ingest
    builds thousands per document within the budget of `orjson.loads` on the same bytes (it holds no reference
    cycles, so the garbage collector need not track it)."""

    document_id: str
    segment_index: int
    page_idx: int
    kind: SegmentKind
    text: str
    char_start: int | None
    char_end: int | None
    bbox: BBox | None
    lines: tuple[Line, ...] | None = None  # null where the input has no line geometry (design §3)

    @property
    def segment_id(self) -> str:
        return make_segment_id(self.document_id, self.segment_index)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of design §3 (also one line of `segcite segments`)."""
        return {
            "segment_id": self.segment_id,
            "document_id": self.document_id,
            "segment_index": self.segment_index,
            "page_idx": self.page_idx,
            "kind": self.kind,
            "text": self.text,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "bbox": self.bbox.to_dict() if self.bbox else None,
            "lines": [line.to_dict() for line in self.lines] if self.lines is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Segment:
        bbox = data.get("bbox")
        return cls(
            document_id=str(data["document_id"]),
            segment_index=int(data["segment_index"]),
            page_idx=int(data["page_idx"]),
            kind=data.get("kind", "text"),
            text=data["text"],
            char_start=data.get("char_start"),
            char_end=data.get("char_end"),
            bbox=BBox(**bbox) if bbox else None,
            lines=tuple(Line.from_dict(x) for x in lines) if (lines := data.get("lines")) is not None else None,
        )
