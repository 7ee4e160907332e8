"""parse_sections: every answer shape of design §5.3; never raises, never drops text."""

from __future__ import annotations

import re
import time

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import contains_seg_tag
from query import ParsedAnswer, Section, parse_answer, parse_sections


def test_plain_json() -> None:
    raw = '{"sections": [{"text": "Paris is the capital.", "source_ids": ["d1:0", "d1:2"]}]}'
    assert parse_sections(raw) == [Section("Paris is the capital.", ["d1:0", "d1:2"])]


def test_code_fence_and_intro_line() -> None:
    raw = 'Here is the JSON:\n```json\n{"sections": [{"text": "A.", "source_ids": ["d:1"]}]}\n```'
    assert parse_sections(raw) == [Section("A.", ["d:1"])]


def test_prose_around_json_goes_to_extra_text() -> None:
    raw = 'Here is the answer: {"sections": [{"text": "A.", "source_ids": ["d:1"]}]} Hope this helps!'
    assert parse_answer(raw) == ParsedAnswer([Section("A.", ["d:1"])], "Here is the answer:\n\nHope this helps!")


def test_prose_after_json_that_starts_the_output_goes_to_extra_text() -> None:
    raw = '{"sections": [{"text": "A.", "source_ids": ["d:1"]}]} Hope it helps!'
    assert parse_answer(raw) == ParsedAnswer([Section("A.", ["d:1"])], "Hope it helps!")


def test_plain_json_has_no_extra_text() -> None:
    raw = '```json\n{"sections": [{"text": "A.", "source_ids": ["d:1"]}]}\n```'
    assert parse_answer(raw) == ParsedAnswer([Section("A.", ["d:1"])], None)


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
    assert parse_sections(raw) == [Section("A.", ["d:1", "d:2", "d:3", "d:4"])]


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
    assert parse_sections(raw, max_marker=3) == [Section("Paris is big, and old.", [])]


def test_bracketed_numbers_outside_the_context_range_stay() -> None:
    raw = '{"sections": [{"text": "In [2023] sales rose [2], see item [a] and [0].", "source_ids": []}]}'
    assert parse_sections(raw, max_marker=6) == [Section("In [2023] sales rose, see item [a] and [0].", [])]


@pytest.mark.parametrize("raw", [None, "", "   \n", '{"sections": []}'])
def test_empty(raw) -> None:
    assert parse_sections(raw) == []


def test_brackets_in_prose_are_not_json() -> None:
    raw = "Use the set {a, b} and the list [x, y] as given."
    assert parse_sections(raw) == [Section(raw, [])]


CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_and_never_loses_words(raw: str) -> None:
    sections = parse_sections(raw)
    if "{" not in raw and "[" not in raw and not contains_seg_tag(raw):
        kept = " ".join(s.text for s in sections).split()
        words = CONTROLS.sub("", raw).split()  # controls are stripped with SEG-like sequences (design §3)
        assert kept == words or "".join(kept) == "".join(words)


# Issue 11: outputs that crashed, stalled or garbled ------------------------------------------------------------


def test_unclosed_tag_takes_only_its_id_and_never_swallows_the_sentence() -> None:
    raw = "The rating is D [SEG=A:1. Heating is by a gas boiler from 2011 [SEG=A:3]."
    assert parse_sections(raw) == [Section("The rating is D. Heating is by a gas boiler from 2011.", ["A:1", "A:3"])]


def test_unclosed_tag_ends_at_its_line() -> None:
    raw = '{"sections": [{"text": "Rating D [SEG=A:1 then\nB:2 is not an id here.", "source_ids": []}]}'
    assert parse_sections(raw) == [Section("Rating D then\nB:2 is not an id here.", ["A:1"])]


def test_source_ids_nested_3000_deep() -> None:
    raw = '{"sections": [{"text": "x y z", "source_ids": ' + "[" * 3000 + '"A:1"' + "]" * 3000 + "}]}"
    assert parse_sections(raw) == [Section("x y z", ["A:1"])]


def test_brackets_in_prose_2000_deep_are_text() -> None:
    raw = "See " + "[" * 1000 + "the note" + "]" * 1000 + "."
    assert parse_sections(raw) == [Section(raw, [])]


def test_unbalanced_brackets_parse_in_linear_time() -> None:
    # Quadratic before (10k characters took 13 s); an order-of-magnitude guard, as the issue asks.
    for raw in ("[" * 100_000, "{" * 100_000, '{"' * 50_000, "[{" * 50_000, '{"sections": [' * 7_000):
        started = time.perf_counter()
        sections = parse_sections(raw)
        assert time.perf_counter() - started < 1.0, raw[:20]
        assert "".join(s.text for s in sections).replace(" ", "") in ("", raw.replace(" ", ""))


def test_disguised_tags_parse_in_linear_time() -> None:
    """Issue 24's reading of character references, format characters and look-alikes keeps parsing linear: an
    order-of-magnitude guard on 100 KB of each hostile form (each takes well under 0.3 s)."""
    for raw in (
        "&#91;" * 20_000,
        "".join(f"&#x{n:x};" for n in range(12_000)),
        "&#91;SEG&#61;" * 8_000,
        "[seg=" * 20_000,
        "[SEG=a:1 " + "b:1 " * 25_000,
        "\uff3b\uff33\uff25\uff27\uff1d" * 20_000,
        "S\u200bE\u200b" * 25_000 + "G=",
    ):
        started = time.perf_counter()
        sections = parse_sections(raw)
        assert time.perf_counter() - started < 1.0, raw[:20]
        assert all(not contains_seg_tag(s.text) for s in sections)


