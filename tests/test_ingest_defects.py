"""Issue 13's defects, each on a small document built for it (design §3)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from docai_synth import LayoutPageSpec, PageSpec, build_document, build_layout_document, page_anchors_only

from ingest import InvalidDocument, build_segments


def anchor(start: int, end: int) -> dict[str, Any]:
    return {"textAnchor": {"textSegments": [{"startIndex": str(start), "endIndex": str(end)}]}}


def layout(start: int, end: int, box: tuple[float, float, float, float]) -> dict[str, Any]:
    x0, y0, x1, y1 = box
    corners = [{"x": x0, "y": y0}, {"x": x1, "y": y0}, {"x": x1, "y": y1}, {"x": x0, "y": y1}]
    return {**anchor(start, end), "boundingPoly": {"normalizedVertices": corners}}


def spans_of(text: str, *parts: str) -> list[tuple[int, int]]:
    return [(text.index(p), text.index(p) + len(p)) for p in parts]


# 1. A paragraph that partly overlaps a table keeps exactly its characters outside the table's cells.


def utility_bill() -> tuple[str, dict[str, Any]]:
    """Like the real utility bill: one paragraph holds a heading and the first cells of a table."""
    text = "SUMMARY OF CURRENT CHARGES\nElectric Charges\n$148.89\nMeter read on 04/24/18\n"
    heading, label, amount, meter = spans_of(
        text, "SUMMARY OF CURRENT CHARGES\n", "Electric Charges\n", "$148.89\n", "Meter read on 04/24/18\n"
    )
    page = {
        "pageNumber": 1,
        "paragraphs": [
            {"layout": layout(heading[0], label[1], (0.1, 0.1, 0.5, 0.2))},  # heading + first cell
            {"layout": layout(amount[0], meter[1], (0.1, 0.2, 0.9, 0.3))},  # second cell + meter line
        ],
        "tables": [
            {
                "layout": layout(label[0], amount[1], (0.1, 0.15, 0.9, 0.25)),
                "bodyRows": [
                    {
                        "cells": [
                            {"layout": layout(*label, (0.1, 0.15, 0.5, 0.2))},
                            {"layout": layout(*amount, (0.6, 0.15, 0.9, 0.2))},
                        ]
                    }
                ],
            }
        ],
    }
    return text, {"text": text, "pages": [page]}


def test_paragraph_partly_over_a_table_keeps_its_own_characters() -> None:
    text, document = utility_bill()
    segments = build_segments(document, "bill")
    assert [(s.kind, s.text, s.char_start, s.char_end) for s in segments] == [
        ("paragraph", "SUMMARY OF CURRENT CHARGES", 0, 26),
        ("table", "Electric Charges | $148.89", 27, 52),
        ("paragraph", "Meter read on 04/24/18", 52, 74),
    ]
    assert text[52:74] == "Meter read on 04/24/18"


# 2. A split at a sentence end keeps the closing quotes and brackets with their sentence.


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            'He said "the hive is full of bees." Then the keeper closed the lid slowly.',
            'He said "the hive is full of bees."',
        ),
        (
            "The figures are in the table. (See above.) The rest follows on the next page here.",
            "The figures are in the table. (See above.)",
        ),
        ("«Bonjour, dit-il.» Elle partit vers la gare sans attendre personne du tout ici.", "«Bonjour, dit-il.»"),
    ],
)
def test_split_keeps_closing_quotes_and_brackets(text: str, first: str) -> None:
    document = {"text": text, "pages": [{"pageNumber": 1, "paragraphs": [{"layout": anchor(0, len(text))}]}]}
    segments = build_segments(document, "d", max_chars=len(first) + 5)
    assert segments[0].text == first
    assert "".join(s.text for s in segments).replace(" ", "") == text.replace(" ", "")


# 3. A document whose `text` is not empty is never refused for lack of layout.


def test_text_with_pages_but_no_layout_is_split_by_size_on_page_zero() -> None:
    text = "Claim 1. A method of sorting letters.\nClaim 2. The method of claim 1, by hand.\n" * 3
    segments = build_segments({"text": text, "pages": [{"pageNumber": 1}]}, "c", max_chars=90)
    assert [(s.page_idx, s.kind) for s in segments] == [(0, "text")] * len(segments)
    assert [s.text for s in segments] == [
        "Claim 1. A method of sorting letters.\nClaim 2. The method of claim 1, by hand.",
    ] * 3
    assert [(s.char_start, s.char_end) for s in segments] == [(0, 78), (79, 157), (158, 236)]


def test_pages_without_elements_read_their_page_anchor() -> None:
    document, _ = build_document([PageSpec(["First page text."]), PageSpec(["Second page text."])])
    segments = build_segments(orjson.dumps(page_anchors_only(document)), "p")
    assert [(s.page_idx, s.kind, s.text) for s in segments] == [
        (0, "text", "First page text."),
        (1, "text", "Second page text."),
    ]


# 4. Every anchor used is checked: a truncated `text` is refused as such, even when elements are `{}`.


def test_truncated_text_with_empty_elements_names_the_anchor() -> None:
    document = {
        "text": "Only the first two hundred characters survived.",
        "pages": [{"pageNumber": 1, "paragraphs": [{}], "blocks": [{}], "lines": [{}], "layout": anchor(0, 1236)}],
    }
    with pytest.raises(InvalidDocument, match=r"page 1: a text anchor \[0, 1236\) lies outside the document text"):
        build_segments(document, "t")


# 5. Layout Parser: blocks merge like paragraphs, headers and footers get their kinds, split tables repeat
#    their header row (both input families).


def test_layout_parser_blocks_merge_and_furniture_has_its_kinds() -> None:
    spec = LayoutPageSpec(
        header="ANNUAL REPORT 2025",
        blocks=[
            ("heading-1", "Operations"),
            ("paragraph", "The farm ran all year."),
            ("paragraph", "Output rose."),
            ("heading-2", "Outlook"),
            ("paragraph", "A battery comes next year."),
        ],
        footer="Page 1 of 1",
    )
    segments = build_segments(orjson.dumps(build_layout_document([spec])), "lp")
    assert [(s.kind, s.text) for s in segments] == [
        ("header", "ANNUAL REPORT 2025"),
        ("paragraph", "Operations\nThe farm ran all year.\nOutput rose."),
        ("paragraph", "Outlook\nA battery comes next year."),
        ("footer", "Page 1 of 1"),
    ]


def test_layout_parser_table_split_repeats_its_header() -> None:
    table = [["Quarter", "Output"], ["Q1", "9.8"], ["Q2", "19.6"], ["Q3", "21.1"], ["Q4", "10.9"]]
    document = build_layout_document([LayoutPageSpec("H", [], table)])
    segments = [s for s in build_segments(orjson.dumps(document), "lp", max_chars=40) if s.kind == "table"]
    assert [s.text for s in segments] == [
        "Quarter | Output\nQ1 | 9.8\nQ2 | 19.6",
        "Quarter | Output\nQ3 | 21.1\nQ4 | 10.9",
    ]


def test_document_ai_table_split_at_rows_repeats_its_header() -> None:
    table = [["Quarter", "Output"], ["Q1", "9.8"], ["Q2", "19.6"], ["Q3", "21.1"], ["Q4", "10.9"]]
    document, truth = build_document([PageSpec([], table)])
    segments = build_segments(orjson.dumps(document), "t", max_chars=40)
    assert [s.text for s in segments] == [
        "Quarter | Output\nQ1 | 9.8\nQ2 | 19.6",
        "Quarter | Output\nQ3 | 21.1\nQ4 | 10.9",
    ]
    second = segments[1]  # offsets point at its own rows, not at the repeated header
    assert truth.text[second.char_start : second.char_end].split() == ["Q3", "21.1", "Q4", "10.9"]
    assert [second.text[line.start : line.end] for line in second.lines] == second.text.splitlines()


# 6. Empty cells keep their column; a documentai.Document gives the same boxes as its JSON.


def test_empty_first_cell_keeps_its_column() -> None:
    document, _ = build_document([PageSpec([], [["", "Apr 17", "Apr 18"], ["kWh used", "909", "966"]])])
    [table] = build_segments(orjson.dumps(document), "t")
    assert table.text == "— | Apr 17 | Apr 18\nkWh used | 909 | 966"


def test_document_object_gives_the_same_boxes_as_its_json() -> None:
    from google.cloud import documentai

    text = "Total due 148.89\n"
    # 0.123456501 is not a float32: the proto keeps the nearest float32, printed 0.1234565, which rounds to
    # 0.123456 where 0.123456501 rounds to 0.123457. Read as float32 both give 0.123457.
    box = (0.123456501, 0.25, 0.87654349, 0.3)
    document = {"text": text, "pages": [{"pageNumber": 1, "paragraphs": [{"layout": layout(0, len(text), box)}]}]}
    proto = documentai.Document.from_json(orjson.dumps(document))
    from_json = build_segments(document, "d")
    from_proto = build_segments(proto, "d")
    assert from_json[0].bbox == from_proto[0].bbox
    assert from_json[0].bbox.x0 == 0.123457


# 8. Messages name the user's file (never an internal path) and never contradict themselves.


def test_messages_name_the_file() -> None:
    with pytest.raises(InvalidDocument) as info:
        build_segments(
            [b'{"text": "a", "shardInfo": {"shardCount": 2}}', b""], "d", names=["part-1.json", "report.json"]
        )
    assert str(info.value) == "report.json: the file is empty; expected Document AI JSON"


def test_messages_without_names_give_a_position() -> None:
    with pytest.raises(InvalidDocument) as info:
        build_segments([b'{"text": "a", "shardInfo": {"shardCount": 2}}', b"  "], "d")
    assert str(info.value) == "file 2 of 2: the file is empty; expected Document AI JSON"


def test_anchor_message_names_the_file_and_page() -> None:
    document = {"text": "abc", "pages": [{"pageNumber": 3, "paragraphs": [{"layout": anchor(0, 99)}]}]}
    with pytest.raises(InvalidDocument) as info:
        build_segments(orjson.dumps(document), "d", names=["scan.json"])
    assert str(info.value).startswith("scan.json: page 3: a text anchor [0, 99) lies outside the document text")


def test_duplicate_shards_name_both_files() -> None:
    shard = b'{"text": "a", "shardInfo": {"shardCount": 2, "shardIndex": 1}}'
    with pytest.raises(InvalidDocument) as info:
        build_segments([shard, shard], "d", names=["a.json", "b.json"])
    assert str(info.value) == "a.json and b.json: shard 1 appears twice; pass each shard once"


def test_empty_document_does_not_claim_its_keys_are_missing() -> None:
    with pytest.raises(InvalidDocument) as info:
        build_segments(b'{"text": "", "pages": []}', "d", names=["blank.json"])
    assert str(info.value) == "blank.json: the document holds no text: its `text` and `pages` are empty"


def test_names_must_match_the_inputs() -> None:
    with pytest.raises(ValueError, match="2 names for 1 inputs"):
        build_segments(b"{}", "d", names=["a.json", "b.json"])
