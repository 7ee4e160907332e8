"""Normalized boxes from Document AI bounding polygons, decoded only for the elements a segment uses."""

from __future__ import annotations

import struct

from msgspec import Raw

from ingest.model import BBox
from ingest.schema import BOUNDING_POLY, VERTICES, Page

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


def poly_extent(poly: Raw, page: Page) -> tuple[float, float, float, float] | None:
    """(min x, min y, max x, max y) of a raw `boundingPoly`, normalized: its normalized vertices, else its pixel
    vertices over the page size; None when it has neither."""
    if not len(poly):
        return None
    decoded = BOUNDING_POLY.decode(poly)
    points = decoded.normalized
    if len(points) == 4:  # the usual quadrilateral
        a, b, c, d = points
        return min(a.x, b.x, c.x, d.x), min(a.y, b.y, c.y, d.y), max(a.x, b.x, c.x, d.x), max(a.y, b.y, c.y, d.y)
    if points:
        xs, ys = [v.x for v in points], [v.y for v in points]
        return min(xs), min(ys), max(xs), max(ys)
    dimension = page.dimension
    if not len(decoded.vertices) or dimension is None or not dimension.width or not dimension.height:
        return None
    pixels = VERTICES.decode(decoded.vertices)
    if not pixels:
        return None
    xs, ys = [v.x / dimension.width for v in pixels], [v.y / dimension.height for v in pixels]
    return min(xs), min(ys), max(xs), max(ys)


def decode_box(poly: Raw, page: Page) -> BBox | None:
    """The box around a raw `boundingPoly` (see `poly_extent`)."""
    extent = poly_extent(poly, page)
    return box(*extent) if extent is not None else None


def extents_box(extents: list[tuple[float, float, float, float] | None]) -> BBox | None:
    """One box around several extents (the cells of a table row)."""
    present = [e for e in extents if e is not None]
    if not present:
        return None
    return box(
        min(e[0] for e in present), min(e[1] for e in present), max(e[2] for e in present), max(e[3] for e in present)
    )


def union(boxes: list[BBox | None]) -> BBox | None:
    present = [b for b in boxes if b is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return BBox(
        min(b.x0 for b in present), min(b.y0 for b in present), max(b.x1 for b in present), max(b.y1 for b in present)
    )
