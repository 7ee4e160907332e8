"""Property tests on generated Document AI JSON with ground truth (bench/docai_synth.py)."""

from __future__ import annotations

import re

import orjson
from docai_synth import PageSpec, Truth, build_document, shard_document, to_snake_case
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import Segment, build_segments

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "café",
    "naïve",
    "Zürich",
    "42",
    "3.14",
    "€12,50",
    "x",
    "interoperability",
    "über",
    "señor",
    "Dr.",
    "e.g.",
    "(note)",
    "2024-01-05",
]

word = st.sampled_from(WORDS)
sentence = st.lists(word, min_size=1, max_size=12).map(lambda ws: " ".join(ws) + ".")
paragraph = st.lists(sentence, min_size=1, max_size=8).map(" ".join)
cell = st.one_of(st.just(""), st.lists(word, min_size=1, max_size=3).map(" ".join))


@st.composite
def table(draw) -> list[list[str]]:
    columns = draw(st.integers(1, 3))
    rows = draw(st.lists(st.lists(cell, min_size=columns, max_size=columns), min_size=1, max_size=4))
    rows[0] = [c or "head" for c in rows[0]]  # a header row with text
    return rows


@st.composite
def page(draw) -> PageSpec:
    paragraphs = draw(st.lists(paragraph, min_size=0, max_size=5))
    has_table = draw(st.booleans())
    spec = PageSpec(
        paragraphs=paragraphs,
        table=draw(table()) if has_table else None,
        table_at=draw(st.integers(0, len(paragraphs))),
    )
    if not paragraphs and not has_table:
        spec.paragraphs = ["Lonely page."]
    return spec


documents = st.lists(page(), min_size=1, max_size=5)
max_chars = st.integers(40, 400)


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def render_rows(rows: list[list[str]]) -> list[str]:
    """Rows as `cell | cell`, an empty cell as `—` (its column kept), rows of empty cells left out."""
    return [" | ".join(cell or "—" for cell in row) for row in rows if "".join(row).strip()]


def own_rows(segments: list[Segment], header: str | None) -> dict[int, list[str]]:
    """The rows of a page's table segments by segment index, without the header row that each piece after the
    first repeats."""
    rows: dict[int, list[str]] = {}
    for number, segment in enumerate(s for s in segments if s.kind == "table"):
        lines = segment.text.splitlines()
        rows[segment.segment_index] = lines[1:] if number and lines[0] == header and len(lines) > 1 else lines
    return rows


def check_against_truth(segments: list[Segment], truth: Truth, limit: int) -> None:
    assert [s.segment_index for s in segments] == list(range(len(segments)))
    assert [s.page_idx for s in segments] == sorted(s.page_idx for s in segments)
    for page_idx, paragraphs in enumerate(truth.page_paragraphs):
        on_page = [s for s in segments if s.page_idx == page_idx]
        text_segments = [s for s in on_page if s.kind != "table"]
        # Nothing lost, nothing duplicated, nothing from another page: same characters, same order.
        assert squash("".join(s.text for s in text_segments)) == squash("".join(paragraphs))
        expected = render_rows(truth.page_tables[page_idx])
        rows = own_rows(on_page, expected[0] if expected else None)
        assert squash("".join(line for lines in rows.values() for line in lines)) == squash("".join(expected))
        for index, lines in rows.items():
            window = truth.text[segments[index].char_start : segments[index].char_end]
            cells = [c for line in lines for c in re.split(r"\s*\|\s*", line) if c and c != "—"]
            assert all(c in window for c in cells)  # offsets point at the table's own rows
    for s in segments:
        assert len(s.text) <= limit
        assert s.char_start is not None and s.char_end is not None
        if s.kind != "table":
            assert squash(truth.text[s.char_start : s.char_end]) == squash(s.text)  # offsets at exactly this text
        assert s.bbox is not None and 0 <= s.bbox.x0 <= s.bbox.x1 <= 1 and 0 <= s.bbox.y0 <= s.bbox.y1 <= 1


def dump(segments: list[Segment]) -> bytes:
    return orjson.dumps([s.to_dict() for s in segments])


@settings(max_examples=80, deadline=None)
@given(documents, max_chars)
def test_segments_match_the_ground_truth(pages: list[PageSpec], limit: int) -> None:
    document, truth = build_document(pages)
    segments = build_segments(orjson.dumps(document), "doc", max_chars=limit)
    check_against_truth(segments, truth, limit)
    assert dump(build_segments(orjson.dumps(document), "doc", max_chars=limit)) == dump(segments)


@settings(max_examples=60, deadline=None)
@given(documents, max_chars, st.integers(1, 3), st.randoms(use_true_random=False))
def test_shards_in_any_order_equal_the_unsharded_document(pages, limit, per_shard, rnd) -> None:
    document, _ = build_document(pages)
    whole = build_segments(orjson.dumps(document), "doc", max_chars=limit)
    shards = [orjson.dumps(s) for s in shard_document(document, per_shard)]
    rnd.shuffle(shards)
    assert dump(build_segments(shards, "doc", max_chars=limit)) == dump(whole)


@settings(max_examples=60, deadline=None)
@given(documents, max_chars)
def test_snake_case_equals_camel_case(pages, limit) -> None:
    document, _ = build_document(pages)
    camel = build_segments(orjson.dumps(document), "doc", max_chars=limit)
    assert dump(build_segments(orjson.dumps(to_snake_case(document)), "doc", max_chars=limit)) == dump(camel)
    assert dump(build_segments(to_snake_case(document), "doc", max_chars=limit)) == dump(camel)  # dicts too


@settings(max_examples=40, deadline=None)
@given(documents)
def test_fallback_sources_blocks_then_lines_then_page(pages) -> None:
    document, truth = build_document(pages)
    for drop in (["paragraphs"], ["paragraphs", "blocks"], ["paragraphs", "blocks", "lines"]):
        for p in document["pages"]:
            for key in drop:
                p[key] = []
        segments = build_segments(orjson.dumps(document), "doc")
        expected = squash("".join(truth.text))
        tables = squash("".join(s.text for s in segments if s.kind == "table").replace("|", ""))
        body = squash("".join(s.text for s in segments if s.kind != "table"))
        # Without paragraphs the table cells' own text is still there once (as table rows).
        assert len(body) + len(tables) >= len(expected) - len(
            squash("".join(c for rows in truth.page_tables for row in rows for c in row))
        )
        assert all(s.kind in ("text", "table") for s in segments)
        for s in segments:
            if s.kind != "table":
                assert squash(truth.text[s.char_start : s.char_end]) == squash(s.text)


@settings(max_examples=60, deadline=None)
@given(st.lists(paragraph, min_size=1, max_size=6), max_chars)
def test_text_only_document_split_by_size_on_page_zero(paragraphs, limit) -> None:
    text = "\n".join(paragraphs) + "\n"
    segments = build_segments({"text": text}, "t", max_chars=limit)
    assert {s.page_idx for s in segments} == {0}
    assert squash("".join(s.text for s in segments)) == squash(text)
    for s in segments:
        assert len(s.text) <= limit and squash(text[s.char_start : s.char_end]) == squash(s.text)
