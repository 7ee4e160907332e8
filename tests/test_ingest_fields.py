"""Fields (design §3 "Fields", issue 25 point 1): Document AI's own label -> value pairs as segments of kind
`field`, after the document's other segments, with the page, box and lines of both parts."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ingest import Segment, build_segments
from worker.rag import retrieved_segments


def fields_of(segments: list[Segment]) -> list[Segment]:
    return [s for s in segments if s.kind == "field"]


def box(layout: dict) -> tuple[float, float, float, float]:
    points = layout["boundingPoly"]["normalizedVertices"]
    xs, ys = [p.get("x", 0.0) for p in points], [p.get("y", 0.0) for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def line_texts(segment: Segment) -> list[str]:
    return [segment.text[line.start : line.end] for line in segment.lines or ()]


def close(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(abs(x - y) < 1e-6 for x, y in zip(a, b, strict=True))


def test_form_fields_become_label_value_segments_after_the_others(docai_dir: Path) -> None:
    raw = (docai_dir / "form_parser_table_formfields_1p.json").read_bytes()
    segments = build_segments(raw, "form")
    assert [s.kind for s in segments] == ["paragraph", "table", "field", "field", "field", "field"]
    fields = fields_of(segments)
    assert [s.text for s in fields] == [
        "Form Date: 2020/10/01",
        "Address: 123 Fake St",
        "Form Number: 12345678",
        "Name: First Last",
    ]
    assert [s.segment_index for s in fields] == [2, 3, 4, 5] and {s.page_idx for s in fields} == {0}
    # One line per part, each boxed where Document AI put that part on the page; the segment's box holds both.
    document = orjson.loads(raw)
    date = document["pages"][0]["formFields"][0]
    form_date = fields[0]
    assert line_texts(form_date) == ["Form Date", "2020/10/01"]
    name_line, value_line = form_date.lines
    assert close(tuple(name_line.bbox.to_dict().values()), box(date["fieldName"]))
    assert close(tuple(value_line.bbox.to_dict().values()), box(date["fieldValue"]))
    assert form_date.bbox == name_line.bbox.union(value_line.bbox)
    # Offsets span both parts; a quote of a field is not the document's characters (query.citations.quote says so).
    text = document["text"]
    assert (form_date.char_start, form_date.char_end) == (33, 55)
    assert text[form_date.char_start : form_date.char_end].split() == ["Form", "Date:", "2020/10/01"]


def test_entities_become_fields_labelled_by_their_type(docai_real_dir: Path) -> None:
    """The Google invoice: the values are far from their labels in the text ("Tax (10%):" after "$1,767.97"), but
    the Invoice Parser's entities pair them."""
    raw = (docai_real_dir / "invoice_parser_1p.json").read_bytes()
    segments = build_segments(raw, "inv")
    fields = {s.text: s for s in fields_of(segments)}
    assert [s.kind for s in segments[:1]] == ["paragraph"] and len(fields) == len(segments) - 1
    assert "Total tax amount: $1,767.97" in fields
    assert "Total amount: 19,647.68" in fields
    # a date as written and as ISO, so either spelling finds it
    assert "Due date: Sep 30, 2019 (2019-09-30)" in fields
    # Left out: line items (the page's rows hold them with their item), the parser's guesses (`Supplier IBAN:
    # 23413561D` at confidence 0.0) and values with nothing in them (`Currency: $`).
    assert not [t for t in fields if t.startswith(("Line item", "VAT", "Supplier IBAN", "Purchase order", "Currency"))]
    assert len(fields) == 9
    tax = fields["Total tax amount: $1,767.97"]
    document = orjson.loads(raw)
    [entity] = [e for e in document["entities"] if e["type"] == "total_tax_amount"]
    assert line_texts(tax) == ["$1,767.97"] and tax.page_idx == 0
    assert close(tuple(tax.lines[0].bbox.to_dict().values()), box(entity["pageAnchor"]["pageRefs"][0]))
    assert all(s.kind == "field" for s in segments[1:])


def test_fields_of_shards_are_on_their_own_pages(docai_dir: Path) -> None:
    """The 48-page invoice in 5 shards: each page's form fields on that page; an entity's page reference is an
    index into its shard's pages, its text anchor local to its shard."""
    files = [p.read_bytes() for p in sorted((docai_dir / "invoice_sharded_48p_noimages").glob("*.json"))]
    segments = build_segments(files, "inv")
    fields = fields_of(segments)
    first = next(s.segment_index for s in fields)
    assert first == 144 and all(s.kind == "field" for s in segments[first:])
    assert [s.page_idx for s in fields] == sorted(s.page_idx for s in fields)
    # The same form on every page: each field once, on the first page that has it (48 copies of the page's
    # paragraphs are the document; 48 copies of its fields would only crowd retrieval).
    assert len({s.text for s in fields}) == len(fields)
    [balance] = [s for s in fields if s.text == "BALANCE DUE: $2140.00"]
    assert balance.page_idx == 0 and line_texts(balance) == ["BALANCE DUE", "$2140.00"]
    text = "".join(orjson.loads(f)["text"] for f in files)
    assert text[balance.char_start : balance.char_end].split() == ["BALANCE", "DUE", "$2140.00"]
    # An entity of a later shard: its page reference indexes that shard's pages, its anchor that shard's text.
    later = [s for s in fields if s.page_idx >= 10]
    assert later, "the later shards' entities that differ from the first's"
    for field in later:  # (every page of this invoice is 435 characters long)
        assert text[field.char_start : field.char_end] in field.text and field.char_start // 435 == field.page_idx
    # Same input in any shard order -> same fields.
    again = build_segments(list(reversed(files)), "inv")
    assert [s.to_dict() for s in again] == [s.to_dict() for s in segments]


