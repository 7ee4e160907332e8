"""The offline `local` parser (issue 33, design §3a): PDFs the tests print with Chromium, where every word sits
at a known place (monospaced text, absolutely positioned), and scans of them, read by segcite's own ingest."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import orjson
import pypdfium2 as pdfium
import pytest
from conftest import segcite
from docai_fake import encrypted_pdf
from PIL import Image

import parse
from ingest import build_segments

CHROMIUM = Path("/usr/bin/chromium")
PAGE_W, PAGE_H = 816, 1056  # CSS pixels: a letter page
ADVANCE = 1233 / 2048  # DejaVu Sans Mono's advance width, in em: every word's box follows from its position
TOLERANCE = 0.02  # of the page (issue 33: boxes within 2%)


@dataclass(frozen=True)
class Placed:
    """A line of monospaced text at a known place: `left`/`top` in CSS pixels, `size` the font size."""

    page: int
    left: float
    top: float
    size: float
    text: str

    def words(self) -> list[tuple[str, tuple[float, float, float, float]]]:
        out, start = [], 0
        for word in self.text.split(" "):
            x0 = self.left + start * ADVANCE * self.size
            x1 = x0 + len(word) * ADVANCE * self.size
            out.append((word, (x0 / PAGE_W, self.top / PAGE_H, x1 / PAGE_W, (self.top + self.size) / PAGE_H)))
            start += len(word) + 1
        return out


HEADING = Placed(0, 96, 96, 40, "Quarterly Harvest Report")
LATIN = [
    HEADING,
    Placed(0, 96, 200, 20, "Apples ripen slowly in cold valleys."),
    Placed(0, 96, 232, 20, "Growers picked 4812 crates in October."),
    Placed(1, 200, 500, 20, "Zebras graze near the river at dawn."),
    Placed(1, 96, 900, 20, "Saffron costs more than silver."),
]
GREEK_CYRILLIC = Placed(0, 96, 700, 20, "Ελληνικά γράμματα και Кириллица текст")
# Flowing text on page 2: two paragraphs, the first wrapping over lines and holding a superscript.
FLOWING = [
    "Water boils at 100 degrees<sup>1</sup> at sea level, so the kettle whistles long before the pasta is ready "
    "and the cook has time to grate the cheese and set the table.",
    "A second paragraph starts here.",
]
TABLE_LEFT, TABLE_TOP, COLUMN_W, ROW_H = 96, 400, 160, 40
TABLE = [["Item", "Qty", "Price"], ["Pears", "12", "3.50"], ["Plums", "7", "2.25"]]


def _html() -> str:
    def line(p: Placed) -> str:
        style = f"left:{p.left}px;top:{p.top}px;font-size:{p.size}px;line-height:{p.size}px"
        return f'<div class="w" style="{style}">{p.text}</div>'

    rows = "".join(
        "<tr>" + "".join(f"<{'th' if r == 0 else 'td'}>{cell}</{'th' if r == 0 else 'td'}>" for cell in row) + "</tr>"
        for r, row in enumerate(TABLE)
    )
    pages = []
    for number in (0, 1):
        body = "".join(line(p) for p in [*LATIN, GREEK_CYRILLIC] if p.page == number)
        if number == 1:
            body += '<div style="position:absolute;left:96px;top:640px;width:420px;font-size:16px">'
            body += "".join(f"<p>{text}</p>" for text in FLOWING) + "</div>"
        if number == 0:
            body += f'<table style="left:{TABLE_LEFT}px;top:{TABLE_TOP}px">{rows}</table>'
        pages.append(f'<div class="page">{body}</div>')
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
@page {{ size: {PAGE_W}px {PAGE_H}px; margin: 0 }}
html, body {{ margin: 0; padding: 0; font-family: "DejaVu Sans Mono"; }}
.page {{ position: relative; width: {PAGE_W}px; height: {PAGE_H}px; overflow: hidden; break-after: page }}
.w {{ position: absolute; white-space: nowrap }}
table {{ position: absolute; border-collapse: collapse; table-layout: fixed; font-size: 20px }}
th, td {{ width: {COLUMN_W - 2}px; height: {ROW_H - 2}px; border: 1px solid black; padding: 0 8px;
  text-align: left; font-weight: normal; box-sizing: border-box; vertical-align: middle }}
</style></head><body>{"".join(pages)}</body></html>"""


