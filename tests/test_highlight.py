"""`segcite highlight` (issues 12, 27): each cited page drawn to scale (on its own image where the JSON carries
one), the quote's line boxes filled in."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import orjson
from PIL import Image

from ingest import build_segments, page_sizes
from ingest.page_images import page_images
from query import build_answer
from worker.highlight import HIGHLIGHT


def segcite(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worker.cli", *args], capture_output=True, text=True, timeout=60)


def test_highlight_draws_the_quote_lines_on_the_pages_own_image(docai_dir: Path, tmp_path: Path) -> None:
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
    drawn = Image.open(out / "page-2.png").convert("RGB")
    # Drawn on the page's own image (issue 27), scaled to 1000 pixels wide.
    original = next(i for i in page_images(source.read_bytes()) if i.page_idx == 1)
    page = Image.open(io.BytesIO(original.data)).convert("RGB").resize(drawn.size, Image.Resampling.LANCZOS)
    assert drawn.size == (1000, round(1000 * original.height / original.width))
    alpha = HIGHLIGHT[3] / 255
    for box in citation["boxes"]:  # inside each highlighted line: the page under translucent yellow
        x, y = int((box["x0"] + box["x1"]) / 2 * drawn.width), int((box["y0"] + box["y1"]) / 2 * drawn.height)
        under = page.getpixel((x, y))
        expected = tuple(round(p * (1 - alpha) + c * alpha) for p, c in zip(under, HIGHLIGHT[:3], strict=True))
        assert all(abs(a - b) <= 2 for a, b in zip(drawn.getpixel((x, y)), expected, strict=True)), (box, under)
    assert drawn.getpixel((2, 2)) == page.getpixel((2, 2))  # elsewhere: the page as it is


def test_highlight_draws_on_a_blank_page_of_the_documents_shape_without_an_image(
    docai_dir: Path, tmp_path: Path
) -> None:
    source = docai_dir / "invoice_to_json_default_style_symbols_1p.json"  # no page image
    segments = build_segments(source.read_bytes(), "inv")
    segment = next(s for s in segments if s.lines)
    claim = segment.text[segment.lines[0].start : segment.lines[0].end]
    reply = orjson.dumps({"sections": [{"text": claim, "source_ids": [segment.segment_id]}]}).decode()
    payload = build_answer(reply, context=[segment])
    [citation] = payload["metadata"]["citations"]
    answer = tmp_path / "answer.json"
    answer.write_bytes(orjson.dumps(payload))
    out = tmp_path / "pages"
    result = segcite("highlight", "--document", str(source), "--answer", str(answer), "--out", str(out))
    assert result.returncode == 0, result.stderr
    image = Image.open(out / f"page-{segment.page_idx + 1}.png").convert("RGB")
    width, height = page_sizes(source.read_bytes())[segment.page_idx]
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