def test_a_check_box_field_says_whether_it_is_checked(docai_real_dir: Path) -> None:
    segments = build_segments((docai_real_dir / "form_pix2info_b_checkboxes_snake.json").read_bytes(), "cb")
    states = [s.text.rsplit(": ", 1)[1] for s in fields_of(segments)]
    assert states and set(states) == {"checked", "unchecked"}


def minimal(entities: list[dict], form_fields: list[dict] | None = None) -> dict:
    text = "Total: $12.50\nDue: 2024-01-05\n"
    page = {"pageNumber": 1, "layout": {"textAnchor": {"textSegments": [{"endIndex": len(text)}]}}}
    if form_fields is not None:
        page["formFields"] = form_fields
    return {"text": text, "pages": [page], "entities": entities}


def anchor(start: int, end: int) -> dict:
    return {"textSegments": [{"startIndex": str(start), "endIndex": str(end)}]}


def test_a_field_never_refuses_a_document_and_needs_a_label_and_a_value() -> None:
    doc = minimal(
        [
            {"type": "total_amount", "mentionText": "$12.50", "textAnchor": anchor(7, 13)},
            {"type": "invoice", "confidence": 0.9},  # a classifier's label: no value
            {"type": "due_date", "textAnchor": anchor(19, 29)},  # no mention: the anchored text
            {"type": "supplier_name", "textAnchor": anchor(500, 520)},  # outside the text: left out
        ],
        [
            {"fieldName": {"textAnchor": anchor(0, 6)}, "fieldValue": {"textAnchor": anchor(7, 13)}},
            {"fieldName": {"textAnchor": anchor(14, 18)}, "fieldValue": {"textAnchor": {}}},  # no value
        ],
    )
    segments = build_segments(doc, "d")
    assert [(s.kind, s.text) for s in segments] == [
        ("text", "Total: $12.50\nDue: 2024-01-05"),
        ("field", "Total: $12.50"),
        ("field", "Total amount: $12.50"),
        ("field", "Due date: 2024-01-05"),
    ]
    # without boxes, no line geometry: null, as for any segment whose input has none
    assert [s.lines for s in segments[1:]] == [None, None, None]
    snake = {
        "text": doc["text"],
        "pages": [{"page_number": 1, "layout": {"text_anchor": {"text_segments": [{"end_index": 30}]}}}],
        "entities": [{"type_": "total_amount", "mention_text": "$12.50", "text_anchor": anchor(7, 13)}],
    }
    assert [s.text for s in fields_of(build_segments(snake, "d"))] == ["Total amount: $12.50"]


def test_a_field_longer_than_a_segment_may_be_is_left_out() -> None:
    long_value = "word " * 20  # 100 characters: a value, but not within a 100-character segment
    doc = {
        "text": f"Notes: {long_value}\n",
        "entities": [
            {"type": "notes", "mentionText": long_value, "textAnchor": anchor(7, 7 + len(long_value))},
            {"type": "short_note", "mentionText": "word", "textAnchor": anchor(7, 11)},
        ],
    }
    assert [s.text for s in fields_of(build_segments(doc, "d", max_chars=100))] == ["Short note: word"]
    assert len(fields_of(build_segments(doc, "d", max_chars=1200))) == 2


@pytest.mark.parametrize("name", ["lending_splitter_textonly.json", "procurement_splitter_textonly.json"])
def test_a_splitters_document_classes_are_not_fields(docai_real_dir: Path, name: str) -> None:
    """A splitter's entities are the documents it found (`payslip`, its whole text): no label -> value pair."""
    assert fields_of(build_segments((docai_real_dir / name).read_bytes(), "split")) == []


def test_a_document_of_entities_without_text_is_still_refused(docai_real_dir: Path) -> None:
    with pytest.raises(ValueError, match="holds no text"):
        build_segments((docai_real_dir / "ERR_blank_document_notext.json").read_bytes(), "blank")


def test_fields_go_to_the_rag_store_like_any_segment(docai_dir: Path) -> None:
    segments = build_segments((docai_dir / "form_parser_table_formfields_1p.json").read_bytes(), "form")
    assert [s.kind for s in retrieved_segments(segments)] == [s.kind for s in segments]
