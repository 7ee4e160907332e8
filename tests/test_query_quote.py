"""Issue 12, query side: every citation's `quote`, `boxes` and a `snippet_preview` centred on the quote."""

from __future__ import annotations

import itertools
from pathlib import Path

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest import BBox, Line, Segment, build_segments
from ingest.load import load_document
from query import AnswerBuilder, SectionResolver, build_answer, find_quote, quote_boxes, snippet_preview
from query.citations.model import Section
from query.reader.extractive import extractive_answer


def lined(document_id: str, rows: list[str], *, top: float = 0.1, kind: str = "paragraph") -> Segment:
    """A segment whose text is `rows` joined by line breaks, one Document AI line per row, 0.02 high each."""
    lines: list[Line] = []
    position = 0
    for i, row in enumerate(rows):
        box = BBox(0.1, round(top + 0.02 * i, 4), round(0.1 + 0.01 * len(row), 4), round(top + 0.02 * (i + 1), 4))
        lines.append(Line(position, position + len(row), box))
        position += len(row) + 1
    text = "\n".join(rows)
    bbox = BBox(0.1, top, max(line.bbox.x1 for line in lines), lines[-1].bbox.y1)
    return Segment(document_id, 0, 2, kind, text, 1000, 1000 + len(text), bbox, tuple(lines))


BOILER_ROWS = [
    "The boiler was serviced in March 2022 by a",
    "certified engineer. The energy rating of the",
    "house is D, with a score of 61. Solar panels were",
    "added on the south roof in 2023 and feed the",
    "grid.",
]
INVOICE_ROWS = [
    "FACTURE N° 2022-1187",
    "Date: 11/12/2022",
    "Client: Jean Dupont",
    "Adresse: 12 rue des Lilas, 69003 Lyon",
    "Consommation: 412 kWh",
    "Abonnement: 12,40 €",
    "Total HT: 52,38 €",
    "TVA: 10,48 €",
    "Total TTC: 62,86 €",
    "Échéance: 01/01/2023",
    "Prélèvement le 05/01/2023",
    "Merci de votre confiance.",
]


def area(box: dict) -> float:
    return (box["x1"] - box["x0"]) * (box["y1"] - box["y0"])


def test_quote_of_a_known_sentence_has_exactly_its_lines() -> None:
    segment = lined("house", BOILER_ROWS)
    payload = build_answer(
        orjson.dumps(
            {"sections": [{"text": "The energy rating is D, with a score of 61.", "source_ids": ["house:0"]}]}
        ).decode(),
        context=[segment],
    )
    [citation] = payload["metadata"]["citations"]
    sentence = "The energy rating of the\nhouse is D, with a score of 61."
    start = segment.text.index(sentence)
    assert citation["quote"] == {
        "text": sentence,
        "start": start,
        "end": start + len(sentence),
        "char_start": 1000 + start,
        "char_end": 1000 + start + len(sentence),
    }
    assert citation["boxes"] == [
        {"page_idx": 2, "x0": 0.1, "y0": 0.12, "x1": 0.54, "y1": 0.14},
        {"page_idx": 2, "x0": 0.1, "y0": 0.14, "x1": 0.59, "y1": 0.16},
    ]
    assert citation["snippet_preview"] == " ".join(segment.text.split())  # short: the whole segment


def test_one_value_on_an_invoice_is_quoted_by_its_row() -> None:
    invoice = lined("bill", INVOICE_ROWS)
    segment_area = area({"x0": invoice.bbox.x0, "y0": invoice.bbox.y0, "x1": invoice.bbox.x1, "y1": invoice.bbox.y1})
    for section in (
        {"text": "62,86 €", "source_ids": []},
        {"text": "The total amount due is 62,86 €.", "source_ids": ["bill:0"]},
    ):
        payload = build_answer(orjson.dumps({"sections": [section]}).decode(), context=[invoice])
        [citation] = payload["metadata"]["citations"]
        assert citation["quote"]["text"] == "Total TTC: 62,86 €"
        assert citation["boxes"] == [{"page_idx": 2, "x0": 0.1, "y0": 0.26, "x1": 0.28, "y1": 0.28}]
        assert sum(area(b) for b in citation["boxes"]) < 0.1 * segment_area
        assert "62,86" in citation["snippet_preview"]


