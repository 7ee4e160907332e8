"""Opening a PDF with pypdfium2, its page count, and a page range as a PDF of its own (for Document AI's online
limit of 15 pages a request). PDFium's errors become ParseError here, at the boundary."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parse.errors import ParseError

_PASSWORD = {pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY}


@contextmanager
def open_pdf(data: bytes) -> Iterator[pdfium.PdfDocument]:
    """The PDF, closed on exit; ParseError when it is encrypted, corrupt or has no page."""
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) in _PASSWORD:
            raise ParseError("the PDF is encrypted (password protected): save a copy without a password") from None
        raise ParseError("the PDF is corrupt or not a PDF (PDFium cannot read it): export it again") from None
    try:
        if len(pdf) == 0:
            raise ParseError("the PDF has no pages")
        yield pdf
    finally:
        pdf.close()


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
