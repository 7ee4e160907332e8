"""Evaluation questions (issue 32): generated from the shared real fixtures without a model, and read from a
user's JSON lines file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from evaluation import QuestionFileError, generate, holds, parse_question_lines
from evaluation.model_written import question_from_reply, sample_segments
from evaluation.questions import SegmentRef, segment_refs
from ingest import build_segments


@pytest.fixture(scope="module")
def workspace(docai_dir: Path, docai_real_dir: Path) -> list[SegmentRef]:
    """Every fixture that must ingest, as one workspace's segments (file names as documents)."""
    manifest = orjson.loads((docai_real_dir / "manifest.json").read_bytes())
    segments, names = [], {}
    inputs = [p for p in sorted(docai_dir.glob("*.json"))]
    inputs += [docai_real_dir / c["name"] for c in manifest["cases"] if c["expect"] == "ok"]
    inputs += [docai_real_dir / c["name"] for c in manifest["cases"] if c["name"].startswith("WRAPPED_")]
    for number, path in enumerate(inputs):
        data = orjson.loads(path.read_bytes())
        document_id = f"doc{number:02d}"
        names[document_id] = path.name
        segments += build_segments(data.get("document", data), document_id)
    return segment_refs(segments, names)


def test_every_generated_field_question_is_answered_by_its_document(workspace: list[SegmentRef]) -> None:
    questions = generate(workspace, 300)
    kinds = Counter(q.kind for q in questions)
    assert kinds["field"] >= 100 and kinds["table"] >= 30 and kinds["unanswerable"] >= 10, kinds
    by_segment = {s.segment_id: s for s in workspace}
    documents = {s.document for s in workspace}
    for q in questions:
        if q.kind != "field":
            continue
        origin = q.origin
        source = by_segment[origin["segment_id"]]
        assert source.document == origin["document"] and source.page_idx + 1 == origin["page"]
        assert source.text.startswith(origin["label"] + ": ")
        # Its expected value is in the segment it came from, and in the document's own text.
        document_text = "\n".join(s.text for s in workspace if s.document == source.document)
        assert any(holds(source.text, a) for a in q.expected[0]), (q, source.text)
        assert any(holds(document_text, a) for a in q.expected[0])
        assert [s.document for s in q.sources] == [source.document]
        # The document is named exactly when another document has the same label.
        label = origin["label"].casefold() + ": "
        others = {s.document for s in workspace if s.kind == "field" and s.text.casefold().startswith(label)}
        assert (source.document in q.text) == (len(others) > 1), (q.text, others)
    assert len({q.document for q in workspace}) == len(documents)


def test_table_questions_name_a_row_and_a_column_whose_cell_is_the_answer(workspace: list[SegmentRef]) -> None:
    by_segment = {s.segment_id: s for s in workspace}
    tables = [q for q in generate(workspace, 300) if q.kind == "table" and q.origin["from"] == "table"]
    assert tables
    for q in tables:
        origin = q.origin
        segment = by_segment[origin["segment_id"]]
        rows = [[c.strip() for c in line.split(" | ")] for line in segment.text.split("\n")]
        header = rows[0]
        column = header.index(origin["column"])
        row = next(r for r in rows[1:] if origin["row"] in r)
        assert q.expected == ((row[column],),)
        assert q.text == f"What is the {origin['column']} for {origin['row']} in {segment.document}?"


def test_unanswerable_probes_ask_of_what_the_workspace_does_not_hold(workspace: list[SegmentRef]) -> None:
    everything = "\n".join(s.text for s in workspace)
    probes = [q for q in generate(workspace, 300) if q.kind == "unanswerable"]
    assert probes and all(not q.answerable and not q.sources for q in probes)
    for q in probes:
        if "name" in q.origin:
            assert not holds(everything, q.origin["name"]), q.text
            assert q.origin["name"] in q.text


def test_generation_is_deterministic_spread_over_documents_and_round_trips(workspace: list[SegmentRef]) -> None:
    first, again = generate(workspace, 100, seed=3), generate(workspace, 100, seed=3)
    assert [q.to_json() for q in first] == [q.to_json() for q in again]
    assert len(first) == 100 and len({q.id for q in first}) == 100
    field_documents = {q.sources[0].document for q in first if q.kind == "field"}
    assert len(field_documents) >= 15  # one document after another, not the first documents' fields only
    lines = [orjson.dumps(q.to_json()).decode() for q in first]
    read = parse_question_lines(lines, "questions.jsonl")
    assert [(q.id, q.text, q.kind, q.expected, q.sources) for q in read] == [
        (q.id, q.text, q.kind, q.expected, q.sources) for q in first
    ]
    assert all(r.origin == q.origin for r, q in zip(read, first, strict=True))


