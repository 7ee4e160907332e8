"""Issue 24: in the model's output, whatever design §3 says could be read as a SEG tag is a tag, in section text
and in `source_ids`: removed from the text, its id counted for the section and checked as strictly as any. Through
the payload (`query.build_answer`) and the streaming path (`stream_reply` with the worker's `StreamedSections`)."""

from __future__ import annotations

import orjson
import pytest

from ingest import Segment, contains_seg_tag
from query import build_answer
from worker.answers import StreamedSections, shown_tail
from worker.streaming import stream_reply

BOILER = Segment("B", 0, 0, "paragraph", "The boiler was installed in 2011 and serviced in 2023.", 0, 54, None)
ROOF = Segment("B", 1, 0, "paragraph", "The roof was replaced in 2019 with slate tiles.", 55, 102, None)
CONTEXT = [BOILER, ROOF]
WORKSPACE = {s.segment_id: s for s in CONTEXT}
CLAIM = "The boiler was installed in 2011"

FORMS = {
    "plain": "[SEG={id}]",
    "lower case": "[seg={id}]",
    "spaced letters": "[S E G={id}]",
    "line break": "[S\nE G = {id}]",
    "zero-width space": "[S\u200bEG={id}]",
    "soft hyphen and joiner": "[SE\u00adG\u200d={id}]",
    "Cyrillic": "[\u0405\u0415G={id}]",
    "Greek": "[S\u0395G={id}]",
    "full-width brackets": "\uff3bSEG={id}\uff3d",
    "full-width all": "\uff3b\uff33\uff25\uff27\uff1d{id}\uff3d",
    "small-form equals": "[SEG\ufe66{id}]",
    "decimal references": "&#91;SEG={id}&#93;",
    "hex references": "&#x5B;SEG={id}&#x5D;",
    "named references": "&lbrack;SEG&equals;{id}&rbrack;",
    "referenced letters": "[&#83;&#x45;G={id}]",
    "bare": "SEG={id}",
    "bare, lower case": "seg={id}",
}


def payload_for(text: str, source_ids: list[str]) -> dict:
    raw = orjson.dumps({"sections": [{"text": text, "source_ids": source_ids}]}).decode()
    return build_answer(raw, context=CONTEXT, workspace=WORKSPACE)


def assert_shows_no_tag(payload: dict, tag: str) -> None:
    """No tag, and nothing of the written one, in what a user reads: content, sections, snippets, quotes."""
    shown = {k: v for k, v in payload["metadata"].items() if k != "raw_output"}
    for text in (payload["content"], orjson.dumps(shown).decode()):
        assert not contains_seg_tag(text)
        assert tag not in text and "SEG" not in text.upper().replace("SEGMENT", "")
        assert "&#" not in text and "&lbrack;" not in text and "\uff3b" not in text


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_a_tag_in_section_text_cites_its_segment(form: str) -> None:
    tag = form.format(id="B:0")
    payload = payload_for(f"{CLAIM} {tag}.", [])
    [section] = payload["metadata"]["sections"]
    assert (section["source_ids"], section["citation_status"], section["citation_error"]) == (["B:0"], "cited", None)
    assert payload["content"] == f"{CLAIM} [1]."
    assert [(c["segment_id"], c["method"]) for c in payload["metadata"]["citations"]] == [("B:0", "source_id")]
    assert_shows_no_tag(payload, tag)


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_a_tag_in_source_ids_cites_its_segment(form: str) -> None:
    tag = form.format(id="B:0")
    payload = payload_for(f"{CLAIM}.", [tag])
    [section] = payload["metadata"]["sections"]
    assert (section["source_ids"], section["citation_status"], section["citation_error"]) == (["B:0"], "cited", None)
    assert payload["content"] == f"{CLAIM} [1]."
    assert_shows_no_tag(payload, tag)


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
@pytest.mark.parametrize(
    ("written", "error"),
    [
        ("B:\uff10", "malformed id 'B:\uff10'"),  # a full-width digit is not mended into `B:0`
        ("Z:9", "unknown segment Z:9"),  # a hallucinated id
    ],
)
def test_the_id_of_a_disguised_tag_is_checked_strictly(form: str, written: str, error: str) -> None:
    for text, ids in ((f"{CLAIM} {form.format(id=written)}.", []), (f"{CLAIM}.", [form.format(id=written)])):
        payload = payload_for(text, ids)
        [section] = payload["metadata"]["sections"]
        assert section["source_ids"] == [written]
        assert section["citation_error"] == f"{error}; matched by text instead"
        assert section["citation_status"] == "matched"  # the claim's own words still find the boiler
        assert payload["content"] == f"{CLAIM} [1]."
        assert [c["method"] for c in payload["metadata"]["citations"]] == ["text_match"]


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_the_streaming_path_reads_the_same_tags(form: str) -> None:
    tag = form.format(id="B:0")
    roof = form.format(id="B:1")
    reply = orjson.dumps(
        {
            "sections": [
                {"text": f"{CLAIM} {tag}.", "source_ids": []},
                {"text": "The roof was replaced in 2019.", "source_ids": [roof]},
            ]
        }
    ).decode()
    deltas: list[dict] = []
    stream_reply(pieces(reply, 3), StreamedSections(CONTEXT, WORKSPACE).resolve, deltas.append)
    final = deltas[-1]["sections"]
    assert [s["content"] for s in final] == [f"{CLAIM} [1].", "The roof was replaced in 2019 [2]."]
    assert [[c["segment_id"] for c in s["citations"]] for s in final] == [["B:0"], ["B:1"]]
    assert [s["citation_status"] for s in final] == ["cited", "cited"]
    for delta in deltas:  # as the worker sends them: the partial section's text too
        shown = orjson.dumps({**delta, "tail": shown_tail(delta["tail"])}).decode()
        assert not contains_seg_tag(shown) and tag not in shown
    assert payload_for(f"{CLAIM} {tag}.", [])["content"] == final[0]["content"]  # as the final answer says
