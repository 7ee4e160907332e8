"""Tables of both input families as segments: rows rendered `cell | cell`, split between rows with the header
rows repeated in each piece (design §3)."""

from __future__ import annotations

import msgspec

from ingest.geometry import union
from ingest.model import BBox, Line
from ingest.pieces import Piece
from ingest.split import split_spans

# An empty cell keeps its column: `— | Apr 17 | Apr 18`, never `| Apr 17 | Apr 18`.
EMPTY_CELL = "—"


def render_row(cells: list[str]) -> str | None:
    """A row as `cell | cell`; None for a row of empty cells, which says nothing."""
    if not any(cells):
        return None
    return " | ".join(cell or EMPTY_CELL for cell in cells)


class Row(msgspec.Struct, frozen=True, gc=False):  # built in C: a large form has thousands of rows
    text: str
    start: int | None  # global span of its cells' text; None where the input has no text (Layout Parser)
    end: int | None
    bbox: BBox | None  # union of its cells' boxes


class Table(msgspec.Struct, frozen=True, gc=False):
    page_idx: int
    header: list[Row]
    body: list[Row]
    start: int | None  # the whole table's span and box
    end: int | None
    bbox: BBox | None
    header_is_repeat: bool = False  # a Layout Parser table continued on a later page: its header is a copy


def table_pieces(table: Table, max_chars: int, with_lines: bool) -> list[Piece]:
    """The table as one piece when it fits; else pieces of whole rows, each after a copy of the header rows
    (a row longer than a segment is cut inside, alone)."""
    rows = [*table.header, *table.body]
    if not rows:
        return []
    text = "\n".join([row.text for row in rows])
    if len(text) <= max_chars and not table.header_is_repeat:
        lines = _row_lines(rows) if with_lines else None
        return [Piece(table.page_idx, "table", text, table.start, table.end, table.bbox, lines, False)]
    pieces: list[Piece] = []
    for group, repeated in _row_groups(table, max_chars):
        if len(group) == 1 and len(group[0].text) > max_chars:
            pieces.extend(_long_row(table, group[0], max_chars, with_lines))
        else:
            pieces.append(_piece(table, group, repeated, with_lines))
    return pieces


def _row_groups(table: Table, max_chars: int) -> list[tuple[list[Row], int]]:
    """Groups of rows that fit in a segment, with how many leading rows are a repeated header."""
    header_length = len("\n".join(row.text for row in table.header)) if table.header else 0
    groups: list[tuple[list[Row], int]] = []
    current, repeated = list(table.header), len(table.header) if table.header_is_repeat else 0
    length = header_length
    for row in table.body:
        if current and length + 1 + len(row.text) <= max_chars:
            current.append(row)
            length += 1 + len(row.text)
            continue
        if len(current) > repeated:
            groups.append((current, repeated))
        if table.header and header_length + 1 + len(row.text) <= max_chars:
            current, repeated, length = [*table.header, row], len(table.header), header_length + 1 + len(row.text)
        else:
            current, repeated, length = [row], 0, len(row.text)
    if len(current) > repeated:
        groups.append((current, repeated))
    return groups


def _piece(table: Table, rows: list[Row], repeated: int, with_lines: bool) -> Piece:
    own = rows[repeated:]
    starts = [row.start for row in own if row.start is not None]
    ends = [row.end for row in own if row.end is not None]
    bbox = union([row.bbox for row in rows]) or table.bbox
    return Piece(
        table.page_idx,
        "table",
        "\n".join(row.text for row in rows),
        min(starts) if starts else None,
        max(ends) if ends else None,
        bbox,
        _row_lines(rows) if with_lines else None,
        False,
    )


def _long_row(table: Table, row: Row, max_chars: int, with_lines: bool) -> list[Piece]:
    bbox = row.bbox or table.bbox
    return [
        Piece(
            table.page_idx,
            "table",
            row.text[a:b],
            row.start,
            row.end,
            bbox,
            _row_line(b - a, row.bbox) if with_lines else None,
            False,
        )
        for a, b in split_spans(row.text, max_chars)
    ]


def _row_lines(rows: list[Row]) -> list[Line]:
    """Each row is one line of a table segment: its span in the text and the union of its cells' boxes."""
    lines: list[Line] = []
    offset = 0
    for row in rows:
        if row.bbox is not None:
            lines.append(Line(offset, offset + len(row.text), row.bbox))
        offset += len(row.text) + 1
    return lines


def _row_line(length: int, bbox: BBox | None) -> list[Line]:
    """The line of a piece of a row cut inside (a row longer than a segment)."""
    return [Line(0, length, bbox)] if bbox is not None else []
