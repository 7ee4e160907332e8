"""`segcite highlight` (issue 12): each cited page drawn to scale, the quote's line boxes filled in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
from PIL import Image

from ingest import build_segments, page_sizes
from query import build_answer


def segcite(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worker.cli", *args], capture_output=True, text=True, timeout=60)


def test_highlight_draws_the_quote_lines_on_a_page_of_the_documents_shape(docai_dir: Path, tmp_path: Path) -> None:
    source = docai_dir / "invoice_parser_edf_2p_snake_case.json"
    segments = build_segments(source.read_bytes(), "edf")
    segment = next(s for s in segments if s.page_idx == 1 and s.lines and len(s.lines) >= 3)
    line = segment.lines[len(segment.lines) // 2]
    claim = segment.text[line.start : line.end]
    reply = orjson.dumps({"sections": [{"text": claim, "source_ids": [segment.segment_id]}]}).decode()
    payload = build_answer(reply, context=[segment])
    [citation] = payload["metadata"]["citations"]
    assert citation["boxes"] and citation["page_idx"] == 1
    answer = tmp_path / "answer.json"
    answer.write_bytes(orjson.dumps(payload))

    out = tmp_path / "pages"
    result = segcite("highlight", "--document", str(source), "--answer", str(answer), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [str(out / "page-2.png")]
    image = Image.open(out / "page-2.png").convert("RGB")
    width, height = page_sizes(source.read_bytes())[1]
    assert image.size == (1000, round(1000 * height / width))  # the page's own shape
    for box in citation["boxes"]:  # inside each highlighted line: yellow; the page elsewhere: white
        x, y = (box["x0"] + box["x1"]) / 2 * image.width, (box["y0"] + box["y1"]) / 2 * image.height
        red, green, blue = image.getpixel((int(x), int(y)))
        assert red > 240 and green > 220 and blue < 200, (box, (red, green, blue))
    assert image.getpixel((2, 2)) == (255, 255, 255)


def test_highlight_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text('{"content": "x", "metadata": {"citations": []}}')
    document = tmp_path / "doc.json"
    document.write_text('{"text": "x"}')
    result = segcite("highlight", "--document", str(document), "--answer", str(answer), "--out", str(tmp_path))
    assert (result.returncode, result.stderr.strip()) == (2, f"error: {answer}: the answer cites nothing")
