"""What a page shows side by side: a segment's lines regrouped into the rows of its layout.

Reading order lists a form's labels, then its values ("Tax (10%):", "Shipping:", "Total:", then "$1,767.97",
"$199.99", "$19,647.68"): the offline answerer cannot pair them from the text. The boxes can: a value printed on the
label's row, right of it, is that label's. From each row this gives the pairs a reader sees:
- under a row of three words or more (column heads: "Item | Quantity | Rate | Amount"), each row of three cells or
  more that does not start with a label is the table's row, copied whole with its heads ("Laptop | 12 | $1,299.99 |
  $15,599.88"), until a shorter row ends the table;
- otherwise each label with the values right of it, up to the next label ("Bill To:" | "Date:" | "Sep 24, 2019"
  gives "Date: Sep 24, 2019").
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest import BBox, Segment

SAME_ROW = 0.5  # two lines are on one row when their heights overlap by this share of the shorter one
MAX_VALUE_CHARS = 40
TABLE_CELLS = 3


@dataclass(frozen=True)
class LayoutPair:
    text: str
    row: bool  # a table's row, copied whole and labelled by its first cell
    header: str  # its column heads


def layout_pairs(segment: Segment) -> list[LayoutPair]:
    """The label/value pairs and table rows of the segment's rows (see the module's docstring); [] for a segment
    without line boxes."""
    if not segment.lines:
        return []
    rows = _rows([(" ".join(segment.text[line.start : line.end].split()), line.bbox) for line in segment.lines])
    pairs: list[LayoutPair] = []
    header = ""
    for cells in rows:
        if len(cells) < TABLE_CELLS:
            header = ""  # a table ends where its rows do
        elif not any(map(_holds_value, cells)):
            header = " | ".join(cells)  # column heads: the rows under them are read with them
            continue
        elif header and not cells[0].endswith(":"):
            pairs.append(LayoutPair(" | ".join(cells), True, header))
            continue
        pairs.extend(LayoutPair(text, False, "") for text in _labelled_values(cells))
    return pairs


def _rows(lines: list[tuple[str, BBox]]) -> list[list[str]]:
    """The lines grouped into rows, top to bottom, each row's cells left to right; a row of one cell is left out
    (reading order already reads it)."""
    rows: list[tuple[BBox, list[tuple[str, BBox]]]] = []
    for text, box in sorted((item for item in lines if item[0]), key=lambda item: (item[1].y0 + item[1].y1) / 2):
        if rows and _same_row(rows[-1][0], box):
            rows[-1][1].append((text, box))
        else:
            rows.append((box, [(text, box)]))  # the row's first line is its band: a row does not drift down
    return [[text for text, _ in sorted(cells, key=lambda c: c[1].x0)] for _, cells in rows if len(cells) > 1]


def _same_row(band: BBox, box: BBox) -> bool:
    overlap = min(band.y1, box.y1) - max(band.y0, box.y0)
    return overlap >= SAME_ROW * min(band.y1 - band.y0, box.y1 - box.y0) > 0


def _labelled_values(cells: list[str]) -> list[str]:
    """Each label cell with the value cells right of it, up to the next label: "Tax (10%): $1,767.97"."""
    out: list[str] = []
    label, values = "", []
    for cell in [*cells, ""]:
        if cell and _holds_value(cell):
            values.append(cell)
            continue
        if label and values:
            out.append(f"{label} {' '.join(values)}" if label.endswith(":") else f"{label}: {' '.join(values)}")
        label, values = cell, []
    return out


def _holds_value(cell: str) -> bool:
    """A short cell holding a digit and no label of its own: "$1,767.97", "Sep 24, 2019", "12"."""
    return len(cell) <= MAX_VALUE_CHARS and any(c.isdigit() for c in cell) and not cell.endswith(":")
