"""Questions from table segments (rows rendered `cell | cell`): `What is the <column header> for <row header> in
<document>?`, the cell its answer. A header must be one cell: a column holding several values in a cell (columns
merged), a header cell of many words (a run-on of several headers, or a row read across lines) or one holding a
web address beside words yields no question (the SCE&G bill's `PREVIOUS CONSTANT KWH` over `0.91 7.09`). Pure."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence

from evaluation.generation.wording import label_ok
from evaluation.normalize import plain
from evaluation.questions import Question, SegmentRef, Source
from ingest.tables import EMPTY_CELL  # a table's empty cell, as table segments write it

MAX_COLUMN_HEADER_WORDS = 4
MAX_ROW_HEADER_WORDS = 6
_ADDRESS = re.compile(r"www\.|https?:|@\w")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split(" | ")]


def several_values(cell: str) -> bool:
    """The cell holds more than one value: two words with digits (`0.91 7.09`, `17798 X 1 966`), not an amount with
    its sign apart (`$ 148.89`) or a date (`Apr 17`)."""
    return sum(any(c.isdigit() for c in word) for word in cell.split()) >= 2


def one_cell(header: str, max_words: int) -> bool:
    """A header that reads as one cell: a few words, no web address run into it."""
    words = header.split()
    return 0 < len(words) <= max_words and not (_ADDRESS.search(header) and len(words) > 1) and label_ok(header)


def table_questions(segments: Sequence[SegmentRef]) -> Iterator[Question]:
    """A question per cell of each table segment whose row and column headers are each one cell: its first row
    as the column headers, a row's first filled cell as its header; rows whose header repeats in the table,
    cells that are empty or repeat a header, and columns merged with another are left out."""
    for s in segments:
        if s.kind != "table":
            continue
        lines = [_cells(line) for line in s.text.split("\n") if line.strip()]
        if len(lines) < 2:
            continue
        header, body = lines[0], lines[1:]
        merged = {n for row in body for n, cell in enumerate(row) if several_values(cell)}
        row_heads = [next(((i, c) for i, c in enumerate(row) if c and c != EMPTY_CELL), None) for row in body]
        counts: dict[str, int] = defaultdict(int)
        for head in row_heads:
            if head:
                counts[plain(head[1])] += 1
        for number, (row, head) in enumerate(zip(body, row_heads, strict=True)):
            if head is None or len(row) != len(header) or counts[plain(head[1])] > 1 or head[0] in merged:
                continue
            first, row_header = head
            if not one_cell(row_header, MAX_ROW_HEADER_WORDS):
                continue
            for column in range(first + 1, len(row)):
                cell, column_header = row[column], header[column]
                if column in merged or cell in ("", EMPTY_CELL) or not one_cell(column_header, MAX_COLUMN_HEADER_WORDS):
                    continue
                if plain(cell) in (plain(row_header), plain(column_header)):
                    continue
                text = f"What is the {column_header} for {row_header} in {s.document}?"
                origin = {
                    "from": "table",
                    "segment_id": s.segment_id,
                    "document": s.document,
                    "page": s.page_idx + 1,
                    "subject": f"{row_header} {column_header}",
                    "row": row_header,
                    "column": column_header,
                }
                question_id = f"table:{s.segment_id}:{number + 1}:{column}"
                sources = (Source(s.document, frozenset({s.page_idx})),)
                yield Question(question_id, text, "table", ((cell,),), sources, origin)
