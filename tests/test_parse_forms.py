"""Form fields and tables of a photo or a scan (issue 43): the local parser reads label/value pairs and table rows
from where OCR found the words, writes them as Document AI's `formFields` and `tables`, and ingest makes `field`
and `table` segments of them, with nothing of the page's text lost or repeated (design §3). A form and an invoice
the tests draw with Pillow, and real page images of the fixtures."""

from __future__ import annotations

import base64
import io
from collections import Counter
from pathlib import Path

import orjson
import pytest
from PIL import Image, ImageDraw, ImageFont
from test_ingest_real import squash, table_cells, without_fields

import parse
from ingest import build_segments

pytestmark = pytest.mark.skipif(
    not parse.tesseract_available(), reason="no tesseract on PATH (`apt-get install -y tesseract-ocr`; .ci/run does)"
)
SIZE = 34
# (left, top, text) on a 1700 x 1300 page; the table's rows are drawn in a ruled grid.
FORM = [
    (100, 80, "Harbor Supplies Ltd"),
    (100, 180, "Customer: Marlow Ferries"),
    (1000, 180, "Invoice date: 12/03/2024"),
    (100, 250, "Phone #: (555) 013-2271"),
    (1000, 250, "Due: 11/04/2024"),
]
COLUMNS = [100, 600, 900, 1250, 1600]
ROWS = [["Item", "Quantity", "Price", "Amount"], ["Rope", "12", "4.50", "54.00"], ["Anchor", "2", "310.00", "620.00"]]
TABLE_TOP, ROW_HEIGHT = 420, 70


def form_page() -> bytes:
    font = ImageFont.load_default(size=SIZE)
    picture = Image.new("RGB", (1700, 1300), "white")
    draw = ImageDraw.Draw(picture)
    for left, top, text in FORM:
        draw.text((left, top), text, font=font, fill="black")
    bottom = TABLE_TOP + ROW_HEIGHT * len(ROWS)
    for number, row in enumerate(ROWS):
        top = TABLE_TOP + number * ROW_HEIGHT
        draw.line([(COLUMNS[0], top), (COLUMNS[-1], top)], fill="black", width=3)
        for left, cell in zip(COLUMNS, row, strict=False):
            draw.text((left + 15, top + 15), cell, font=font, fill="black")
    draw.line([(COLUMNS[0], bottom), (COLUMNS[-1], bottom)], fill="black", width=3)
    for left in COLUMNS:
        draw.line([(left, TABLE_TOP), (left, bottom)], fill="black", width=3)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def form_shards() -> list[dict]:
    return list(parse.parse_local(form_page()))


def test_a_forms_labels_and_values_become_field_segments(form_shards: list[dict]) -> None:
    segments = build_segments([orjson.dumps(s) for s in form_shards], "form")
    fields = {s.text for s in segments if s.kind == "field"}
    # Two pairs on one line apart, as a form's columns: each its own field, never "Marlow Ferries Invoice date: …".
    expected = {
        "Customer: Marlow Ferries",
        "Invoice date: 12/03/2024",
        "Phone #: (555) 013-2271",
        "Due: 11/04/2024",
    }
    assert expected <= fields, fields
    due = next(s for s in segments if s.text == "Due: 11/04/2024")
    # Its lines: the label and the value, each boxed where it was drawn (the page is 1700 x 1300).
    (label, value) = due.lines
    assert (label.start, label.end, value.start, value.end) == (0, 3, 5, 15)
    assert abs(label.bbox.x0 - 1000 / 1700) < 0.01 and abs(value.bbox.y0 - 250 / 1300) < 0.02
    assert label.bbox.x1 < value.bbox.x0


def test_a_ruled_tables_rows_become_a_table_segment_with_its_header(form_shards: list[dict]) -> None:
    page = form_shards[0]["pages"][0]
    (table,) = page["tables"]
    assert len(table["headerRows"]) == 1 and len(table["bodyRows"]) == 2
    segments = build_segments([orjson.dumps(s) for s in form_shards], "form")
    (segment,) = [s for s in segments if s.kind == "table"]
    assert segment.text.splitlines() == [
        "Item | Quantity | Price | Amount",
        "Rope | 12 | 4.50 | 54.00",
        "Anchor | 2 | 310.00 | 620.00",
    ]
    # The rows' text is the table's alone: no paragraph repeats "Rope" (design §3, nothing duplicated).
    assert not any("Rope" in s.text for s in segments if s.kind not in ("table", "field"))
    rows = segment.lines
    assert len(rows) == 3 and all(
        abs(r.bbox.y0 - (TABLE_TOP + 15 + n * ROW_HEIGHT) / 1300) < 0.02 for n, r in enumerate(rows)
    )


@pytest.mark.parametrize(
    "name",
    [
        "invoice_toolbox_test0_1p.json",
        "invoice_parser_1p.json",
        "us_driver_license_parser_1p.json",
        "utility_parser_1p_4tables.json",
        "form_parser_v1_1p.json",
    ],
)
def test_real_images_nothing_lost_or_repeated(docai_real_dir: Path, name: str) -> None:
    """The page image of a real output, parsed locally: every character of its text in exactly one segment (fields
    aside; a table's cells less the header rows it repeats), at 120 characters a segment too. (Counted, not placed:
    OCR's reading order runs a paragraph through a table's rows, which test_ingest_real's check cannot follow.)"""
    document = orjson.loads((docai_real_dir / name).read_bytes())
    image = base64.b64decode(document["pages"][0]["image"]["content"])
    shards = [orjson.dumps(s) for s in parse.parse_local(image)]
    text = "".join(orjson.loads(shard)["text"] for shard in shards)
    for max_chars in (1200, 120):
        segments = without_fields(build_segments(shards, "doc", max_chars=max_chars))
        held = "".join("".join(table_cells(s, segments)) if s.kind == "table" else s.text for s in segments)
        assert Counter(squash(held)) == Counter(squash(text)), max_chars
        assert all(s.page_idx == 0 and len(s.text) <= max_chars and s.bbox is not None for s in segments)


def test_the_real_invoice_reads_as_document_ai_reads_it(docai_real_dir: Path) -> None:
    """The toolbox invoice: its table's rows and its fields, as the Form Parser's own output has them."""
    document = orjson.loads((docai_real_dir / "invoice_toolbox_test0_1p.json").read_bytes())
    image = base64.b64decode(document["pages"][0]["image"]["content"])
    segments = build_segments([orjson.dumps(s) for s in parse.parse_local(image)], "invoice")
    tables = [s.text for s in segments if s.kind == "table"]
    assert any(
        t.startswith("Item Description | Quantity | Price | Amount\nTool A | 500 | $1.00 | $500.00") for t in tables
    ), tables
    assert any("Resource C | 50 | $12.00 | $600.00" in t for t in tables)
    fields = {s.text for s in segments if s.kind == "field"}
    assert {"FROM: Company ABC", "TO: John Doe", "TERMS: 6 month contract", "DUE: 01/01/2025"} <= fields, fields
