"""Bad input: one InvalidDocument with a message a user can act on; the CLI prints it and exits 2."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest
from docai_synth import PageSpec, build_document, shard_document

from ingest import InvalidDocument, build_segments


def doc(**fields) -> bytes:
    return orjson.dumps(fields)


GOOD, _ = build_document([PageSpec(["Alpha beta gamma."]), PageSpec(["Delta epsilon."])], with_tokens=False)
SHARDS = [orjson.dumps(s) for s in shard_document(GOOD, 1)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (b"   \n", "the file is empty"),
        (b"not json at all", "not valid JSON"),
        (b'{"text": "abc", "pages": [', "not valid JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not valid JSON"),
        (b"[1, 2]", "the JSON is an array"),
        (b'"just a string"', "the JSON is not an object"),
        (doc(document={"text": "", "pages": []}), "its `document` field: the document holds no text"),
        (doc(document=None), "its `document` field: the JSON is not an object"),
        (doc(foo=1, bar=2), "keys found: bar, foo"),
        (doc(text=""), "the document holds no text: its `text` and `pages` are empty"),
        (doc(text="", pages=[]), "the document holds no text: its `text` and `pages` are empty"),
        (
            doc(
                text="abc",
                pages=[
                    {
                        "pageNumber": 1,
                        "paragraphs": [
                            {"layout": {"textAnchor": {"textSegments": [{"startIndex": "0", "endIndex": "99"}]}}}
                        ],
                    }
                ],
            ),
            "lies outside the document text",
        ),
        (
            doc(
                text="abc",
                pages=[
                    {
                        "pageNumber": 1,
                        "paragraphs": [
                            {"layout": {"textAnchor": {"textSegments": [{"startIndex": "2", "endIndex": "1"}]}}}
                        ],
                    }
                ],
            ),
            "lies outside the document text",
        ),
        (doc(text="abc", pages="nope"), "not a Document AI Document"),
        (doc(uri="gs://x", pages=[{"pageNumber": 1}]), "holds no text"),
        (doc(text="   \n\n "), "holds no text"),
    ],
)
def test_invalid_documents(data: bytes, message: str) -> None:
    with pytest.raises(InvalidDocument) as info:
        build_segments(data, "d")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_shard() -> None:
    with pytest.raises(InvalidDocument, match=r"shard\(s\) 1 of 2 missing"):
        build_segments(SHARDS[:1], "d")


def test_duplicate_shard() -> None:
    with pytest.raises(InvalidDocument, match="shard 1 appears twice"):
        build_segments([SHARDS[0], SHARDS[1], SHARDS[1]], "d")


def test_shards_of_different_documents() -> None:
    other, _ = build_document([PageSpec(["Short."]), PageSpec(["Other."])], with_tokens=False)
    foreign = orjson.dumps(shard_document(other, 1)[1])
    with pytest.raises(InvalidDocument, match="not from one document"):
        build_segments([SHARDS[0], foreign], "d")


def test_empty_shard_list() -> None:
    with pytest.raises(InvalidDocument, match="empty list"):
        build_segments([], "d")


def test_wrong_python_type() -> None:
    with pytest.raises(InvalidDocument, match="int"):
        build_segments(42, "d")


def test_a_process_response_is_read_as_its_document() -> None:
    expected = build_segments(GOOD, "d")
    assert len(expected) == 2
    assert build_segments({"document": GOOD, "humanReviewStatus": {"state": "SKIPPED"}}, "d") == expected
    assert build_segments(doc(document=GOOD), "d") == expected


def test_cli_prints_one_line_and_exits_2(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(doc(foo=1, bar=2))
    result = subprocess.run(
        [sys.executable, "-m", "worker.cli", "segments", "bad.json", "--document-id", "x"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [  # the file as the user named it
        "error: bad.json: not a Document AI Document: no `text`, `pages` or `documentLayout` (keys found: bar, foo)"
    ]


def test_cli_prints_json_lines_for_shards(tmp_path) -> None:
    paths = []
    for i, shard in enumerate(reversed(SHARDS)):
        path = tmp_path / f"part-{i}.json"
        path.write_bytes(shard)
        paths.append(str(path))
    result = subprocess.run(
        [sys.executable, "-m", "worker.cli", "segments", *paths, "--document-id", "doc-7"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    rows = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [(r["segment_id"], r["page_idx"], r["text"]) for r in rows] == [
        ("doc-7:0", 0, "Alpha beta gamma."),
        ("doc-7:1", 1, "Delta epsilon."),
    ]
    assert set(rows[0]) == {
        "segment_id",
        "document_id",
        "segment_index",
        "page_idx",
        "kind",
        "text",
        "char_start",
        "char_end",
        "bbox",
        "lines",
    }


def test_anchor_with_several_text_segments() -> None:
    """A paragraph read from two pieces of the text (a hyphenated line break, a column jump)."""
    text = "Intro line.\nFirst half of a para\nUNRELATED FOOTER\ngraph that continues.\n"
    first, footer = text.index("First"), text.index("UNRELATED")
    second = text.index("graph")
    document = {
        "text": text,
        "pages": [
            {
                "pageNumber": 1,
                "paragraphs": [
                    {"layout": {"textAnchor": {"textSegments": [{"endIndex": str(first)}]}}},
                    {
                        "layout": {
                            "textAnchor": {
                                "textSegments": [
                                    {"startIndex": str(first), "endIndex": str(footer)},
                                    {"startIndex": str(second), "endIndex": str(len(text))},
                                ]
                            }
                        }
                    },
                ],
            }
        ],
    }
    [segment] = build_segments(document, "d", max_chars=200)
    assert segment.text == "Intro line.\nFirst half of a para\ngraph that continues."
    assert (segment.char_start, segment.char_end) == (0, len(text) - 1)


def test_split_of_a_multi_segment_paragraph_maps_offsets_to_each_piece() -> None:
    text = "AAAA. " * 10 + "XXXX" + "BBBB. " * 10
    cut = text.index("XXXX")
    document = {
        "text": text,
        "pages": [
            {
                "pageNumber": 1,
                "paragraphs": [
                    {
                        "layout": {
                            "textAnchor": {
                                "textSegments": [
                                    {"endIndex": str(cut)},
                                    {"startIndex": str(cut + 4), "endIndex": str(len(text))},
                                ]
                            }
                        }
                    }
                ],
            }
        ],
    }
    segments = build_segments(document, "d", max_chars=25)
    assert "".join(s.text for s in segments).replace(" ", "") == ("AAAA." * 10 + "BBBB." * 10)
    for s in segments:
        assert text[s.char_start : s.char_end].replace(" ", "").replace("XXXX", "") == s.text.replace(" ", "")