def test_a_users_file_is_read_and_its_mistakes_named_by_line() -> None:
    lines = [
        '{"question": "What is the total?", "answers": ["$140.00", "140"], "document": "inv.json", "page": 2}',
        "",
        "# a comment",
        '{"question": "Who signed?", "unanswerable": true}',
        '{"question": "What year?", "answers": 2019}',
    ]
    total, signed, year = parse_question_lines(lines, "mine.jsonl")
    assert (total.id, total.kind, total.expected) == ("q001", "user", (("$140.00", "140"),))
    assert total.sources[0].document == "inv.json" and total.sources[0].pages == frozenset({1})
    assert not signed.answerable and signed.sources == ()
    assert year.expected == (("2019",),)
    cases = {
        "not json": "mine.jsonl, line 1: not JSON",
        '{"answers": ["x"]}': 'mine.jsonl, line 1: "question" must be a non-empty string',
        '{"question": "q?"}': 'mine.jsonl, line 1: give "answers" (a list of accepted answers) or "unanswerable": true',
        '{"question": "q?", "answers": []}': 'mine.jsonl, line 1: "answers" must be a non-empty list',
        '{"question": "q?", "answers": ["x"], "page": 0}': 'mine.jsonl, line 1: "page" is a page number from 1',
        "[1, 2]": "mine.jsonl, line 1: a question is an object",
    }
    for line, message in cases.items():
        with pytest.raises(QuestionFileError) as caught:
            parse_question_lines([line], "mine.jsonl")
        assert str(caught.value).startswith(message), (line, str(caught.value))
    with pytest.raises(QuestionFileError, match=r"mine\.jsonl: no questions in this file"):
        parse_question_lines(["", "# nothing"], "mine.jsonl")


def test_lines_of_one_conversation_are_follow_ups_and_documents_scope_a_line() -> None:
    lines = [
        '{"question": "What is the total on the Google invoice?", "answers": ["19,647.68"], "conversation": "g"}',
        '{"question": "What is the total?", "answers": ["544.99"], "documents": ["receipt.json"]}',
        '{"question": "And its tax rate?", "answers": ["10%"], "conversation": "g", "documents": "inv.json"}',
    ]
    first, alone, follow_up = parse_question_lines(lines, "mine.jsonl")
    assert (first.conversation, first.follow_up, first.documents) == ("g", False, ())
    assert (alone.conversation, alone.follow_up, alone.documents) == (None, False, ("receipt.json",))
    assert (follow_up.conversation, follow_up.follow_up, follow_up.documents) == ("g", True, ("inv.json",))
    assert follow_up.to_json() | {"id": "x"} == {
        "id": "x",
        "question": "And its tax rate?",
        "kind": "user",
        "answers": ["10%"],
        "conversation": "g",
        "follow_up": True,
        "documents": ["inv.json"],
    }
    assert parse_question_lines([orjson.dumps(q.to_json()).decode() for q in (first, follow_up)], "q")[1].follow_up
    for line, message in {
        '{"question": "q?", "answers": ["x"], "conversation": ""}': '"conversation" must be a name',
        '{"question": "q?", "answers": ["x"], "conversation": 3}': '"conversation" must be a name',
        '{"question": "q?", "answers": ["x"], "documents": []}': '"documents" must be a list of file names',
        '{"question": "q?", "answers": ["x"], "documents": [""]}': '"documents" must be a list of file names',
    }.items():
        with pytest.raises(QuestionFileError) as caught:
            parse_question_lines([line], "mine.jsonl")
        assert str(caught.value).startswith(f"mine.jsonl, line 1: {message}"), str(caught.value)


def test_a_model_written_question_is_kept_only_when_its_answer_is_in_the_passage(
    workspace: list[SegmentRef],
) -> None:
    sampled = sample_segments(workspace, 20)
    assert len(sampled) == 20 and len({s.document for s in sampled}) >= 15
    passage = SegmentRef("d:3", "inv.json", 1, "paragraph", "The balance due is $2,140.00 by 1 January 2025.")
    kept = question_from_reply('```json\n{"question": "What is due?", "answer": "$2140.00"}\n```', passage, "m")
    assert kept is not None and kept.kind == "model" and kept.expected == (("$2140.00",),)
    assert kept.origin == {"from": "model", "model": "m", "segment_id": "d:3", "document": "inv.json", "page": 2}
    assert question_from_reply('{"question": "What is due?", "answer": "$9.99"}', passage, "m") is None
    assert question_from_reply("I cannot help with that.", passage, "m") is None
    assert question_from_reply('{"question": "", "answer": "2025"}', passage, "m") is None
