"""Issue 31: a value printed right of its label, which reading order put far from it, is read with its label
(language.layout), from the boxes of the segment's lines: on plain segments, and on the Google invoice's real Document
AI output, where the Invoice parser's text lists "Tax (10%):", "Shipping:", "Total:" after their values."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ingest import BBox, Line, Segment, build_segments
from query import build_answer
from query.language.layout import LayoutPair, layout_pairs
from query.reader.extractive import extractive_answer


def laid_out(cells: list[tuple[str, float, float, float]]) -> Segment:
    """A segment of lines in the given (reading) order, each `(text, x0, y0, x1)`, one line high."""
    text, lines, at = "", [], 0
    for cell, x0, y0, x1 in cells:
        lines.append(Line(at, at + len(cell), BBox(x0, y0, x1, y0 + 0.015)))
        text += cell + "\n"
        at += len(cell) + 1
    return Segment("doc", 0, 0, "paragraph", text.rstrip("\n"), None, None, BBox(0, 0, 1, 1), lines)


def test_a_value_right_of_its_label_is_paired_with_it_whatever_the_reading_order() -> None:
    segment = laid_out(
        [
            ("$1,767.97", 0.85, 0.555, 0.93),
            ("$199.99", 0.86, 0.584, 0.92),
            ("Tax (10%):", 0.67, 0.553, 0.75),
            ("Shipping:", 0.68, 0.582, 0.75),
        ]
    )
    assert layout_pairs(segment) == [
        LayoutPair("Tax (10%): $1,767.97", False, ""),
        LayoutPair("Shipping: $199.99", False, ""),
    ]


def test_a_label_of_another_column_is_not_given_the_next_label_s_value() -> None:
    """ "Bill To:" (left column) and "Date:" (right column) share a row: the date is Date's."""
    segment = laid_out(
        [("Date:", 0.71, 0.138, 0.75), ("Sep 24, 2019", 0.83, 0.138, 0.92), ("Bill To:", 0.08, 0.142, 0.13)]
    )
    assert layout_pairs(segment) == [LayoutPair("Date: Sep 24, 2019", False, "")]


def test_rows_under_column_heads_are_a_table_until_a_shorter_row_ends_it() -> None:
    segment = laid_out(
        [
            ("Item", 0.07, 0.27, 0.1),
            ("Quantity", 0.6, 0.27, 0.66),
            ("Amount", 0.87, 0.27, 0.93),
            ("Laptop", 0.07, 0.39, 0.13),
            ("12", 0.6, 0.39, 0.62),
            ("$15,599.88", 0.85, 0.39, 0.93),
            ("Subtotal:", 0.69, 0.5, 0.75),
            ("$22,379.39", 0.85, 0.5, 0.93),
            ("Docking station", 0.07, 0.6, 0.13),  # no heads above it any more: not a table's row
            ("12", 0.6, 0.6, 0.62),
            ("$1.00", 0.85, 0.6, 0.93),
        ]
    )
    assert layout_pairs(segment) == [
        LayoutPair("Laptop | 12 | $15,599.88", True, "Item | Quantity | Amount"),
        LayoutPair("Subtotal: $22,379.39", False, ""),
        LayoutPair("Docking station: 12 $1.00", False, ""),
    ]


def test_a_segment_without_line_boxes_has_no_layout() -> None:
    assert layout_pairs(Segment("doc", 0, 0, "text", "Tax (10%):\n$1,767.97", None, None, None)) == []


# --- the real Google invoice: its text, without the Invoice parser's fields ---------------------------------------


@pytest.fixture(scope="module")
def google_text(docai_real_dir: Path) -> list[dict]:
    """The invoice's segments but its fields: what the layout alone can tell."""
    segments = build_segments((docai_real_dir / "invoice_parser_1p.json").read_bytes(), "google")
    return [s.to_dict() for s in segments if s.kind != "field"]


@pytest.mark.parametrize(
    ("question", "answer", "value_box"),
    [
        ("How much tax is on the Google invoice?", "Tax (10%): $1,767.97", (0.856, 0.555)),
        ("How much is the shipping on the Google invoice?", "Shipping: $199.99", (0.868, 0.584)),
        ("What is the total on John Smith's invoice?", "Total: $19,647.68", (0.846, 0.611)),
    ],
)
def test_the_google_invoice_s_amounts_are_read_with_their_labels(google_text, question, answer, value_box) -> None:
    payload = build_answer(extractive_answer(question, google_text), context=google_text, question=question)
    assert payload["content"] == f"{answer} [1]"
    assert payload["metadata"]["answer_status"] == "answered"
    (citation,) = payload["metadata"]["citations"]
    assert citation["page_idx"] == 0 and citation["segment_id"] == "google:0"
    value = answer.rsplit(" ", 1)[1]
    assert citation["quote"]["text"] == value  # the value is quoted (first), not only its label
    assert value_box in {(round(b["x0"], 3), round(b["y0"], 3)) for b in citation["boxes"]}


def test_an_item_of_the_google_invoice_is_its_row(google_text) -> None:
    """Its values are quoted where they are; its "12", which every row says, is not looked for."""
    question = "How much does one laptop cost on the Google invoice?"
    answer = extractive_answer(question, google_text)
    assert orjson.loads(answer)["sections"] == [
        {"text": "Laptop | 12 | $1,299.99 | $15,599.88", "source_ids": ["google:0"]}
    ]
    (citation,) = build_answer(answer, context=google_text, question=question)["metadata"]["citations"]
    assert [q["text"] for q in citation["quotes"]] == ["$1,299.99", "$15,599.88"]
    assert {(round(b["x0"], 3), round(b["y0"], 3)) for b in citation["boxes"]} == {(0.73, 0.395), (0.846, 0.393)}
