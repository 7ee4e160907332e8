"""Units: pieces of text in reading order on one page, before they are merged into segments."""

from __future__ import annotations

from dataclasses import dataclass

from ingest.model import BBox, SegmentKind


@dataclass(frozen=True, slots=True)
class Unit:
    page_idx: int
    kind: SegmentKind
    text: str
    start: int | None
    end: int | None
    bbox: BBox | None
    mergeable: bool  # False for tables, headings and the pieces of a split paragraph


def merge_units(units: list[Unit], max_chars: int) -> list[Unit]:
    """Consecutive mergeable units of one page and kind join (by newlines) while they fit in `max_chars`."""
    merged: list[Unit] = []
    for unit in units:
        last = merged[-1] if merged else None
        if (
            last is not None
            and last.mergeable
            and unit.mergeable
            and last.page_idx == unit.page_idx
            and last.kind == unit.kind
            and len(last.text) + 1 + len(unit.text) <= max_chars
        ):
            merged[-1] = Unit(
                last.page_idx,
                last.kind,
                f"{last.text}\n{unit.text}",
                _min(last.start, unit.start),
                _max(last.end, unit.end),
                unit.bbox.union(last.bbox) if unit.bbox else last.bbox,
                mergeable=True,
            )
        else:
            merged.append(unit)
    return merged


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)