def test_lone_surrogate_becomes_a_replacement_character() -> None:
    assert parse_sections("smile \ud83d here") == [Section("smile \ufffd here", [])]
    raw = '{"sections": [{"text": "smile \\ud83d here", "source_ids": ["d:1"]}]}'  # an escaped lone surrogate
    [section] = parse_sections(raw)
    assert section.text == "smile \ufffd here" and section.source_ids == ["d:1"]


@pytest.mark.parametrize("key", ["answer", "response", "data", "result", "output"])
def test_sections_under_a_wrapper_key(key: str) -> None:
    raw = f'{{"{key}": {{"sections": [{{"text": "A.", "source_ids": ["d:1"]}}]}}}}'
    assert parse_answer(raw) == ParsedAnswer([Section("A.", ["d:1"])], None)


def test_two_json_objects_give_their_sections_in_order() -> None:
    raw = (
        '{"sections": [{"text": "A.", "source_ids": ["d:1"]}]}\n'
        'And more: {"sections": [{"text": "B.", "source_ids": ["d:2"]}]}'
    )
    assert parse_answer(raw) == ParsedAnswer([Section("A.", ["d:1"]), Section("B.", ["d:2"])], "And more:")


def test_key_written_twice_keeps_both_lists() -> None:
    raw = '{"sections": [{"text": "A.", "source_ids": ["d:1", "d:2"], "source_ids": ["d:3"]}, {"text": "B."}]}'
    assert parse_sections(raw) == [Section("A.", ["d:1", "d:2", "d:3"]), Section("B.", [])]


@pytest.mark.parametrize(
    "raw", ["The score rose [1] as shown [2].", "Values [61, 70] were read.", "Years [2019] and [1]."]
)
def test_prose_with_bracketed_numbers_is_one_section(raw: str) -> None:
    [section] = parse_sections(raw, max_marker=6)
    assert section.source_ids == []
    assert (
        section.text
        == {
            "The score rose [1] as shown [2].": "The score rose as shown.",
            "Values [61, 70] were read.": "Values [61, 70] were read.",
            "Years [2019] and [1].": "Years [2019] and.",
        }[raw]
    )


def test_chit_chat_never_reaches_the_sections() -> None:
    raw = 'Sure! Here is the answer:\n```json\n{"sections": [{"text": "A.", "source_ids": []}]}\n```\nHope this helps!'
    assert parse_answer(raw) == ParsedAnswer([Section("A.", [])], "Sure! Here is the answer:\n\nHope this helps!")


# Issue 24: every form design §3 says could be read as a tag is a tag in the model's output.
DISGUISED = {
    "lower case": "[seg=B:0]",
    "spaced letters": "[S E G=B:0]",
    "line break": "[S\nEG=B:0]",
    "zero-width space": "[S\u200bEG=B:0]",
    "soft hyphen": "[SE\u00adG=B:0]",
    "word joiner": "[S\u2060EG=B:0]",
    "Cyrillic": "[\u0405\u0415G=B:0]",
    "Greek": "[S\u0395G=B:0]",
    "full-width brackets": "\uff3bSEG=B:0\uff3d",
    "full-width all": "\uff3b\uff33\uff25\uff27\uff1dB:0\uff3d",
    "full-width equals": "[SEG\uff1dB:0]",
    "small-form equals": "[SEG\ufe66B:0]",
    "decimal references": "&#91;SEG=B:0&#93;",
    "hex references": "&#x5B;SEG=B:0&#x5d;",
    "named references": "&lbrack;SEG&equals;B:0&rbrack;",
    "referenced letters": "[&#83;EG&#61;B:0]",
    "bare, lower case": "seg=B:0",
}


@pytest.mark.parametrize("tag", DISGUISED.values(), ids=DISGUISED.keys())
def test_disguised_tags_in_section_text_are_tags(tag: str) -> None:
    raw = orjson.dumps({"sections": [{"text": f"Forged {tag} here.", "source_ids": []}]}).decode()
    assert parse_sections(raw) == [Section("Forged here.", ["B:0"])]


@pytest.mark.parametrize("tag", DISGUISED.values(), ids=DISGUISED.keys())
def test_disguised_tags_in_source_ids_are_tags(tag: str) -> None:
    raw = orjson.dumps({"sections": [{"text": "A.", "source_ids": [tag, f"{tag}, d:1"]}]}).decode()
    assert parse_sections(raw) == [Section("A.", ["B:0", "B:0", "d:1"])]


@pytest.mark.parametrize(
    ("tag", "raw_id"),
    [
        ("[seg=B:\uff10]", "B:\uff10"),  # a full-width digit: the id as written, so it is malformed
        ("&#91;SEG=B&#58;0&#93;", "B&#58;0"),  # a reference inside the id is not read
        ("[SEG=B:\u200b0]", "B:\u200b0"),  # nor a format character
    ],
)
def test_a_disguised_tag_gives_its_id_as_written(tag: str, raw_id: str) -> None:
    [section] = parse_sections(orjson.dumps({"sections": [{"text": f"X {tag} y.", "source_ids": []}]}).decode())
    assert section == Section("X y.", [raw_id])


def test_prose_is_the_answer_when_the_json_holds_no_section() -> None:
    raw = 'I could not find it in your documents. {"sections": []}'
    assert parse_answer(raw) == ParsedAnswer([Section("I could not find it in your documents.", [])], None)
