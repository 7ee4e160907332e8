"""`segcite cite`: segments as JSON lines + a raw answer -> the payload of design §5.8."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from ingest import Segment

SEGMENTS = [
    Segment("d1", 0, 0, "paragraph", "The invoice total is 500 dollars for Tool A.", 0, 45, None),
    Segment("d1", 1, 4, "table", "Service B | 1 | $900.00 | $900.00", 46, 80, None),
]


def run(tmp_path: Path, answer: str, context: list[str] | None = None) -> subprocess.CompletedProcess:
    segments = tmp_path / "s.jsonl"
    segments.write_bytes(b"\n".join(orjson.dumps(s.to_dict()) for s in SEGMENTS) + b"\n")
    (tmp_path / "a.txt").write_text(answer)
    argv = [
        sys.executable,
        "-m",
        "worker.cli",
        "cite",
        "--segments",
        str(segments),
        "--answer",
        str(tmp_path / "a.txt"),
    ]
    if context is not None:
        (tmp_path / "ids.txt").write_text("\n".join(context) + "\n")
        argv += ["--context", str(tmp_path / "ids.txt")]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def test_cite_prints_the_payload_with_pages(tmp_path: Path) -> None:
    answer = '{"sections": [{"text": "Service B costs $900.00.", "source_ids": ["d1:1"]}]}'
    result = run(tmp_path, answer)
    assert result.returncode == 0, result.stderr
    payload = orjson.loads(result.stdout)
    assert payload["content"] == "Service B costs $900.00 [1]."
    assert [(c["segment_id"], c["page_idx"], c["method"]) for c in payload["metadata"]["citations"]] == [
        ("d1:1", 4, "source_id")
    ]


def test_context_file_limits_valid_ids(tmp_path: Path) -> None:
    answer = '{"sections": [{"text": "Service B costs $900.00.", "source_ids": ["d1:1"]}]}'
    payload = orjson.loads(run(tmp_path, answer, context=["d1:0"]).stdout)
    assert payload["metadata"]["sections"][0]["citation_error"].startswith(
        "segment d1:1 was not in this question's context"
    )


def test_bad_segments_file_is_one_line(tmp_path: Path) -> None:
    result = run(tmp_path, "x", context=["nope:3"])
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'ids.txt'}: 1 id(s) not in {tmp_path / 's.jsonl'}, e.g. nope:3"
    ]
