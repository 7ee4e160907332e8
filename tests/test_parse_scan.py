"""Photos and scans read by the local parser (issue 43): a page turned a quarter, upside down or askew is read
upright and level, its page image stored upright with the boxes on it; a bordered table's cells are read; a page
where OCR reads nothing says so about the file. Pictures the tests draw with Pillow (known words at known places),
and a real page image of the fixtures turned upside down."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import orjson
import pytest
from PIL import Image, ImageDraw, ImageFont
from test_view import browser  # noqa: F401 (the fixture: Debian's Chromium through Playwright)

import parse
from ingest import build_segments

pytestmark = pytest.mark.skipif(
    not parse.tesseract_available(), reason="no tesseract on PATH (`apt-get install -y tesseract-ocr`; .ci/run does)"
)

LINES = [
    "Harbor Supplies Ltd",
    "Invoice number 4471 for rope and anchors",
    "Delivered to the western pier in March",
    "Payment within thirty days of delivery",
]
WIDTH, HEIGHT, LEFT, TOP, SIZE, STEP = 1400, 900, 90, 120, 40, 90


def page_picture() -> tuple[Image.Image, dict[str, tuple[float, float, float, float]]]:
    """A landscape page of LINES in black on white, and each word's box (normalized) where it was drawn."""
    font = ImageFont.load_default(size=SIZE)
    picture = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(picture)
    boxes = {}
    for number, line in enumerate(LINES):
        x, y = LEFT, TOP + number * STEP
        for word in line.split():
            x0, y0, x1, y1 = draw.textbbox((x, y), word, font=font)
            draw.text((x, y), word, font=font, fill="black")
            boxes[word] = (x0 / WIDTH, y0 / HEIGHT, x1 / WIDTH, y1 / HEIGHT)
            x = x1 + draw.textlength(" ", font=font)
    return picture, boxes


def as_png(picture: Image.Image) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def words_read(shards: list[dict]) -> dict[str, tuple[float, float, float, float]]:
    """Each word the parser read (its first place), with its box on the stored page image."""
    out = {}
    for shard in shards:
        for page in shard["pages"]:
            for token in page["tokens"]:
                (segment,) = token["layout"]["textAnchor"]["textSegments"]
                word = shard["text"][int(segment.get("startIndex", 0)) : int(segment["endIndex"])].strip()
                vertices = token["layout"]["boundingPoly"]["normalizedVertices"]
                xs, ys = [v["x"] for v in vertices], [v["y"] for v in vertices]
                out.setdefault(word, (min(xs), min(ys), max(xs), max(ys)))
    return out


def stored_image(shard: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(shard["pages"][0]["image"]["content"])))


@pytest.mark.parametrize("turn", [0, 90, 180, 270])
def test_a_turned_photo_is_read_upright_with_its_boxes_on_the_upright_page(turn: int) -> None:
    picture, drawn = page_picture()
    shards = list(parse.parse_local(as_png(picture.rotate(turn, expand=True))))
    read = words_read(shards)
    missed = [w for w in drawn if w not in read]
    assert len(missed) <= 2, (missed, sorted(read))
    image = stored_image(shards[0])
    assert image.width > image.height  # stored upright: landscape, as drawn
    dimension = shards[0]["pages"][0]["dimension"]
    assert (dimension["width"], dimension["height"]) == image.size
    for word in ("Harbor", "anchors", "thirty"):
        assert all(abs(a - b) < 0.02 for a, b in zip(read[word], drawn[word], strict=True)), (word, read[word])


@pytest.mark.parametrize("angle", [-5, 4])
def test_an_askew_photo_is_levelled(angle: int) -> None:
    picture, drawn = page_picture()
    askew = picture.rotate(angle, expand=True, fillcolor="white", resample=Image.Resampling.BICUBIC)
    shards = list(parse.parse_local(as_png(askew)))
    read = words_read(shards)
    assert sum(w in read for w in drawn) >= len(drawn) - 2, sorted(read)
    # Level lines: each line's words share a band as high as the font, where a line 1,100 pixels long askew by
    # 4 degrees spans 77 pixels more.
    page = shards[0]["pages"][0]
    height = page["dimension"]["height"]
    for line in page["lines"]:
        ys = [v["y"] for v in line["layout"]["boundingPoly"]["normalizedVertices"]]
        assert (max(ys) - min(ys)) * height < 1.6 * SIZE, line


def test_a_real_page_photographed_upside_down_is_read(docai_real_dir: Path) -> None:
    document = orjson.loads((docai_real_dir / "invoice_parser_1p.json").read_bytes())
    with Image.open(io.BytesIO(base64.b64decode(document["pages"][0]["image"]["content"]))) as image:
        upside_down = image.convert("RGB").rotate(180)
    shards = list(parse.parse_local(as_png(upside_down)))
    text = "".join(shard["text"] for shard in shards)
    expected = re.findall(r"\w+", document["text"].lower())
    found = set(re.findall(r"\w+", text.lower()))
    assert sum(w in found for w in expected) >= 0.85 * len(expected)
    segments = build_segments([orjson.dumps(s) for s in shards], "upside-down")
    assert segments and {s.page_idx for s in segments} == {0}


