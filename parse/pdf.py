"""Opening a PDF with pypdfium2, its page count, and a page range as a PDF of its own (for Document AI's online
limit of 15 pages a request). PDFium's errors become ParseError here, at the boundary."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parse.errors import ParseError

_PASSWORD = {pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY}
_ENCRYPTED = "the PDF is encrypted (it needs a password): save a copy without a password and upload that"
_NO_PAGES = "the PDF has no pages"
_EMPTY_PAGE_TREE = re.compile(rb"/Count\s*0(?![0-9.])")
_SOME_PAGES = re.compile(rb"/Count\s*[1-9]")


@contextmanager
def open_pdf(data: bytes) -> Iterator[pdfium.PdfDocument]:
    """The PDF, closed on exit; ParseError when it is encrypted, corrupt or has no page."""
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ParseError(_load_error(data, getattr(exc, "err_code", None))) from None
    try:
        if len(pdf) == 0:
            raise ParseError(_NO_PAGES)
        yield pdf
    finally:
        pdf.close()


def _load_error(data: bytes, code: int | None) -> str:
    """Why PDFium refused the file. Its error code is per thread and left as it was when it refuses a file
    without setting one (as it refuses an empty page tree), so the bytes confirm it: an encrypted file names
    its /Encrypt dictionary in the trailer, which is never compressed."""
    if code in _PASSWORD and b"/Encrypt" in data:
        return _ENCRYPTED
    if _EMPTY_PAGE_TREE.search(data) and not _SOME_PAGES.search(data):
        return _NO_PAGES
    return "the PDF is corrupt or not a PDF (PDFium cannot read it): export it again"


def pdf_page_count(data: bytes) -> int:
    with open_pdf(data) as pdf:
        return len(pdf)


def pdf_pages(data: bytes, start: int, stop: int) -> bytes:
    """Pages [start, stop) (0-based) of the PDF, as a new PDF."""
    with open_pdf(data) as pdf:
        count = len(pdf)
        if not 0 <= start < stop <= count:
            raise ValueError(f"page range [{start}, {stop}) outside the PDF's {count} pages")
        part = pdfium.PdfDocument.new()
        try:
            part.import_pages(pdf, pages=list(range(start, stop)))
            buffer = io.BytesIO()
            part.save(buffer)
        finally:
            part.close()
    return buffer.getvalue()