def test_table_rows_are_quoted_and_a_segment_without_lines_gives_its_box() -> None:
    table = Segment(
        "t", 4, 1, "table", "Item | Amount\nWidgets | 125.31\nGadgets | 99.00", 10, 60, BBox(0.2, 0.3, 0.8, 0.5)
    )
    quote = find_quote(table, "Gadgets cost 99.00.")
    assert (quote.text, quote.start, quote.end) == ("Gadgets | 99.00", 31, 46)
    assert (quote.char_start, quote.char_end) == (None, None)  # rows are rendered, not the document's characters
    assert quote_boxes(table, quote) == [{"page_idx": 1, "x0": 0.2, "y0": 0.3, "x1": 0.8, "y1": 0.5}]


def test_snippet_is_centred_on_the_quote() -> None:
    filler = " ".join("Nothing in this sentence is of any use." for _ in range(15))
    text = f"{filler} The hidden value is 61.4 gigawatt hours. {filler}"
    segment = Segment("g", 0, 0, "paragraph", text, None, None, None)
    quote = find_quote(segment, "It produced 61.4 gigawatt hours.")
    assert quote.text == "The hidden value is 61.4 gigawatt hours."
    preview = snippet_preview(text, quote.start, quote.end)
    assert len(preview) <= 200 and preview.startswith("…") and preview.endswith("…")
    assert quote.text in preview
    left, right = preview.split(quote.text)
    assert abs(len(left) - len(right)) <= 12  # centred, give or take the words cut at each end


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.text(alphabet=st.sampled_from(list("ab 12.,|\n:TE")), min_size=1, max_size=30), max_size=8),
    claim=st.text(alphabet=st.sampled_from(list("ab 12.,:TE")), max_size=40),
    table=st.booleans(),
)
def test_quote_is_always_a_span_of_the_segment(rows: list[str], claim: str, table: bool) -> None:
    rows = [r.replace("\n", " ") for r in rows] or [""]
    segment = lined("p", rows, kind="table" if table else "paragraph")
    quote = find_quote(segment, claim)
    assert 0 <= quote.start <= quote.end <= len(segment.text)
    assert quote.text == segment.text[quote.start : quote.end]
    assert (quote.char_start, quote.char_end) == ((None, None) if table else (1000 + quote.start, 1000 + quote.end))
    boxes = quote_boxes(segment, quote)
    overlapped = [line for line in segment.lines if line.start < quote.end and line.end > quote.start]
    assert len(boxes) == (len(overlapped) or 1)


@pytest.fixture(scope="module")
def fixture_segments(docai_dir: Path) -> list[tuple[str, Segment]]:
    """(document text, segment) for every segment of the fixtures that have text."""
    found: list[tuple[str, Segment]] = []
    for path in sorted(docai_dir.glob("*.json")):
        raw = path.read_bytes()
        try:
            segments = build_segments(raw, path.stem)
        except ValueError:
            continue
        text = load_document(raw).text or ""
        found.extend((text, s) for s in segments if s.text.strip())
    assert found
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_quotes_on_real_documents_point_at_the_same_text(data: st.DataObject, fixture_segments) -> None:
    document, segment = data.draw(st.sampled_from(fixture_segments))
    start = data.draw(st.integers(0, len(segment.text) - 1))
    claim = segment.text[start : start + data.draw(st.integers(1, 120))]
    quote = find_quote(segment, claim)
    assert quote.text == segment.text[quote.start : quote.end]
    if quote.char_start is not None:
        assert document[quote.char_start : quote.char_end] == quote.text
    else:
        assert segment.char_start is None or segment.kind in ("table", "field")


def test_ocr_noised_claim_is_quoted_where_its_characters_align() -> None:
    segment = lined("house", BOILER_ROWS)
    quote = find_quote(segment, "Thc boi1er wos scrviced ln Morch")  # no whole word in common
    assert quote.text == "The boiler was serviced in March 2022 by a\ncertified engineer."
    assert [b["y0"] for b in quote_boxes(segment, quote)] == [0.1, 0.12]


# One citation, several claims (issue 25 point 2, design §5.8) --------------------------------------------------


