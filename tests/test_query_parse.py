"""parse_sections: every answer shape of design §5.3; never raises, never drops text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from query import Section, parse_sections


def test_plain_json() -> None:
    raw = '{"sections": [{"text": "Paris is the capital.", "source_ids": ["d1:0", "d1:2"]}]}'
    assert parse_sections(raw) == [Section("Paris is the capital.", ["d1:0", "d1:2"])]


def test_code_fence_and_intro_line() -> None:
    raw = 'Here is the JSON:\n```json\n{"sections": [{"text": "A.", "source_ids": ["d:1"]}]}\n```'
    assert parse_sections(raw) == [Section("A.", ["d:1"])]


def test_prose_around_json_is_kept_as_uncited_sections() -> None:
    raw = 'I found this. {"sections": [{"text": "A.", "source_ids": ["d:1"]}]} Hope it helps!'
    assert parse_sections(raw) == [Section("I found this.", []), Section("A.", ["d:1"]), Section("Hope it helps!", [])]


def test_prose_after_json_that_starts_the_output_is_kept() -> None:
    raw = '{"sections": [{"text": "A.", "source_ids": ["d:1"]}]} Hope it helps!'
    assert parse_sections(raw) == [Section("A.", ["d:1"]), Section("Hope it helps!", [])]


def test_trailing_commas() -> None:
    raw = '{"sections": [{"text": "A.", "source_ids": ["d:1",],},],}'
    assert parse_sections(raw) == [Section("A.", ["d:1"])]


def test_bare_list() -> None:
    raw = '[{"text": "A.", "source_ids": ["d:1"]}, {"text": "B.", "source_ids": []}]'
    assert parse_sections(raw) == [Section("A.", ["d:1"]), Section("B.", [])]


def test_source_ids_as_a_string() -> None:
    raw = '{"sections": [{"text": "A.", "source_ids": "d:1, d:2;d:3"}]}'
    assert parse_sections(raw) == [Section("A.", ["d:1", "d:2", "d:3"])]


def test_ids_written_as_seg_tags() -> None:
    raw = '{"sections": [{"text": "A.", "source_ids": ["[SEG=d:1]", "SEG=d:2", "[SEG=d:3, d:4]"]}]}'
    assert parse_sections(raw) == [Section("A.", ["d:1", "SEG=d:2", "d:3", "d:4"])]


def test_seg_tags_inside_text_become_ids_and_leave_the_text() -> None:
    raw = '{"sections": [{"text": "Paris [SEG=d:1] is the capital SEG=d:2.", "source_ids": ["d:0"]}]}'
    assert parse_sections(raw) == [Section("Paris is the capital.", ["d:0", "d:1", "d:2"])]


def test_not_json_is_one_section_without_ids() -> None:
    raw = "The answer is 42. It has no JSON at all."
    assert parse_sections(raw) == [Section("The answer is 42. It has no JSON at all.", [])]


def test_not_json_with_tags_keeps_their_ids() -> None:
    assert parse_sections("Paris is the capital [SEG=d:3].") == [Section("Paris is the capital.", ["d:3"])]


def test_broken_json_is_repaired() -> None:
    raw = '{"sections": [{"text": "Line one\nline two", "source_ids": ["d:1"]}'  # raw newline, no closing
    assert parse_sections(raw) == [Section("Line one\nline two", ["d:1"])]


def test_other_key_names_and_string_items() -> None:
    raw = '{"sections": ["Plain.", {"content": "C.", "sources": [{"id": "d:5"}]}, {"answer": "D.", "ids": 7}]}'
    assert parse_sections(raw) == [Section("Plain.", []), Section("C.", ["d:5"]), Section("D.", ["7"])]


def test_single_object_without_sections() -> None:
    assert parse_sections('{"text": "Only.", "source_ids": ["d:9"]}') == [Section("Only.", ["d:9"])]


def test_numeric_markers_written_by_the_model_are_removed() -> None:
    raw = '{"sections": [{"text": "Paris is big [1][2], and old [3].", "source_ids": []}]}'
    assert parse_sections(raw) == [Section("Paris is big, and old.", [])]


@pytest.mark.parametrize("raw", [None, "", "   \n", '{"sections": []}'])
def test_empty(raw) -> None:
    assert parse_sections(raw) == []


def test_brackets_in_prose_are_not_json() -> None:
    raw = "Use the set {a, b} and the list [x, y] as given."
    assert parse_sections(raw) == [Section(raw, [])]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_and_never_loses_words(raw: str) -> None:
    sections = parse_sections(raw)
    if "{" not in raw and "[" not in raw and "SEG" not in raw.upper():
        kept = " ".join(s.text for s in sections).split()
        assert kept == raw.split() or "".join(kept) == "".join(raw.split())
