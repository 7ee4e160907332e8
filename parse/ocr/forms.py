"""Form fields and tables read from where OCR found the words of a page (issue 43): what Document AI's Form Parser
gives as `pages[].formFields` and `pages[].tables`, for ingest to make `field` and `table` segments of.

The page's words are put in visual rows (OCR's own lines break where a table's columns fall into separate blocks),
and each row is cut into chunks where words stand further apart than a word's height (a form's columns, a table's
cells). Then:
- a field is a label ending in a colon and the words after it, up to the next label or the chunk's end; a label
  alone at the end of a chunk takes the next chunk for its value ("Balance Due:" | "$4,647.68");
- a table is three rows or more (or a header and a row), one under another, of two chunks or more and no label,
  whose chunks fall into the same columns and fill most of its cells; its first row is its header when it holds no
  digit and the rows under it do ("Item Description | Quantity | Price").
A value beside a label without a colon ("BALANCE DUE   $2140.00") is left to the answerer, which pairs them by their
boxes (query.layout) where it is asked for one: guessed here, across a page's columns, it paired "ACCOUNT NUMBER" with
"Page 1 of 2".
Pure: words and boxes in, words out; `parse.docai` writes them with their anchors.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass

from parse.layout import Box, PageLayout, Word

CHUNK_GAP = 1.2  # words further apart than this many times the row's height are in different chunks
ROW_GAP = 2.0  # a table's next row starts within this many row heights under the last
MIN_TABLE_ROWS = 3  # or a header row and one row under it ("Part Number | Description" over one part)
MAX_LABEL_WORDS = 4
MAX_VALUE_CHARS = 120  # ingest.fields leaves longer values out: a passage, not a value
MIN_FILLED = 0.75  # share of a table's cells that hold words: less is columns of a page's layout, not a grid


@dataclass(frozen=True)
class Part:
    """A word, or the part of it before or after its colon ("CLASS:D"): characters [start, end) of its text."""

    word: Word
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.word.text[self.start : self.end]

    @property
    def box(self) -> Box:
        x0, y0, x1, y1 = self.word.box
        size = max(1, len(self.word.text))
        return (x0 + (x1 - x0) * self.start / size, y0, x0 + (x1 - x0) * self.end / size, y1)


@dataclass(frozen=True)
class Field:
    name: list[Part]
    value: list[Part]


@dataclass(frozen=True)
class Table:
    rows: list[list[list[Word]]]  # each row's cells, a cell's words (none: an empty cell)
    header_rows: int


@dataclass(frozen=True)
class _Row:
    chunks: list[list[Word]]
    top: float  # pixels
    bottom: float
    height: float  # the median height of its words


def page_forms(layout: PageLayout, width: int, height: int) -> tuple[list[Field], list[Table]]:
    """The page's fields and tables; `width` and `height` are its picture's, in pixels (boxes are normalized)."""
    words = [w for w in layout.words if ":" in w.text or any(c.isalnum() for c in w.text)]  # not "—", "|", "_"
    rows = _rows(words, width, height)
    fields = [f for row in rows for f in _row_fields(row.chunks)]
    return fields, _tables(rows)


def _rows(words: list[Word], width: int, height: int) -> list[_Row]:
    """Words in visual rows, top to bottom, each cut into chunks left to right."""
    bands: list[tuple[float, float, list[Word]]] = []  # a row's first word's top and bottom, and its words
    for word in sorted(words, key=lambda w: w.box[1] + w.box[3]):
        top, bottom = word.box[1] * height, word.box[3] * height
        center = (top + bottom) / 2
        for band_top, band_bottom, members in reversed(bands[-3:]):
            if band_top <= center <= band_bottom and top <= (band_top + band_bottom) / 2 <= bottom:
                members.append(word)
                break
        else:
            bands.append((top, bottom, [word]))
    rows = []
    for top, bottom, members in bands:
        members.sort(key=lambda w: w.box[0])
        row_height = statistics.median((w.box[3] - w.box[1]) * height for w in members)
        chunks: list[list[Word]] = [[members[0]]]
        for before, word in itertools.pairwise(members):
            if (word.box[0] - before.box[2]) * width > CHUNK_GAP * row_height:
                chunks.append([])
            chunks[-1].append(word)
        rows.append(_Row(chunks, top, bottom, row_height))
    return rows


def _colon(word: Word) -> int:
    """Where the word's label ends (its colon's index), or -1: "Total:", "CLASS:D", "#:" (not "10:30", "http:")."""
    at = word.text.find(":")
    if at < 0 or (at > 0 and word.text[at - 1].isdigit() and word.text[at + 1 : at + 2].isdigit()):
        return -1
    return -1 if word.text[at + 1 : at + 3] == "//" else at


def _row_fields(chunks: list[list[Word]]) -> list[Field]:
    fields: list[Field] = []
    index = 0
    while index < len(chunks):
        found = _labelled(chunks[index])
        if found and not found[-1].value and index + 1 < len(chunks) and not _labelled(chunks[index + 1]):
            index += 1  # a label alone at the chunk's end: the next chunk is its value
            found[-1] = Field(found[-1].name, _whole(chunks[index]))
        fields.extend(f for f in found if _is_field(f))
        index += 1
    return fields


def _labelled(chunk: list[Word]) -> list[Field]:
    """The `label: value` pairs of a chunk. A label is the words before a colon: the chunk's first label from the
    chunk's start; a later one from the widest gap between the colon before and its own, where a value written on a
    form's line ends and the next printed label starts ("Address: 24 Barney Lane   City: Towaco"), at most
    MAX_LABEL_WORDS words, and the value before it keeps a word."""
    colons = [(i, at) for i, word in enumerate(chunk) if (at := _colon(word)) >= 0]
    fields: list[Field] = []
    for n, (i, at) in enumerate(colons):
        word = chunk[i]
        first = 0
        if n:
            after = colons[n - 1][0] + 1  # the previous label's value starts here, and keeps a word at least
            starts = range(max(after + 1, i - MAX_LABEL_WORDS + 1), i + 1)
            first = max(starts, key=lambda k: chunk[k].box[0] - chunk[k - 1].box[2], default=i)
            fields[-1] = Field(fields[-1].name, fields[-1].value[: len(fields[-1].value) - (i - first)])
        name = _whole(chunk[first:i]) + ([Part(word, 0, at)] if at else [])
        value = [Part(word, at + 1, len(word.text))] if at + 1 < len(word.text) else []
        end = colons[n + 1][0] if n + 1 < len(colons) else len(chunk)
        fields.append(Field(name, value + _whole(chunk[i + 1 : end])))
    return fields


def _is_field(field: Field) -> bool:
    name = " ".join(p.text for p in field.name)
    value = " ".join(p.text for p in field.value)
    return (
        any(c.isalpha() for c in name)
        and len(field.name) <= MAX_LABEL_WORDS + 1
        and any(c.isalnum() for c in value)
        and len(value) <= MAX_VALUE_CHARS
    )


def _whole(words: list[Word]) -> list[Part]:
    return [Part(w, 0, len(w.text)) for w in words]


def _tables(rows: list[_Row]) -> list[Table]:
    """Runs of grid rows (two chunks or more, no label), one close under the other, that make a table."""
    runs: list[list[_Row]] = [[]]
    for row in rows:
        if len(row.chunks) < 2 or any(_labelled(chunk) for chunk in row.chunks):
            runs.append([])
            continue
        last = runs[-1][-1] if runs[-1] else None
        if last is not None and row.top - last.bottom >= ROW_GAP * max(row.height, last.height):
            runs.append([])
        runs[-1].append(row)
    return [table for run in runs if (table := _table(run)) is not None]


def _table(run: list[_Row]) -> Table | None:
    """The rows as a table when their chunks fall into the same columns (each row one chunk a column at most)."""
    if len(run) < 2:
        return None
    spans = sorted((chunk[0].box[0], max(w.box[2] for w in chunk)) for row in run for chunk in row.chunks)
    columns: list[list[float]] = []
    for left, right in spans:
        if columns and left < columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], right)
        else:
            columns.append([left, right])
    if len(columns) < 2:
        return None
    cells: list[list[list[Word]]] = []
    for row in run:
        row_cells: list[list[Word]] = [[] for _ in columns]
        for chunk in row.chunks:
            column = max(n for n, (left, _) in enumerate(columns) if left <= chunk[0].box[0])
            if row_cells[column]:
                return None  # two chunks of a row in one column: not a grid
            row_cells[column] = chunk
        cells.append(row_cells)
    if sum(bool(cell) for row in cells for cell in row) < MIN_FILLED * len(cells) * len(columns):
        return None
    first = [w.text for cell in cells[0] for w in cell]
    header = not any(c.isdigit() for text in first for c in text) and any(
        c.isdigit() for row in cells[1:] for cell in row for w in cell for c in w.text
    )
    return Table(cells, int(header)) if header or len(run) >= MIN_TABLE_ROWS else None