@pytest.mark.parametrize("angle", [90, 6], ids=["sideways", "askew"])
def test_a_real_receipt_photographed_sideways_or_askew_is_read(docai_real_dir: Path, angle: int) -> None:
    """A receipt photographed on a dark desk: its edges and its barcode run down the page, which must neither hide
    how far its lines lean nor which way is up (each turn is tried from the page as it came)."""
    document = orjson.loads((docai_real_dir / "expense_parser_1p.json").read_bytes())
    with Image.open(io.BytesIO(base64.b64decode(document["pages"][0]["image"]["content"]))) as image:
        turned = image.convert("RGB").rotate(angle, expand=True, fillcolor="white")
    text = "".join(shard["text"] for shard in parse.parse_local(as_png(turned)))
    expected = re.findall(r"\w+", document["text"].lower())
    found = set(re.findall(r"\w+", text.lower()))
    assert sum(w in found for w in expected) >= 0.85 * len(expected), text
    assert "544.99" in text and "Sales Tax" in text


def test_a_bordered_tables_cells_are_read(docai_real_dir: Path) -> None:
    """Tesseract took the grid of this invoice's table for a picture ("fomoecmion Jounin [ewe imam"): without its
    rules, every row is read."""
    document = orjson.loads((docai_real_dir / "invoice_toolbox_test0_1p.json").read_bytes())
    image = base64.b64decode(document["pages"][0]["image"]["content"])
    text = " ".join("".join(shard["text"] for shard in parse.parse_local(image)).split())
    for value in ("Item Description", "Resource C", "$12.00", "$600.00", "Subtotal", "$2000.00", "$2140.00"):
        assert value in text, (value, text)


def test_small_text_is_read_larger() -> None:
    """A small photo (a label, a card) whose capitals are 7 pixels high: read as it is, half its words are lost."""
    picture, drawn = page_picture()
    small = picture.resize((WIDTH * 2 // 9, HEIGHT * 2 // 9), Image.Resampling.LANCZOS)
    read = words_read(list(parse.parse_local(as_png(small))))
    assert sum(w in read for w in drawn) >= len(drawn) - 1, sorted(read)


def _blank_tiff(pages: int) -> bytes:
    frames = [Image.new("L", (600, 800), 255) for _ in range(pages)]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="TIFF", save_all=True, append_images=frames[1:])
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (as_png(Image.new("RGB", (1200, 900), "white")), "page 1"),
        (as_png(Image.effect_noise((1200, 900), 20).point(lambda v: 255 if v > 60 else 200)), "page 1"),
        (_blank_tiff(3), "any of its 3 pages"),
    ],
    ids=["blank", "paper-grain", "three-blank-pages"],
)
def test_a_picture_where_ocr_reads_nothing_says_so(data: bytes, where: str) -> None:
    with pytest.raises(parse.ParseError) as caught:
        list(parse.parse_local(data))
    assert str(caught.value).startswith(f"no text could be read on {where}: OCR found no words, upright or turned")


def test_a_turned_photos_page_shows_upright_with_the_quote_highlighted(
    browser,  # noqa: F811 (test_view's fixture)
    docai_real_dir: Path,
    tmp_path: Path,
) -> None:
    """`segcite view` of an answer over a photo taken upside down: the page image it stored (upright, a PNG of a few
    colors) is shown with the cited line's box where the line is (test_view's browser checks, within a pixel)."""
    from test_view import check_in_browser, offline_view

    from worker.view import render_view

    document = orjson.loads((docai_real_dir / "invoice_parser_1p.json").read_bytes())
    with Image.open(io.BytesIO(base64.b64decode(document["pages"][0]["image"]["content"]))) as image:
        upside_down = image.convert("RGB").rotate(180)
    (shard,) = parse.parse_local(as_png(upside_down))
    source = tmp_path / "photo.json"
    source.write_bytes(orjson.dumps(shard))
    segments = build_segments(source.read_bytes(), "photo")
    cited = next(s for s in segments if s.kind == "field" and s.text.startswith("Balance Due"))
    view, citations = offline_view(source, "What is the balance due?", [(cited.text, cited.segment_index)])
    assert [c["citation_status"] for c in citations] == ["cited"]
    boxes = citations[0]["boxes"]  # the label's and the value's: top right, where the upright page has them
    assert len(boxes) == 2 and all(box["x0"] > 0.5 and 0.15 < box["y0"] < 0.25 for box in boxes), boxes
    html_file = tmp_path / "answer.html"
    html_file.write_text(render_view(view), encoding="utf-8")
    check_in_browser(browser, html_file, citations).close()


def test_without_orientation_data_each_turn_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tesseract installed without its `osd` data (a build other than Debian's, whose tesseract-ocr depends on
    tesseract-ocr-osd): orientation detection cannot run, and each turn is read instead."""
    from parse.ocr import orientation

    picture, drawn = page_picture()
    upside_down = picture.rotate(180)
    assert orientation(upside_down)[0] == 180  # with Debian's data it tells
    found = [p for p in Path("/usr/share/tesseract-ocr").glob("*/tessdata") if (p / "eng.traineddata").is_file()]
    if not found:
        pytest.skip("Tesseract's data is not where Debian puts it (/usr/share/tesseract-ocr/*/tessdata)")
    tessdata = found[0]
    for name in ("eng.traineddata", "configs"):  # everything but osd.traineddata
        (tmp_path / name).symlink_to(tessdata / name)
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    assert orientation(upside_down) is None
    read = words_read(list(parse.parse_local(as_png(upside_down))))
    assert sum(w in read for w in drawn) >= len(drawn) - 2, sorted(read)