def print_pdf(html: str, folder: Path) -> bytes:
    executable = CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")
    if executable is None:
        pytest.skip("no Chromium at /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it)")
    source, out = folder / "doc.html", folder / "doc.pdf"
    source.write_text(html, encoding="utf-8")
    subprocess.run(
        [str(executable), "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
         f"--print-to-pdf={out}", source.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    return out.read_bytes()


def scan(pdf: bytes, dpi: int = 200) -> bytes:
    """The PDF's pages as pictures in a PDF with no text layer, as a scanner makes."""
    document = pdfium.PdfDocument(pdf)
    pictures = [page.render(scale=dpi / 72).to_pil().convert("L") for page in document]
    out = io.BytesIO()
    pictures[0].save(out, format="PDF", resolution=dpi, save_all=True, append_images=pictures[1:])
    return out.getvalue()


@pytest.fixture(scope="session")
def text_pdf(tmp_path_factory) -> bytes:
    return print_pdf(_html(), tmp_path_factory.mktemp("parse-pdf"))


@pytest.fixture(scope="session")
def text_shards(text_pdf: bytes) -> list[dict]:
    return list(parse.parse_local(text_pdf))


@pytest.fixture(scope="session")
def needs_tesseract() -> None:
    if not parse.tesseract_available():
        pytest.skip("no tesseract on PATH (`apt-get install -y tesseract-ocr`; .ci/run installs it)")


@pytest.fixture(scope="session")
def scanned_shards(text_pdf: bytes, needs_tesseract) -> list[dict]:
    return list(parse.parse_local(scan(text_pdf)))


def tokens(shards: list[dict]) -> list[tuple[int, str, tuple[float, float, float, float]]]:
    """(page index, word, normalized box) of every token, in order; anchors resolved against the shard's text."""
    out = []
    for shard in shards:
        for page in shard["pages"]:
            for token in page["tokens"]:
                (segment,) = token["layout"]["textAnchor"]["textSegments"]
                word = shard["text"][int(segment.get("startIndex", 0)) : int(segment["endIndex"])].strip()
                vertices = token["layout"]["boundingPoly"]["normalizedVertices"]
                xs, ys = [v["x"] for v in vertices], [v["y"] for v in vertices]
                out.append((page["pageNumber"] - 1, word, (min(xs), min(ys), max(xs), max(ys))))
    return out


def assert_near(found: tuple[float, ...], expected: tuple[float, ...], what: str) -> None:
    assert all(abs(a - b) <= TOLERANCE for a, b in zip(found, expected, strict=True)), (what, found, expected)


def find(found: list, page: int, word: str, near: tuple[float, ...] = (0, 0)) -> tuple[float, float, float, float]:
    """The box of `word` on `page` (of several, the one nearest `near`'s top left)."""
    boxes = [box for p, w, box in found if p == page and w == word]
    assert boxes, f"{word!r} not read on page {page + 1}: {[w for p, w, _ in found if p == page]}"
    return min(boxes, key=lambda box: abs(box[0] - near[0]) + abs(box[1] - near[1]))


# --- text PDFs ---------------------------------------------------------------------------------------------------


def test_detect_kind_by_the_first_bytes(text_pdf: bytes) -> None:
    picture = Image.new("RGB", (8, 8), "white")

    def saved(kind: str) -> bytes:
        out = io.BytesIO()
        picture.save(out, format=kind)
        return out.getvalue()

    kinds = {kind: parse.detect_kind(saved(kind.upper())) for kind in ("png", "jpeg", "tiff", "gif", "bmp", "webp")}
    assert kinds == {kind: kind for kind in kinds}
    assert parse.detect_kind(text_pdf) == "pdf"
    assert parse.detect_kind(b'{"text": "BM", "pages": []}') is None
    assert parse.detect_kind(b'{"text": "%PDF-1.7 is the header of a PDF"}') is None
    assert parse.detect_kind(b"\xef\xbb\xbf\n%PDF-1.4\n") == "pdf"  # junk before the header, as readers allow
    assert parse.detect_kind(b"BM not a bitmap") is None


def test_words_pages_and_boxes_of_a_text_pdf(text_pdf: bytes, text_shards: list[dict]) -> None:
    assert parse.page_count(text_pdf) == 2
    (shard,) = text_shards
    assert shard["shardInfo"] == {"shardIndex": "0", "shardCount": "1", "textOffset": "0"}
    assert [p["pageNumber"] for p in shard["pages"]] == [1, 2]
    found = tokens(text_shards)
    for placed in [*LATIN, GREEK_CYRILLIC]:
        for word, box in placed.words():
            assert_near(find(found, placed.page, word, box), box, word)
    # Reading order: the heading, the lines under it, the table row by row, then page 2.
    words = [w for _, w, _ in found]
    assert words[:3] == ["Quarterly", "Harvest", "Report"]
    assert words.index("Apples") < words.index("Item") < words.index("Pears") < words.index("Plums")
    assert words.index("Plums") < words.index("Zebras")


def test_table_cells_read_row_by_row_inside_their_cells(text_shards: list[dict]) -> None:
    found = [t for t in tokens(text_shards) if t[0] == 0]
    table_words = [w for _, w, _ in found if w in {cell for row in TABLE for cell in row}]
    assert table_words == [cell for row in TABLE for cell in row]
    for r, row in enumerate(TABLE):
        for c, cell in enumerate(row):
            x0, y0, x1, y1 = find(found, 0, cell)
            left, top = (TABLE_LEFT + c * COLUMN_W) / PAGE_W, (TABLE_TOP + r * ROW_H) / PAGE_H
            assert left - TOLERANCE <= x0 < x1 <= left + COLUMN_W / PAGE_W + TOLERANCE, cell
            assert top - TOLERANCE <= y0 < y1 <= top + ROW_H / PAGE_H + TOLERANCE, cell


def test_paragraphs_of_flowing_text(text_shards: list[dict]) -> None:
    (shard,) = text_shards
    page = shard["pages"][1]

    def anchored(element: dict) -> str:
        (segment,) = element["layout"]["textAnchor"]["textSegments"]
        return shard["text"][int(segment.get("startIndex", 0)) : int(segment["endIndex"])]

    paragraphs = [" ".join(anchored(p).split()) for p in page["paragraphs"]]
    first = FLOWING[0].replace("<sup>1</sup>", "1")
    assert paragraphs[-2:] == [first, FLOWING[1]]
    lines = [anchored(line) for line in page["lines"]]
    assert len([line for line in lines if line.strip() and line.strip() in first]) >= 3  # it wraps


def test_document_ai_shape(text_shards: list[dict]) -> None:
    (shard,) = text_shards
    text = shard["text"]
    page = shard["pages"][0]
    width, height = page["dimension"]["width"], page["dimension"]["height"]
    assert page["dimension"]["unit"] == "pixels"
    assert width * height <= 1_550_000 and abs(width / height - PAGE_W / PAGE_H) < 0.01
    image = page["image"]
    assert (image["width"], image["height"], image["mimeType"]) == (width, height, "image/png")  # black on white
    assert Image.open(io.BytesIO(base64.b64decode(image["content"]))).size == (width, height)
    # Lines end in "\n" and hold their tokens; paragraphs and blocks hold whole lines; the heading is its own.
    line_texts = []
    for line in page["lines"]:
        (segment,) = line["layout"]["textAnchor"]["textSegments"]
        line_texts.append(text[int(segment.get("startIndex", 0)) : int(segment["endIndex"])])
    assert all(t.endswith("\n") for t in line_texts)
    assert line_texts[0] == HEADING.text + "\n"
    (first,) = page["paragraphs"][0]["layout"]["textAnchor"]["textSegments"]
    assert text[int(first.get("startIndex", 0)) : int(first["endIndex"])] == HEADING.text + "\n"
    assert len(page["blocks"]) == len(page["paragraphs"]) >= 4
    # The page's anchor covers the page's text exactly: page 2 starts where page 1 ends.
    (one,) = page["layout"]["textAnchor"]["textSegments"]
    (two,) = shard["pages"][1]["layout"]["textAnchor"]["textSegments"]
    assert int(one["endIndex"]) == int(two["startIndex"])
    assert int(two["endIndex"]) == len(text)


def test_page_images_text_as_a_few_colors_png_photos_as_jpeg(text_shards: list[dict]) -> None:
    """Issue 43: a page of text, with colored links or not, is a PNG of at most 32 colors (a JPEG would be three times
    its size, and blur it); a photo, gray or in color, a JPEG (32 colors would posterize it)."""
    from parse.images import encode

    stored = text_shards[0]["pages"][0]["image"]
    page = Image.open(io.BytesIO(base64.b64decode(stored["content"]))).convert("RGB")
    linked = page.copy()
    linked.paste((20, 60, 200), (96, 300, 400, 320))  # a blue link
    photo = Image.merge("RGB", [Image.effect_noise(page.size, sigma) for sigma in (40, 50, 60)])
    gray_photo = Image.effect_noise(page.size, 64)
    encoded = [encode(image) for image in (page, linked, photo, gray_photo)]
    assert [e.mime_type for e in encoded] == ["image/png", "image/png", "image/jpeg", "image/jpeg"]
    decoded = [Image.open(io.BytesIO(e.content)) for e in encoded]
    assert [d.mode for d in decoded] == ["P", "P", "RGB", "L"]
    assert all(len(d.getcolors(256) or range(257)) <= 32 for d in decoded[:2])
    assert decoded[1].convert("RGB").getpixel((200, 310)) == (20, 60, 200)  # the link keeps its color
    jpeg = io.BytesIO()
    linked.save(jpeg, format="JPEG", quality=85)  # what a color page was stored as before
    assert len(encoded[1].content) * 2 < len(jpeg.getvalue())
    assert stored["mimeType"] == "image/png"
    assert len(base64.b64decode(stored["content"])) < 0.1 * page.width * page.height


def test_ingest_gives_page_correct_segments_with_boxes_and_lines(text_shards: list[dict]) -> None:
    segments = build_segments([orjson.dumps(s) for s in text_shards], "doc")
    assert segments == build_segments(text_shards, "doc")  # bytes or dicts, the same
    by_page = {
        0: " ".join(s.text for s in segments if s.page_idx == 0),
        1: " ".join(s.text for s in segments if s.page_idx == 1),
    }
    assert set(by_page) == {s.page_idx for s in segments}
    for placed in LATIN:
        assert placed.text in by_page[placed.page]
        assert placed.text not in by_page[1 - placed.page]
    assert GREEK_CYRILLIC.text in by_page[0]
    zebras = next(s for s in segments if "Zebras" in s.text)
    assert zebras.page_idx == 1 and zebras.lines
    (line,) = [ln for ln in zebras.lines if zebras.text[ln.start : ln.end] == LATIN[3].text]
    x0, y0, _, y1 = LATIN[3].words()[0][1]
    assert_near((line.bbox.x0, line.bbox.y0, line.bbox.y1), (x0, y0, y1), "line box")
    assert zebras.bbox is not None and zebras.bbox.x0 <= line.bbox.x0 and zebras.bbox.y1 >= line.bbox.y1


def test_shards_of_a_long_pdf_carry_their_offsets(text_pdf: bytes) -> None:
    progress: list[tuple[int, int]] = []
    shards = list(parse.parse_local(text_pdf, pages_per_shard=1, on_page=lambda d, t: progress.append((d, t))))
    assert progress == [(1, 2), (2, 2)]
    assert [s["shardInfo"]["shardIndex"] for s in shards] == ["0", "1"]
    assert shards[1]["shardInfo"]["textOffset"] == str(len(shards[0]["text"]))
    assert [p["pageNumber"] for s in shards for p in s["pages"]] == [1, 2]
    # In any order, ingest puts them together as the one-shard parse.
    whole = build_segments(list(parse.parse_local(text_pdf)), "doc")
    assert build_segments([orjson.dumps(s) for s in reversed(shards)], "doc") == whole


def test_pdf_pages_cuts_a_page_range(text_pdf: bytes) -> None:
    second = parse.pdf_pages(text_pdf, 1, 2)
    assert parse.page_count(second) == 1
    words = [w for _, w, _ in tokens(list(parse.parse_local(second)))]
    assert "Zebras" in words and "Apples" not in words
    with pytest.raises(ValueError):
        parse.pdf_pages(text_pdf, 1, 3)


# --- OCR ---------------------------------------------------------------------------------------------------------


def test_ocr_of_an_image_only_pdf(text_pdf: bytes, scanned_shards: list[dict]) -> None:
    assert not any(page.get_textpage().get_text_range().strip() for page in pdfium.PdfDocument(scan(text_pdf, 100)))
    found = tokens(scanned_shards)
    for placed in LATIN:
        for word, box in placed.words():
            assert_near(find(found, placed.page, word, box), box, word)
    segments = build_segments(scanned_shards, "scan")
    assert {s.page_idx for s in segments if "Zebras" in s.text} == {1}
    assert {s.page_idx for s in segments if "Apples" in s.text} == {0}
    page = scanned_shards[0]["pages"][0]
    assert page["image"]["width"] * page["image"]["height"] <= 1_550_000
    confidences = [t["layout"]["confidence"] for t in page["tokens"]]
    assert min(confidences) >= 0 and 0.9 < max(confidences) <= 1


def test_ocr_of_images_multi_page_tiff_and_transparent_png(text_pdf: bytes, needs_tesseract) -> None:
    document = pdfium.PdfDocument(text_pdf)
    pictures = [page.render(scale=150 / 72).to_pil() for page in document]
    tiff = io.BytesIO()
    pictures[0].save(tiff, format="TIFF", save_all=True, append_images=pictures[1:])
    assert parse.page_count(tiff.getvalue()) == 2
    shards = list(parse.parse_local(tiff.getvalue()))
    assert shards[0]["mimeType"] == "image/tiff"
    found = tokens(shards)
    assert_near(find(found, 1, "Zebras"), LATIN[3].words()[0][1], "Zebras")
    assert not [w for p, w, _ in found if p == 1 and w == "Apples"]
    # A photo-sized JPEG (15 megapixels) is decoded at half its size, and its boxes are still where the words are.
    photo = io.BytesIO()
    pdfium.PdfDocument(text_pdf)[1].render(scale=400 / 72).to_pil().save(photo, format="JPEG", quality=90)
    assert Image.open(photo).width * Image.open(photo).height > 4 * 3_500_000  # drafted to a half
    from parse.images import frames

    width, height = Image.open(photo).size
    assert next(frames(Image.open(photo), 3_500_000)).size == (-(-width // 2), -(-height // 2))
    found = tokens(list(parse.parse_local(photo.getvalue())))
    assert_near(find(found, 0, "Zebras"), LATIN[3].words()[0][1], "Zebras in a JPEG")
    # Black text on a transparent background: read as a viewer shows it, on white.
    page = pictures[1].convert("L")
    transparent = Image.new("LA", page.size)
    transparent.putalpha(page.point(lambda v: 255 - v))
    png = io.BytesIO()
    transparent.save(png, format="PNG")
    assert "Zebras" in [w for _, w, _ in tokens(list(parse.parse_local(png.getvalue())))]


def test_without_tesseract_an_ocr_page_fails_with_what_to_install(text_pdf: bytes, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(parse.ParseError) as raised:
        list(parse.parse_local(scan(text_pdf, 72)))
    assert str(raised.value) == (
        "page 1 has no text layer and OCR needs Tesseract, which is not installed: "
        "install Tesseract (Debian/Ubuntu: apt-get install tesseract-ocr)"
    )


def test_a_missing_language_pack_names_the_package(text_pdf: bytes, needs_tesseract, tmp_path: Path) -> None:
    source = tmp_path / "scan.pdf"
    source.write_bytes(scan(text_pdf, 72))
    out = tmp_path / "out"
    done = segcite({"PATH": "/usr/bin:/bin"}, "parse", str(source), "--out", str(out), "--ocr-languages", "eng+xqz")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"error: {source}: OCR needs Tesseract's language data for xqz: install it "
        "(Debian/Ubuntu: apt-get install tesseract-ocr-xqz)"
    )
    assert not list(out.glob("*.json"))


# --- what is refused -------------------------------------------------------------------------------------------


def test_an_encrypted_pdf_is_refused() -> None:
    data = encrypted_pdf(b"user-secret", b"owner-secret")
    opened = pdfium.PdfDocument(data, password="user-secret")  # the file is sound: its password opens it
    assert "Secret harvest figures" in opened[0].get_textpage().get_text_range()
    message = "the PDF is encrypted (it needs a password): save a copy without a password and upload that"
    for call in (parse.page_count, parse.parse_local):
        with pytest.raises(parse.ParseError, match=r"^the PDF is encrypted") as raised:
            call(data)
        assert str(raised.value) == message
    # Encrypted with an empty user password (an owner password only), anyone can read it: so does segcite.
    words = [w for _, w, _ in tokens(list(parse.parse_local(encrypted_pdf(b"", b"owner-secret"))))]
    assert words == ["Secret", "harvest", "figures"]


def _empty_pdf() -> bytes:
    out = io.BytesIO()
    pdfium.PdfDocument.new().save(out)
    return out.getvalue()


def _cut_tiff() -> bytes:
    """A three-page TIFF cut short: its first directory promises pages it no longer holds."""
    out = io.BytesIO()
    pages = [Image.new("L", (400, 300), 255) for _ in range(3)]
    pages[0].save(out, format="TIFF", save_all=True, append_images=pages[1:])
    return out.getvalue()[: len(out.getvalue()) // 2]


def _huge_png() -> bytes:
    out = io.BytesIO()
    Image.new("L", (6500, 6400), 255).save(out, format="PNG")  # 41.6 megapixels
    return out.getvalue()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: b"%PDF-1.7\n" + bytes(range(256)) * 8,
            "the PDF is corrupt or not a PDF (PDFium cannot read it): export it again",
        ),
        (_empty_pdf, "the PDF has no pages"),
        (_huge_png, "the image is over 40 megapixels (6500 x 6400 = 41.6 megapixels): scale it down"),
        (
            lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64,
            "the image is corrupt or cannot be read (export it again as PNG or JPEG)",
        ),
        (_cut_tiff, "the image is corrupt or cannot be read (export it again as PNG or JPEG)"),
        (lambda: b'{"text": "already Document AI JSON"}', "not a PDF or an image (PNG, JPEG, TIFF, GIF, BMP or WEBP)"),
    ],
    ids=["corrupt-pdf", "zero-pages", "41-megapixels", "corrupt-png", "cut-tiff", "json"],
)
def test_what_cannot_be_parsed_is_refused_with_one_line(make, message: str) -> None:
    data = make()
    for call in (parse.page_count, parse.parse_local):
        with pytest.raises(parse.ParseError) as raised:
            call(data)
        assert str(raised.value) == message


def test_a_cut_image_is_refused_while_parsing_never_read_in_part() -> None:
    out = io.BytesIO()
    Image.effect_noise((300, 200), 50).save(out, format="JPEG")
    cut = out.getvalue()[: len(out.getvalue()) * 9 // 10]
    assert parse.page_count(cut) == 1  # the header is whole
    with pytest.raises(parse.ParseError) as raised:
        list(parse.parse_local(cut))
    assert str(raised.value) == "the image is corrupt or cannot be read (export it again as PNG or JPEG)"


def test_the_page_limit_is_checked_before_any_page_is_read(text_pdf: bytes) -> None:
    read: list[int] = []
    with pytest.raises(parse.ParseError) as raised:
        parse.parse_local(text_pdf, max_pages=1, on_page=lambda done, total: read.append(done))
    assert str(raised.value) == "the document has 2 pages, over the limit of 1: split it"
    assert read == []


# --- `segcite parse FILE --out DIR` ------------------------------------------------------------------------------


def test_segcite_parse_writes_the_shards_segcite_reads(text_pdf: bytes, tmp_path: Path) -> None:
    source, out = tmp_path / "harvest.pdf", tmp_path / "out"
    source.write_bytes(text_pdf)
    done = segcite({"PATH": "/usr/bin:/bin"}, "parse", str(source), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(out / "0001.json")]
    written = (out / "0001.json").stat().st_size
    assert 10_000 < written < 400_000  # two pages of text, their images as PNGs of a few colors
    assert done.stderr.splitlines() == [
        f"{source}: page 1/2",
        f"{source}: page 2/2",
        f"{source}: 2 page(s) in 1 shard(s) in {out}, {written / 1e3:.1f} KB written",
    ]
    assert sorted(p.name for p in out.iterdir()) == ["0001.json"]
    shown = segcite({"PATH": "/usr/bin:/bin"}, "segments", str(out), "--document-id", "harvest")
    assert shown.returncode == 0, shown.stderr
    pages = {row["page_idx"] for row in map(orjson.loads, shown.stdout.splitlines()) if "Zebras" in row["text"]}
    assert pages == {1}
    # Again: refused rather than mixed with the shards already there; --force replaces them.
    again = segcite({"PATH": "/usr/bin:/bin"}, "parse", str(source), "--out", str(out))
    assert (again.returncode, again.stderr) == (
        2,
        f"error: {out} already holds shards (0001.json, …): --force replaces them\n",
    )


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"%PDF-1.7\n" + b"\xff" * 300, "the PDF is corrupt or not a PDF (PDFium cannot read it): export it again"),
        (
            b'{"text": "x"}',
            "not a PDF or an image (PNG, JPEG, TIFF, GIF, BMP or WEBP) (Document AI JSON needs no parsing: "
            "`segcite segments` reads it)",
        ),
    ],
    ids=["corrupt", "json"],
)
def test_segcite_parse_refuses_with_one_line_and_writes_nothing(content: bytes, line: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from worker.cli import main

    source, out = tmp_path / "upload.pdf", tmp_path / "out"
    source.write_bytes(content)
    result = CliRunner().invoke(main, ["parse", str(source), "--out", str(out)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {source}: {line}\n"
    assert not out.exists() or list(out.iterdir()) == []


# --- pages of other shapes ---------------------------------------------------------------------------------------


def test_a_rotated_page_gets_boxes_on_the_page_as_shown(text_pdf: bytes) -> None:
    document = pdfium.PdfDocument(text_pdf)
    document[0].set_rotation(90)  # shown a quarter turn clockwise: (x, y) -> (1 - y, x)
    out = io.BytesIO()
    document.save(out)
    (shard,) = parse.parse_local(out.getvalue())
    page = shard["pages"][0]
    assert page["dimension"]["width"] > page["dimension"]["height"]  # landscape, as the image is
    found = tokens([shard])
    for word, (x0, y0, x1, y1) in HEADING.words():
        assert_near(find(found, 0, word, (1 - y1, x0)), (1 - y1, x0, 1 - y0, x1), word)


def test_a_blank_page_between_text_pages_keeps_the_pages_apart(text_pdf: bytes, needs_tesseract) -> None:
    document = pdfium.PdfDocument(text_pdf)
    document.new_page(612, 792, index=1).close()  # nothing on it: no text layer, so OCR reads it, and finds nothing
    out = io.BytesIO()
    document.save(out)
    (shard,) = parse.parse_local(out.getvalue())
    assert [len(page["tokens"]) for page in shard["pages"]][1] == 0
    assert shard["pages"][1]["layout"]["textAnchor"] == {}
    segments = build_segments([shard], "doc")
    assert {s.page_idx for s in segments} == {0, 2}
    assert {s.page_idx for s in segments if "Zebras" in s.text} == {2}


@pytest.mark.parametrize("source", ["text_shards", "scanned_shards"])
def test_a_claim_about_each_page_is_cited_on_that_page(source: str, request) -> None:
    """segcite's one resolution path (query.build_answer) over the parsed document: an answer stating what each
    page says, without ids, is matched to that page's segment, with boxes where the words are."""
    from query import build_answer

    segments = build_segments(request.getfixturevalue(source), "doc")
    for placed in (LATIN[1], LATIN[3]):
        answer = orjson.dumps({"sections": [{"text": placed.text, "source_ids": []}]}).decode()
        payload = build_answer(answer, context=segments)
        (citation,) = payload["metadata"]["citations"]
        assert (citation["document_id"], citation["page_idx"]) == ("doc", placed.page)
        x0, y0, _, y1 = placed.words()[0][1]
        boxes = citation["boxes"]
        assert any(abs(box["x0"] - x0) <= TOLERANCE and box["y0"] <= y1 and box["y1"] >= y0 for box in boxes)


def stamp(pdf: bytes, text: str) -> bytes:
    """The PDF with `text` written on its first page in Helvetica (as a scanner stamps a page), with PDFium."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    document = pdfium.PdfDocument(pdf)
    page = document[0]
    obj = pdfium_c.FPDFPageObj_NewTextObj(document.raw, b"Helvetica", ctypes.c_float(14))
    encoded = (text + "\0").encode("utf-16-le")
    pdfium_c.FPDFText_SetText(obj, ctypes.cast(ctypes.c_char_p(encoded), ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, 36, 20)
    pdfium_c.FPDFPage_InsertObject(page.raw, obj)
    assert pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_scan_with_a_stamp_of_text_is_read_by_ocr(text_pdf: bytes, needs_tesseract) -> None:
    stamped = stamp(scan(text_pdf), "Scanned 2026-11-27")
    assert pdfium.PdfDocument(stamped)[0].get_textpage().get_text_range().strip() == "Scanned 2026-11-27"
    found = tokens(list(parse.parse_local(stamped)))
    for word, box in LATIN[1].words():
        assert_near(find(found, 0, word, box), box, word)
    assert "Scanned" in [w for p, w, _ in found if p == 0]
    # A page of text with the same stamp is still read from its text layer.
    assert [w for p, w, _ in tokens(list(parse.parse_local(stamp(text_pdf, "Scanned"))))][:3] == HEADING.text.split()


def test_the_image_carries_the_parser_and_tesseract() -> None:
    """A wheel holds only the packages pyproject names, and the image builds one from what the Dockerfile copies:
    without either line, `segcite parse` fails on import in the image; without Tesseract, scans fail there."""
    import tomllib

    repo = Path(__file__).resolve().parent.parent
    project = tomllib.loads((repo / "pyproject.toml").read_text())
    assert "parse*" in project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert any(requirement.startswith("pypdfium2>=") for requirement in project["project"]["dependencies"])
    dockerfile = (repo / "Dockerfile").read_text()
    assert "COPY parse parse" in dockerfile.splitlines()
    assert "apt-get install -y --no-install-recommends tesseract-ocr" in dockerfile


def test_japanese_text_when_a_font_has_it(tmp_path: Path) -> None:
    if shutil.which("fc-list") is None:
        pytest.skip("no fontconfig here to find a font with Japanese glyphs (Debian: fontconfig)")
    listed = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True, check=False)
    if not listed.stdout.strip():
        pytest.skip("no font with Japanese glyphs here (Debian: fonts-ipafont-gothic; .ci/run installs it)")
    family = listed.stdout.splitlines()[0].split(",")[0]
    sentence = "東京の桜は三月に咲きます"
    html = f'<!doctype html><meta charset="utf-8"><p style="font: 24px \'{family}\'">{sentence}</p>'
    (shard,) = parse.parse_local(print_pdf(html, tmp_path))
    assert sentence in "".join(shard["text"].split())  # (whether PDFium puts spaces between ideographs or not)
    (segment,) = build_segments([shard], "ja")
    assert sentence in "".join(segment.text.split()) and segment.page_idx == 0
