"""Segments of the real Document AI outputs in ../shared/fixtures/docai (see its README)."""

from __future__ import annotations

import itertools
from pathlib import Path

import orjson
import pytest
from docai_synth import to_camel_case

from ingest import Segment, build_segments


def read(docai_dir: Path, name: str) -> bytes:
    return (docai_dir / name).read_bytes()


def shard_files(docai_dir: Path) -> list[bytes]:
    return [p.read_bytes() for p in sorted((docai_dir / "invoice_sharded_48p_noimages").glob("*.json"))]


def text_segments(segments: list[Segment]) -> list[Segment]:
    """The segments that share out the document's text: the fields after them repeat it (design §3)."""
    return [s for s in segments if s.kind != "field"]


def assert_well_formed(segments: list[Segment], max_chars: int = 1200) -> None:
    assert [s.segment_index for s in segments] == list(range(len(segments)))
    assert [s.page_idx for s in segments] == sorted(s.page_idx for s in segments)
    for s in segments:
        assert s.text and s.text == s.text.strip()
        assert len(s.text) <= max_chars
        if s.bbox:
            assert 0 <= s.bbox.x0 <= s.bbox.x1 <= 1 and 0 <= s.bbox.y0 <= s.bbox.y1 <= 1


def test_form_parser_table_rows_and_no_repeated_cells(docai_dir: Path) -> None:
    segments = text_segments(build_segments(read(docai_dir, "form_parser_table_formfields_1p.json"), "form"))
    assert_well_formed(segments)
    assert [s.kind for s in segments] == ["paragraph", "table"]
    table = segments[1]
    assert table.text.splitlines() == [
        "Item | Description",
        "Item 1 | Description 1",
        "Item 2 | Description 2",
        "Item 3 | Description 3",
    ]
    assert (table.char_start, table.char_end) == (93, 173)
    assert table.segment_id == "form:1" and table.page_idx == 0
    paragraph = segments[0]
    assert "Item 1" not in paragraph.text  # table text is not emitted twice
    assert paragraph.text.splitlines()[0] == "Form Title"
    assert "123 Fake St" in paragraph.text
    assert (paragraph.char_start, paragraph.char_end) == (0, 92)
    assert paragraph.bbox is not None and paragraph.bbox.y1 < table.bbox.y1


@pytest.mark.parametrize("order", [(0, 1, 2, 3, 4), (4, 3, 2, 1, 0), (2, 0, 4, 1, 3)])
def test_sharded_invoice_pages_in_order_whatever_the_file_order(docai_dir: Path, order) -> None:
    files = shard_files(docai_dir)
    everything = build_segments([files[i] for i in order], "inv")
    segments = text_segments(everything)
    assert_well_formed(segments)
    assert len(segments) == 48 * 3
    assert [s.page_idx for s in segments] == [p for p in range(48) for _ in range(3)]
    # Every page has the same invoice: the same three segments at offsets 435 characters apart.
    texts = [s.text for s in segments]
    assert texts[0:3] == texts[45:48] == texts[141:144]
    assert [s.kind for s in segments[:3]] == ["paragraph", "table", "paragraph"]
    assert segments[1].text.splitlines()[1] == "Tool A | 500 | $1.00 | $500.00"
    assert [s.char_start for s in segments[0:144:3]] == [435 * p for p in range(48)]
    reference = build_segments(files, "inv")
    assert [s.to_dict() for s in everything] == [s.to_dict() for s in reference]


def test_sharded_invoice_offsets_point_into_the_merged_text(docai_dir: Path) -> None:
    files = shard_files(docai_dir)
    text = "".join(orjson.loads(f)["text"] for f in files)
    for segment in build_segments(files, "inv"):
        if segment.kind == "paragraph":
            assert text[segment.char_start : segment.char_end].split() == segment.text.split()


def test_snake_case_french_invoice_keeps_accents_and_equals_camel_case(docai_dir: Path) -> None:
    raw = read(docai_dir, "invoice_parser_edf_2p_snake_case.json")
    everything = build_segments(raw, "edf")
    segments = text_segments(everything)
    assert_well_formed(segments)
    assert {s.page_idx for s in segments} == {0, 1}
    joined = "\n".join(s.text for s in segments)
    assert "Document à conserver 5 ans" in joined
    assert "€" in joined and "électricité" in joined
    text = orjson.loads(raw)["text"]
    for s in segments:
        assert text[s.char_start : s.char_end].split() == s.text.split()  # code-point offsets
    camel = orjson.dumps(to_camel_case(orjson.loads(raw)))
    assert [s.to_dict() for s in build_segments(camel, "edf")] == [s.to_dict() for s in everything]


