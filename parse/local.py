"""The `local` parser: a PDF or an image -> Document AI JSON shards, offline.

A PDF page with a text layer is read by pypdfium2; a page without one, and every image, by OCR. Pages are read
one at a time and a shard is handed out as soon as its pages are done, so memory holds one shard, whatever the
length of the document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pypdfium2 as pdfium
from PIL import Image

from parse import images, ocr
from parse.docai import ShardWriter
from parse.errors import ParseError
from parse.kinds import MIME_TYPES, detect_kind
from parse.layout import PageLayout, group_paragraphs
from parse.pdf import open_pdf
from parse.text_layer import needs_ocr, text_lines

DEFAULT_PAGES_PER_SHARD = 15  # Document AI's online limit, so both parsers shard alike
DEFAULT_MAX_PAGES = 2000
_REOPEN_EVERY = 16

NOT_SUPPORTED = "not a PDF or an image (PNG, JPEG, TIFF, GIF, BMP or WEBP)"
_NOTHING_READ = (
    "no text could be read on {where}: OCR found no words, upright or turned (a blank, blurred or very small "
    "picture, or handwriting, which Document AI reads: SEGCITE_PARSER=documentai)"
)

Progress = Callable[[int, int], None]


def page_count(data: bytes) -> int:
    """Pages of a PDF or frames of an image, read cheaply (nothing rendered). Raises ParseError for what cannot be
    parsed at all: not a PDF or an image, an encrypted, corrupt or empty PDF, an image over 40 megapixels."""
    kind = detect_kind(data)
    if kind == "pdf":
        with open_pdf(data) as pdf:
            return len(pdf)
    if kind is None:
        raise ParseError(NOT_SUPPORTED)
    with images.open_image(data) as image:
        return images.frame_count(image)


def check_page_limit(count: int, max_pages: int) -> None:
    if count > max_pages:
        raise ParseError(f"the document has {count} pages, over the limit of {max_pages}: split it")


def parse_local(
    data: bytes,
    *,
    pages_per_shard: int = DEFAULT_PAGES_PER_SHARD,
    max_pages: int = DEFAULT_MAX_PAGES,
    on_page: Progress | None = None,
    ocr_languages: str = "eng",
) -> Iterator[dict[str, Any]]:
    """Document AI JSON shards of a PDF or an image, `pages_per_shard` pages each, in order.

    The checks run here, before any page is read (ParseError: not a PDF or an image, encrypted, corrupt or empty
    PDF, image over 40 megapixels, more than `max_pages` pages); a page that cannot be read raises ParseError
    while iterating. `on_page(done, total)` is called after each page. `ocr_languages`: Tesseract's `-l`."""
    if pages_per_shard < 1:
        raise ValueError("pages_per_shard must be at least 1")
    count = page_count(data)
    check_page_limit(count, max_pages)
    kind = detect_kind(data)
    pages = _pdf_pages(data, ocr_languages) if kind == "pdf" else _image_pages(data, ocr_languages)
    return _shards(pages, count, pages_per_shard, MIME_TYPES[kind or "pdf"], on_page)


def _shards(
    pages: Iterator[tuple[PageLayout, Image.Image]],
    total: int,
    pages_per_shard: int,
    mime_type: str,
    on_page: Progress | None,
) -> Iterator[dict[str, Any]]:
    shard_count = -(-total // pages_per_shard)
    writer = ShardWriter()
    text_offset = done = 0
    read_any = False
    for done, (layout, picture) in enumerate(pages, start=1):
        image = images.encode(picture)
        picture.close()
        writer.add_page(done, layout, image)
        read_any = read_any or layout.has_text
        if on_page is not None:
            on_page(done, total)
        if done == total and not read_any:  # said about the file here, never "the document holds no text" at ingest
            raise ParseError(_NOTHING_READ.format(where="page 1" if total == 1 else f"any of its {total} pages"))
        if len(writer.pages) == pages_per_shard or done == total:
            yield writer.shard(mime_type, (done - 1) // pages_per_shard, shard_count, text_offset)
            text_offset += writer.length
            writer = ShardWriter()
    if done < total:  # a TIFF whose directory counts more frames than it holds: never a silent short document
        raise ParseError(f"page {done + 1} of {total} cannot be read: the file is damaged")


def _pdf_pages(data: bytes, languages: str) -> Iterator[tuple[PageLayout, Image.Image]]:
    """Each page's words and its picture; a scan (a page with no text layer, or a stamp's worth of text over a
    page-sized picture) is read by OCR from a finer rendering.
    PDFium keeps what it rendered (fonts, images) for the life of the document, ~0.1 MB a page (measured by
    bench/bench_parse.py): the document is opened again every few pages so that memory stays flat."""
    total = page_count(data)
    for first in range(0, total, _REOPEN_EVERY):
        with open_pdf(data) as pdf:
            for index in range(first, min(total, first + _REOPEN_EVERY)):
                yield _pdf_page(pdf[index], index, languages)


def _pdf_page(page: pdfium.PdfPage, index: int, languages: str) -> tuple[PageLayout, Image.Image]:
    try:
        if not needs_ocr(page):
            return PageLayout(group_paragraphs(text_lines(page))), images.render_page(page)
        fine = images.render_page(page, ocr.OCR_PIXELS)
        upright, layout = ocr.read_scan(fine, languages=languages, where=f"page {index + 1}")
        return layout, images.fit(upright, images.PAGE_IMAGE_PIXELS)
    except pdfium.PdfiumError:
        raise ParseError(f"page {index + 1} of the PDF cannot be read: the file is damaged") from None
    finally:
        page.close()


def _image_pages(data: bytes, languages: str) -> Iterator[tuple[PageLayout, Image.Image]]:
    with images.open_image(data) as image:
        for index, frame in enumerate(images.frames(image, ocr.OCR_PIXELS)):
            where = f"page {index + 1}"
            upright, layout = ocr.read_scan(images.fit(frame, ocr.OCR_PIXELS), languages=languages, where=where)
            yield layout, images.fit(upright, images.PAGE_IMAGE_PIXELS)
