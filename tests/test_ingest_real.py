"""Every real Document AI output in ../shared/fixtures (docai/ and docai-real/ with its manifest): nothing lost,
nothing duplicated, every character on its segment's page, offsets at the segment's text, boxes holding the
segment's tokens, line spans and boxes (design §3); and the refusals the manifest asks for."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import FIXTURES, REAL_FIXTURES, shared_parameters, shared_path

from ingest import InvalidDocument, Segment, build_segments

EMPTY_CELL = "—"  # what an empty table cell renders as (design §3: columns stay aligned)
SHARDED = "invoice_sharded_48p_noimages"


def manifest_cases() -> list[dict[str, Any]]:
    path = REAL_FIXTURES / "manifest.json"
    return orjson.loads(path.read_bytes())["cases"] if path.is_file() else []


def ingestible() -> list[str]:
    """Names of every real input that must ingest. The manifest marks a WRAPPED_ ProcessResponse `invalid` (it predates
    design §3's rule that a ProcessResponse is read as its document): those ingest too, as they are."""
    names = [c["name"] for c in manifest_cases() if c["expect"] == "ok" or c["name"].startswith("WRAPPED_")]
    if FIXTURES.is_dir():
        names += [*sorted(p.name for p in FIXTURES.glob("*.json")), SHARDED]
    return names


def load_input(name: str) -> bytes | list[bytes] | dict[str, Any]:
    if name == SHARDED:
        return [p.read_bytes() for p in sorted(shared_path("fixtures", "docai", SHARDED).glob("*.json"))]
    folder = "docai" if (FIXTURES / name).is_file() else "docai-real"
    return shared_path("fixtures", folder, name).read_bytes()


def case_id(case: dict[str, Any] | None) -> str:
    return case["name"] if case else "no-fixtures"


def refused() -> list[dict[str, Any]]:
    return [c for c in manifest_cases() if c["expect"] == "invalid" and not c["name"].startswith("WRAPPED_")]


def field(node: dict[str, Any], camel: str, default: Any = None) -> Any:
    """A proto3 JSON field by its camelCase or snake_case name."""
    if camel in node:
        return node[camel]
    return node.get(re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower(), default)


def anchor_span(layout: dict[str, Any] | None, offset: int) -> tuple[int, int] | None:
    segments = field(field(layout or {}, "textAnchor", {}), "textSegments", [])
    if not segments:
        return None
    return offset + int(field(segments[0], "startIndex", 0)), offset + int(field(segments[-1], "endIndex", 0))


def box_of(layout: dict[str, Any], page: dict[str, Any]) -> tuple[float, float, float, float] | None:
    poly = field(layout, "boundingPoly", {})
    points = [(v.get("x", 0.0), v.get("y", 0.0)) for v in field(poly, "normalizedVertices", [])]
    dimension = page.get("dimension") or {}
    if not points and poly.get("vertices") and dimension.get("width"):
        points = [(v.get("x", 0) / dimension["width"], v.get("y", 0) / dimension["height"]) for v in poly["vertices"]]
    if not points:
        return None
    xs, ys = [min(max(x, 0.0), 1.0) for x, _ in points], [min(max(y, 0.0), 1.0) for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)


@dataclass
class Truth:
    """What the input says, read with orjson independently of ingest/."""

    text: str
    pages: dict[int, list[tuple[int, int]]]  # page_idx -> its page anchor spans
    tokens: list[tuple[int, int, int, tuple[float, float, float, float]]]  # start, end, page_idx, box


def parsed(data: bytes | list[bytes] | dict[str, Any]) -> list[dict[str, Any]]:
    """The input's documents (its shards) as dicts."""
    if isinstance(data, list):
        return [orjson.loads(d) for d in data]
    doc = data if isinstance(data, dict) else orjson.loads(data)
    return [doc.get("document", doc)]  # a ProcessResponse's truth is its document's


def read_truth(data: bytes | list[bytes] | dict[str, Any]) -> Truth:
    docs = parsed(data)
    docs.sort(key=lambda d: int(field(field(d, "shardInfo", {}), "shardIndex", 0)))
    truth = Truth("", {}, [])
    for doc in docs:
        offset = len(truth.text)
        truth.text += doc.get("text", "")
        for number, page in enumerate(doc.get("pages", []), start=1):
            page_idx = int(field(page, "pageNumber", number)) - 1
            span = anchor_span(page.get("layout"), offset)
            if span:
                truth.pages.setdefault(page_idx, []).append(span)
            for token in page.get("tokens", []):
                token_span, box = anchor_span(token.get("layout"), offset), box_of(token.get("layout") or {}, page)
                if token_span and box:
                    truth.tokens.append((*token_span, page_idx, box))
    return truth


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def table_cells(segment: Segment, segments: list[Segment]) -> list[str]:
    """The cells of a table segment, less the header rows it repeats: its leading rows that lead an earlier
    table segment of its page."""
    rows = segment.text.split("\n")
    earlier = [
        s.text.split("\n")
        for s in segments[: segment.segment_index]
        if s.kind == "table" and s.page_idx == segment.page_idx
    ]
    repeated = 0
    while repeated < len(rows) - 1 and any(len(e) > repeated and e[repeated] == rows[repeated] for e in earlier):
        repeated += 1
    return [cell for row in rows[repeated:] for cell in row.split(" | ") if cell != EMPTY_CELL]


def claim_positions(segments: list[Segment], text: str) -> list[list[int]]:
    """For each character of `text`, the segments whose text holds it, matched inside each segment's
    [char_start, char_end) window: tables word by word, other segments as an in-order subsequence."""
    owners: list[list[int]] = [[] for _ in text]
    ordered = [s for s in segments if s.kind == "table"] + [s for s in segments if s.kind != "table"]
    for s in ordered:
        assert s.char_start is not None and s.char_end is not None, s
        assert 0 <= s.char_start < s.char_end <= len(text), s
        free = [i for i in range(s.char_start, s.char_end) if not text[i].isspace() and not owners[i]]
        if s.kind == "table":
            for word in (w for cell in table_cells(s, segments) for w in cell.split()):
                window = "".join(text[i] for i in free)
                at = window.find(word)
                assert at >= 0, f"segment {s.segment_index}: table word {word!r} is not in its window"
                for i in free[at : at + len(word)]:
                    owners[i].append(s.segment_index)
                del free[at : at + len(word)]
            continue
        assert text[s.char_start] == s.text[0] and text[s.char_end - 1] == s.text[-1], s
        position = 0
        for char in squash(s.text):
            while position < len(free) and text[free[position]] != char:
                position += 1
            assert position < len(free), f"segment {s.segment_index}: its text is not in its window"
            owners[free[position]].append(s.segment_index)
            position += 1
    return owners


# Document AI's own token boxes stick out of their line's and paragraph's boxes by up to 0.22% of the page on
# this set (handwriting, upside-down pages, ID cards), so a token is "inside" its segment's box within 0.25%.
TOKEN_TOLERANCE = 0.0025


def inside(inner: tuple[float, float, float, float], outer: Any, tolerance: float) -> bool:
    """`inner` within the box `outer`, give or take `tolerance`."""
    x0, y0, x1, y1 = inner
    return (
        outer.x0 - tolerance <= x0
        and outer.y0 - tolerance <= y0
        and x1 <= outer.x1 + tolerance
        and y1 <= outer.y1 + tolerance
    )


def without_fields(segments: list[Segment]) -> list[Segment]:
    """The segments that share the document's text out (design §3): fields repeat it, and come after them."""
    first_field = next((s.segment_index for s in segments if s.kind == "field"), len(segments))
    assert all(s.kind == "field" for s in segments[first_field:]), "fields come after the other segments"
    return segments[:first_field]


def check_document(segments: list[Segment], truth: Truth, max_chars: int) -> None:
    assert [s.segment_index for s in segments] == list(range(len(segments)))
    for s in segments:
        assert s.text and s.text == s.text.strip() and len(s.text) <= max_chars, s
        if s.bbox is not None:
            assert 0 <= s.bbox.x0 <= s.bbox.x1 <= 1 and 0 <= s.bbox.y0 <= s.bbox.y1 <= 1, s
    owners = claim_positions(segments, truth.text)
    lost = "".join(c for c, o in zip(truth.text, owners, strict=True) if not c.isspace() and not o)
    twice = "".join(c for c, o in zip(truth.text, owners, strict=True) if len(o) > 1)
    assert lost == "", f"characters in no segment: {lost[:200]!r}"
    assert twice == "", f"characters in several segments: {twice[:200]!r}"
    for position, owner in enumerate(owners):
        if owner and truth.pages:
            spans = truth.pages.get(segments[owner[0]].page_idx, [])
            assert any(a <= position < b for a, b in spans), f"character {position} is not on its segment's page"
    for start, end, page_idx, box in truth.tokens:
        for index in {o for position in range(start, end) for o in owners[position]}:
            segment = segments[index]
            assert segment.page_idx == page_idx
            if segment.bbox is not None:
                where = f"token {truth.text[start:end]!r} outside segment {index}'s box"
                assert inside(box, segment.bbox, TOKEN_TOLERANCE), where


@pytest.mark.parametrize("max_chars", [1200, 120])
@pytest.mark.parametrize("name", shared_parameters(ingestible(), "fixtures"))
def test_real_document_nothing_lost_or_repeated(name: str, max_chars: int) -> None:
    data = load_input(name)
    everything = build_segments(data, "doc", max_chars=max_chars)
    assert all(s.text and s.text == s.text.strip() and len(s.text) <= max_chars for s in everything)
    segments = without_fields(everything)
    assert segments
    if name.startswith("layout_parser") or name.startswith("SYNTHETIC_layout"):
        check_layout_parser(segments, data, max_chars)
    else:
        check_document(segments, read_truth(data), max_chars)


@pytest.mark.parametrize(
    ("name", "pages"),
    [
        ("procurement_splitter_textonly.json", [0, 1, 2, 3, 4]),  # an invoice, a receipt, a form, a bill, a receipt
        ("lending_splitter_textonly.json", [0, 2, 3, 4, 5, 6, 8, 9]),  # its first and sixth span two pages each
    ],
)
def test_a_splitters_documents_never_share_a_segment_and_each_is_on_its_page(
    docai_real_dir: Path, name: str, pages: list[int]
) -> None:
    """A splitter's text-only output holds several documents; its entities say where each begins and on which
    page: a segment never runs from one into the next (an invoice's subtotal beside a receipt's name), and each
    is on its document's first page."""
    data = orjson.loads((docai_real_dir / name).read_bytes())
    starts = {int(e["textAnchor"]["textSegments"][0].get("startIndex", 0)): e for e in data["entities"]}
    segments = build_segments(orjson.dumps(data), "doc")
    assert sorted({s.page_idx for s in segments}) == pages
    for s in segments:
        assert not any(s.char_start < start < s.char_end for start in starts), s
        first = max(start for start in starts if start <= s.char_start)
        refs = starts[first]["pageAnchor"]["pageRefs"]
        assert s.page_idx == int(refs[0].get("page", 0))
    # Anchors that do not tile the text (two documents starting at one place): one text, as before, on page 0.
    data["entities"][1]["textAnchor"]["textSegments"][0]["startIndex"] = "0"
    assert {s.page_idx for s in build_segments(orjson.dumps(data), "doc")} == {0}


def layout_texts(node: Any) -> list[str]:
    """Every text block's text under a Layout Parser node, read with plain dict walking."""
    if isinstance(node, list):
        return [t for item in node for t in layout_texts(item)]
    if not isinstance(node, dict):
        return []
    own = [node["text"]] if isinstance(node.get("text"), str) and ("type" in node or "type_" in node) else []
    return own + [t for key, value in node.items() if key != "text" for t in layout_texts(value)]


def check_layout_parser(segments: list[Segment], data: Any, max_chars: int) -> None:
    blocks = field(orjson.loads(data), "documentLayout")
    expected = Counter(squash("".join(layout_texts(blocks))))
    got: Counter[str] = Counter()
    for s in segments:
        assert s.text and s.text == s.text.strip() and len(s.text) <= max_chars, s
        assert s.char_start is None and s.char_end is None and s.bbox is None and s.lines is None
        if s.kind == "table":
            got.update(squash("".join(table_cells(s, segments))))
        else:
            got.update(squash(s.text))
    assert got == expected


@pytest.mark.parametrize("case", shared_parameters(refused(), "fixtures", "docai-real"), ids=case_id)
def test_real_document_refused_with_its_reason(case: dict[str, Any]) -> None:
    data = shared_path("fixtures", "docai-real", case["name"]).read_bytes()
    with pytest.raises(InvalidDocument) as info:
        build_segments(data, "doc", names=[case["name"]])
    message = str(info.value)
    assert message.startswith(f"{case['name']}: ")
    assert "\n" not in message
    assert all(part in message for part in case.get("error_contains", []))
    if case.get("error_contains_any"):
        assert any(part in message for part in case["error_contains_any"]), message


@pytest.mark.parametrize(
    "name", shared_parameters([c["name"] for c in manifest_cases() if c["name"].startswith("WRAPPED_")], "fixtures")
)
def test_a_process_response_gives_its_documents_segments(name: str) -> None:
    data = shared_path("fixtures", "docai-real", name).read_bytes()
    inner = orjson.dumps(orjson.loads(data)["document"])
    segments = build_segments(data, "doc", names=[name])
    assert segments and segments == build_segments(inner, "doc")
    assert segments == build_segments(orjson.loads(data), "doc")  # the same from a dict


@pytest.mark.parametrize("name", shared_parameters([n for n in ingestible() if n != SHARDED], "fixtures"))
def test_a_document_object_gives_the_segments_of_its_json(name: str) -> None:
    """One input, one result (issue 31): google-cloud-documentai's Document prints unset proto3 fields (an absent
    `confidence` as 0.0, which reads as a guess), so it used to lose entities its own JSON bytes give."""
    from google.cloud import documentai

    data = load_input(name)
    document = parsed(data)[0]
    as_object = documentai.Document.from_json(orjson.dumps(document), ignore_unknown_fields=True)
    assert build_segments(as_object, "doc") == build_segments(data, "doc")


def test_manifest_names_every_real_file(docai_real_dir: Path) -> None:
    listed = {c["name"] for c in manifest_cases()}
    present = {p.name for p in docai_real_dir.glob("*.json")} - {"manifest.json"}
    assert listed == present


# Line geometry (design §3 `lines`, issue 12) ------------------------------------------------------------


@pytest.mark.parametrize("max_chars", [1200, 120])
@pytest.mark.parametrize("name", shared_parameters(ingestible(), "fixtures"))
def test_real_document_lines_tile_each_segment_inside_its_box(name: str, max_chars: int) -> None:
    data = load_input(name)
    segments = build_segments(data, "doc", max_chars=max_chars)
    if any(page.get("lines") for doc in parsed(data) for page in doc.get("pages", [])):
        found = all(s.lines for s in without_fields(segments))
        assert found, "a document with lines gives every segment its lines"
    for s in segments:
        if s.lines is None:
            continue
        assert s.lines, s
        covered = [False] * len(s.text)
        previous_end = 0
        for line in s.lines:
            assert previous_end <= line.start < line.end <= len(s.text), (s.segment_index, line)
            previous_end = line.end
            text = s.text[line.start : line.end]
            assert text == text.strip()
            covered[line.start : line.end] = [True] * (line.end - line.start)
            # The segment's box is the union of its elements' boxes and its lines' boxes: no tolerance needed.
            box = (line.bbox.x0, line.bbox.y0, line.bbox.x1, line.bbox.y1)
            assert inside(box, s.bbox, 0.0), (s.segment_index, line)
        # A field's label may be an entity's type, on no line of the page; `: ` and `; ` join its parts.
        label_end = s.text.index(": ") if s.kind == "field" else -1
        uncovered = "".join(
            c
            for i, (c, seen) in enumerate(zip(s.text, covered, strict=True))
            if not seen and not c.isspace() and i > label_end and not (s.kind == "field" and c == ";")
        )
        assert uncovered == "", f"segment {s.segment_index}: characters in no line: {uncovered[:80]!r}"


def lines_over(segment: Segment, sentence: str) -> list[str]:
    """The texts of the segment's lines that overlap `sentence` (found with any whitespace between words)."""
    match = re.search(r"\s+".join(map(re.escape, sentence.split())), segment.text)
    assert match, f"{sentence!r} not in segment {segment.segment_index}"
    return [
        segment.text[line.start : line.end]
        for line in segment.lines or ()
        if line.start < match.end() and line.end > match.start()
    ]


def test_lines_of_a_known_sentence_are_exactly_its_lines(docai_dir: Path) -> None:
    segments = build_segments((docai_dir / "invoice_parser_edf_2p_snake_case.json").read_bytes(), "edf")
    sentence = "(numéro à transmettre pour le règlement de vos factures)"
    [segment] = [s for s in segments if sentence.split()[0] in s.text]
    assert lines_over(segment, sentence) == ["(numéro à transmettre pour le", "règlement de vos factures)"]
    # A sentence on one line of a merged segment gets that one line, though its neighbours are lines too.
    single = "Relève automatique de votre compteur électricité vers le 10 de chaque mois."
    assert lines_over(segment, single) == [single]
    one_line = next(line for line in segment.lines if segment.text[line.start : line.end] == single)
    assert (one_line.bbox.y0, one_line.bbox.y1) == (0.483668, 0.5)
    assert segment.page_idx == 0


def test_lines_of_a_table_are_its_rows(docai_dir: Path) -> None:
    segments = build_segments((docai_dir / "form_parser_table_formfields_1p.json").read_bytes(), "form")
    table = segments[1]
    assert [table.text[line.start : line.end] for line in table.lines] == table.text.splitlines()
    boxes = [(line.bbox.y0, line.bbox.y1) for line in table.lines]
    assert boxes == sorted(boxes) and all(y0 < y1 for y0, y1 in boxes)  # rows top to bottom, one box each
    assert [segments[0].text[line.start : line.end] for line in segments[0].lines][:3] == [
        "Form Title",
        "Form Number:",
        "12345678",
    ]


def test_no_lines_where_the_input_has_no_line_geometry(docai_dir: Path) -> None:
    layout = build_segments((docai_dir / "SYNTHETIC_layout_parser_table_list.json").read_bytes(), "lp")
    text_only = build_segments({"text": "Just text.\nMore text.\n"}, "t")
    assert [s.lines for s in layout + text_only] == [None] * (len(layout) + len(text_only))