def test_to_json_style_with_integer_enums(docai_dir: Path) -> None:
    segments = build_segments(read(docai_dir, "invoice_to_json_default_style_symbols_1p.json"), "tj")
    assert_well_formed(segments)
    assert len(segments) == 1
    assert segments[0].text.startswith("Invoice\nDATE: 01/01/1970")
    assert (segments[0].char_start, segments[0].page_idx) == (0, 0)


def test_ocr_math_minimal(docai_dir: Path) -> None:
    segments = build_segments(read(docai_dir, "ocr_v2_math_1p_minimal.json"), "m")
    assert [(s.text, s.char_start, s.char_end) for s in segments] == [
        ("\\int_{-\\infty}^{\\infty}e^{-x^{2}}dx=\\sqrt{x}.", 0, 45)
    ]


def test_layout_parser_blocks_pages_tables_and_lists(docai_dir: Path) -> None:
    segments = build_segments(read(docai_dir, "SYNTHETIC_layout_parser_table_list.json"), "lp")
    assert [(s.kind, s.page_idx, s.text) for s in segments] == [
        ("paragraph", 0, "Annual Report\nIntro paragraph on page one."),  # a heading opens its paragraphs' segment
        ("table", 0, "Item | Amount\nWidgets | 125.31"),
        ("list", 1, "First point\nSecond point"),
        ("footer", 1, "Page 2 of 2"),  # page furniture: stored, never sent to the RAG store
    ]
    assert all(s.char_start is None and s.char_end is None and s.bbox is None and s.lines is None for s in segments)


def test_same_input_same_bytes(docai_dir: Path) -> None:
    for name in ("form_parser_table_formfields_1p.json", "invoice_parser_edf_2p_snake_case.json"):
        runs = [orjson.dumps([s.to_dict() for s in build_segments(read(docai_dir, name), "d")]) for _ in range(2)]
        assert runs[0] == runs[1]


# google-cloud-documentai as the schema oracle ----------------------------------------------------------


def oracle_paragraph_texts(document) -> list[str]:
    """Paragraph texts read through the official client, minus those inside a table."""
    text = document.text
    out: list[str] = []
    for page in document.pages:
        tables = [
            (
                min(s.start_index for s in t.layout.text_anchor.text_segments),
                max(s.end_index for s in t.layout.text_anchor.text_segments),
            )
            for t in page.tables
        ]
        for paragraph in page.paragraphs:
            segs = paragraph.layout.text_anchor.text_segments
            start, end = segs[0].start_index, segs[-1].end_index
            if any(ts <= (start + end) / 2 < te for ts, te in tables):
                continue
            piece = "".join(text[s.start_index : s.end_index] for s in segs).strip()
            if piece:
                out.append(piece)
    return out


@pytest.mark.parametrize(
    "name",
    [
        "form_parser_table_formfields_1p.json",
        "invoice_to_json_default_style_symbols_1p.json",
        "ocr_v2_math_1p_minimal.json",
    ],
)
def test_paragraph_texts_equal_the_official_clients(docai_dir: Path, name: str) -> None:
    from google.cloud import documentai

    raw = read(docai_dir, name)
    document = documentai.Document.from_json(raw, ignore_unknown_fields=True)
    expected = oracle_paragraph_texts(document)
    ours = [s.text for s in build_segments(raw, "o") if s.kind == "paragraph"]
    assert "\n".join(ours) == "\n".join(expected)
    # And a Document object is accepted as input, with the same result.
    assert [s.text for s in build_segments(document, "o") if s.kind == "paragraph"] == ours


def test_snake_case_file_agrees_with_official_client(docai_dir: Path) -> None:
    from google.cloud import documentai

    raw = read(docai_dir, "invoice_parser_edf_2p_snake_case.json")
    camel = orjson.dumps(to_camel_case(orjson.loads(raw)))
    document = documentai.Document.from_json(camel, ignore_unknown_fields=True)
    ours = [s.text for s in build_segments(raw, "o") if s.kind == "paragraph"]
    assert "\n".join(ours) == "\n".join(oracle_paragraph_texts(document))


def test_all_fixture_files_are_covered(docai_dir: Path) -> None:
    covered = {
        "form_parser_table_formfields_1p.json",
        "invoice_parser_edf_2p_snake_case.json",
        "invoice_to_json_default_style_symbols_1p.json",
        "ocr_v2_math_1p_minimal.json",
        "SYNTHETIC_layout_parser_table_list.json",
    }
    present = {p.name for p in docai_dir.glob("*.json")}
    assert present == covered, f"new fixture without a test: {present - covered}"
    assert len(list(itertools.chain((docai_dir / "invoice_sharded_48p_noimages").glob("*.json")))) == 5
