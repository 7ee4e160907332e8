"""Normalized boxes from Document AI bounding polygons."""

from __future__ import annotations

import struct

from ingest.model import BBox
from ingest.schema import VERTICES, BoundingPoly, Element, Layout, Page

Extent = tuple[float, float, float, float]  # min x, min y, max x, max y

# Document AI stores coordinates as float32: a `documentai.Document` and its JSON print them differently
# (shortest float32 digits, or float64 digits), so every coordinate goes through float32 before rounding,
# and both inputs give the same box to the last decimal.
_FLOAT32 = struct.Struct("<4f")


def box(x0: float, y0: float, x1: float, y1: float) -> BBox:
    """A BBox clamped to 0..1, as float32 values rounded to 6 decimals."""
    if not (0.0 <= x0 <= x1 <= 1.0 and 0.0 <= y0 <= y1 <= 1.0):
        x0, y0, x1, y1 = _clamp(x0), _clamp(y0), _clamp(x1), _clamp(y1)
    x0, y0, x1, y1 = _FLOAT32.unpack(_FLOAT32.pack(x0, y0, x1, y1))
    # `round(v * 1e6) / 1e6` equals `round(v, 6)` for a float32 `v` (the product is exact in float64, both
    # round half to even), at a fifth of the cost.
    return BBox(round(x0 * 1e6) / 1e6, round(y0 * 1e6) / 1e6, round(x1 * 1e6) / 1e6, round(y1 * 1e6) / 1e6)


def _clamp(value: float) -> float:
    return value if 0.0 <= value <= 1.0 else (0.0 if value < 1.0 else 1.0)  # NaN -> 0.0


def poly_extent(poly: BoundingPoly, page: Page) -> Extent | None:
    """The extent of a polygon: its normalized vertices, else its pixel vertices over the page size; None when
    it has neither."""
    points = poly.normalizedVertices or poly.normalized_vertices
    if points:
        xs, ys = [v.x for v in points], [v.y for v in points]
        return min(xs), min(ys), max(xs), max(ys)
    dimension = page.dimension
    if not poly.vertices or dimension is None or not dimension.width or not dimension.height:
        return None
    pixels = VERTICES.decode(poly.vertices)
    if not pixels:
        return None
    xs, ys = [v.x / dimension.width for v in pixels], [v.y / dimension.height for v in pixels]
    return min(xs), min(ys), max(xs), max(ys)


def layout_box(layout: Layout | None, page: Page) -> BBox | None:
    """The box of an element's `boundingPoly` (see `poly_extent`)."""
    poly = layout.poly if layout is not None else None
    if poly is None:
        return None
    points = poly.normalizedVertices or poly.normalized_vertices
    if len(points) == 4:  # the usual quadrilateral, inline: one call per line of a large OCR file
        a, b, c, d = points
        return box(min(a.x, b.x, c.x, d.x), min(a.y, b.y, c.y, d.y), max(a.x, b.x, c.x, d.x), max(a.y, b.y, c.y, d.y))
    extent = poly_extent(poly, page)
    return box(*extent) if extent is not None else None


def cells_box(cells: tuple[Element, ...], page: Page) -> BBox | None:
    """One box around the cells of a table row, from all their normalized vertices at once."""
    polys = [layout.poly for cell in cells if (layout := cell.layout) is not None]
    vertices = [p.normalizedVertices or p.normalized_vertices for p in polys if p is not None]
    if len(vertices) == len(polys) and all(vertices):
        xs = [v.x for points in vertices for v in points]
        ys = [v.y for points in vertices for v in points]
    else:  # some cell has only pixel vertices, or none
        extents = [e for poly in polys if poly is not None and (e := poly_extent(poly, page)) is not None]
        xs = [x for e in extents for x in e[0::2]]
        ys = [y for e in extents for y in e[1::2]]
    return box(min(xs), min(ys), max(xs), max(ys)) if xs else None


def union(boxes: list[BBox | None]) -> BBox | None:
    present = [b for b in boxes if b is not None]
    if len(present) <= 1:
        return present[0] if present else None
    first = present[0]
    x0, y0, x1, y1 = first.x0, first.y0, first.x1, first.y1
    for other in present:
        if other.x0 < x0:
            x0 = other.x0
        if other.y0 < y0:
            y0 = other.y0
        if other.x1 > x1:
            x1 = other.x1
        if other.y1 > y1:
            y1 = other.y1
    return BBox(x0, y0, x1, y1)