def test_a_citation_backing_two_claims_quotes_the_passage_of_each() -> None:
    segment = lined("inv", INVOICE_ROWS)
    sections = [
        {"text": "The total including tax is 62,86 €.", "source_ids": ["inv:0"]},
        {"text": "Payment is due on 01/01/2023.", "source_ids": ["inv:0"]},
    ]
    payload = build_answer(orjson.dumps({"sections": sections}).decode(), context=[segment])
    assert payload["content"] == "The total including tax is 62,86 € [1].\n\nPayment is due on 01/01/2023 [1]."
    [citation] = payload["metadata"]["citations"]
    assert [q["text"] for q in citation["quotes"]] == ["Total TTC: 62,86 €", "Échéance: 01/01/2023"]
    assert citation["quote"] == citation["quotes"][0]
    for quote in citation["quotes"]:
        assert segment.text[quote["start"] : quote["end"]] == quote["text"]
        assert quote["char_start"] == 1000 + quote["start"] and quote["char_end"] == 1000 + quote["end"]
    # a box for every line of every quote, once, in reading order
    rows = [INVOICE_ROWS.index("Total TTC: 62,86 €"), INVOICE_ROWS.index("Échéance: 01/01/2023")]
    assert [b["y0"] for b in citation["boxes"]] == [segment.lines[i].bbox.y0 for i in rows]


def test_the_same_passage_backing_two_claims_is_quoted_once() -> None:
    segment = lined("inv", INVOICE_ROWS)
    sections = [
        {"text": "The total is 62,86 €.", "source_ids": ["inv:0"]},
        {"text": "That is 62,86 € in all.", "source_ids": ["inv:0"]},
    ]
    payload = build_answer(orjson.dumps({"sections": sections}).decode(), context=[segment])
    [citation] = payload["metadata"]["citations"]
    assert [q["text"] for q in citation["quotes"]] == ["Total TTC: 62,86 €"] and len(citation["boxes"]) == 1


def test_streamed_sections_see_a_citations_quotes_grow_and_never_change() -> None:
    """Sections resolved one by one (as the worker streams them): a citation's number, `quote` and earlier
    `quotes` never change; a later claim only adds its passage; the last state is the final payload's."""
    segment = lined("inv", INVOICE_ROWS)
    sections = [
        Section("The total including tax is 62,86 €.", ["inv:0"]),
        Section("Payment is due on 01/01/2023.", ["inv:0"]),
        Section("The client is Jean Dupont.", ["inv:0"]),
    ]
    resolver, builder = SectionResolver(context=[segment]), AnswerBuilder()
    states = []
    for section in sections:
        builder.add(resolver.resolve(section))
        states.append(orjson.loads(orjson.dumps(builder.citations)))
    assert [len(state[0]["quotes"]) for state in states] == [1, 2, 3]
    for earlier, later in itertools.pairwise(states):
        assert later[0]["quote"] == earlier[0]["quote"]
        assert later[0]["quotes"][: len(earlier[0]["quotes"])] == earlier[0]["quotes"]
        same = {k: v for k, v in later[0].items() if k not in ("quotes", "boxes")}
        assert same == {k: v for k, v in earlier[0].items() if k not in ("quotes", "boxes")}
    raw = orjson.dumps({"sections": [msgspec.structs.asdict(s) for s in sections]}).decode()
    assert build_answer(raw, context=[segment])["metadata"]["citations"] == states[-1]


def test_balance_due_and_due_date_of_a_real_invoice_are_both_quoted(docai_real_dir: Path) -> None:
    """Issue 25: "What is the balance due and the due date?" gave two sections marked [1] whose quote held only
    the balance; the due date had no quote and no box."""
    segments = build_segments((docai_real_dir / "invoice_parser_1p.json").read_bytes(), "inv")
    question = "What is the balance due and the due date?"
    payload = build_answer(extractive_answer(question, segments), context=segments)
    assert "$4,647.68" in payload["content"] and "Sep 30, 2019" in payload["content"]
    quoted = " ".join(q["text"] for c in payload["metadata"]["citations"] for q in c["quotes"])
    assert "$4,647.68" in quoted and "Sep 30, 2019" in quoted
    by_id = {s.segment_id: s for s in segments}
    for citation in payload["metadata"]["citations"]:
        segment = by_id[citation["segment_id"]]
        lines = [
            line
            for line in segment.lines
            if any(line.start < q["end"] and line.end > q["start"] for q in citation["quotes"])
        ]
        assert [(b["x0"], b["y0"]) for b in citation["boxes"]] == [(ln.bbox.x0, ln.bbox.y0) for ln in lines]
        assert lines  # every quoted line has its box
