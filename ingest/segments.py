"""Document AI JSON -> page-indexed segments (design §3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ingest.anchors import AnchoredText
from ingest.fields import field_segments
from ingest.layout_parser import layout_pieces
from ingest.load import LoadedDocument, Shard, load_document
from ingest.model import InvalidDocument, Segment
from ingest.pages import add_shard
from ingest.pieces import Piece, SegmentList, merge_pieces
from ingest.split import split_spans

# An entity anchored to more text than this is a document a splitter found, not a value (ingest.fields takes
# values up to 120 characters).
SPLIT_MIN_CHARS = 240


def build_segments(
    docai: Any, document_id: str, *, max_chars: int = 1200, names: Sequence[str] | None = None
) -> list[Segment]:
    """Segments of one document, in reading order, each on one page and at most `max_chars` long.

    `docai`: the bytes of one Document AI JSON file, a list of such bytes (shards, any order), a parsed dict
    or list of dicts, or a `google.cloud.documentai.Document`. `names`: one name per input item (the user's
    file names), used in error messages instead of a position. Raises `InvalidDocument` on bad input.
    """
    if max_chars < 20:
        raise ValueError("max_chars must be at least 20")
    loaded = load_document(docai, names)
    out = SegmentList(document_id)
    if loaded.layout is not None:
        pieces = layout_pieces(loaded.layout, max_chars)
        if not pieces:
            raise InvalidDocument(f"{loaded.where}the Layout Parser output holds no text (no text in its blocks)")
        out.add_groups(merge_pieces(pieces, max_chars))
        return out.segments
    for shard in loaded.shards:
        add_shard(shard, max_chars, out)
    if not out.segments:
        # A document whose text is not empty is never refused for lack of layout (design §3).
        out.add_groups([[piece] for piece in _text_pieces(loaded, max_chars)])
    if not out.segments:
        raise InvalidDocument(f"{loaded.where}the document holds no text (a scanned page without OCR?)")
    out.segments.extend(field_segments(loaded.shards, document_id, len(out.segments), max_chars))
    return out.segments


def _text_pieces(loaded: LoadedDocument, max_chars: int) -> list[Piece]:
    """A document with `text` but no usable layout: split by size, on page 0, or where a splitter says which
    documents its text holds, by document (`splitter_parts`): no piece runs from one into the next."""
    pieces: list[Piece] = []
    for shard in loaded.shards:
        if not shard.doc.text.strip():
            continue
        for page_idx, start, end in splitter_parts(shard):
            anchored = AnchoredText([(start, end)], shard)
            text = anchored.text
            for a, b in split_spans(text, max_chars, anchored.lo, anchored.hi, whole_lines=True):
                pieces.append(Piece(page_idx, "text", text[a:b], *anchored.global_span(a, b), None, None, False))
    return pieces


def splitter_parts(shard: Shard) -> list[tuple[int, int, int]]:
    """`(page_idx, start, end)` runs covering the shard's text: one per document a splitter found in it (a
    Procurement or Lending Splitter's entity: a document class anchored to that document's text, with the pages
    it is on), on the first of its pages; the whole text on page 0 when there is no such split (no entities,
    or anchors that overlap or are not one run each). Text between two documents goes with the one before."""
    length = len(shard.doc.text)
    found: list[tuple[int, int]] = []  # (start, page_idx)
    for entity in shard.doc.entities:
        anchor = entity.anchor
        runs = (anchor.textSegments or anchor.text_segments) if anchor is not None else ()
        if entity.properties or len(runs) != 1 or runs[0].end - runs[0].start <= SPLIT_MIN_CHARS:
            continue  # a value, or a document made of fields: not a split
        start, end = runs[0].start, runs[0].end
        if not 0 <= start < end <= length:
            continue
        found.append((start, entity.refs[0].page if entity.refs else 0))
    found.sort()
    starts = [start for start, _ in found]
    if not found or len(set(starts)) != len(starts):
        return [(0, 0, length)]
    bounds = [0, *starts[1:], length]  # (text before the first document goes with it)
    return [(page, bounds[i], bounds[i + 1]) for i, (_, page) in enumerate(found)]


def page_sizes(docai: Any, names: Sequence[str] | None = None) -> dict[int, tuple[float, float]]:
    """Each page's size as Document AI gives it (`pages[].dimension`: width, height, in its unit), by `page_idx`.
    Pages without a dimension, and Layout Parser output (which has none), are left out. Takes `docai` and
    `names` as `build_segments` does; what a viewer needs to draw a segment's normalized boxes to scale."""
    sizes: dict[int, tuple[float, float]] = {}
    for shard in load_document(docai, names).shards:
        for number, page in enumerate(shard.doc.pages, start=1):
            dimension = page.dimension
            if dimension is not None and dimension.width > 0 and dimension.height > 0:
                sizes[(page.pageNumber or page.page_number or number) - 1] = (dimension.width, dimension.height)
    return sizes
