"""A PDF page's text layer (pypdfium2) -> words and lines with normalized boxes, in PDFium's reading order.

PDFium gives one character at a time with its box, and marks the line breaks and spaces it infers with generated
characters; words are runs of non-space characters, lines end at its line breaks (or where the next character
jumps back or to another baseline). Boxes are PDFium's "loose" ones (the font's ascent to descent), so the
lines of one paragraph have even heights, as OCR lines do.
"""

from __future__ import annotations

import ctypes

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parse.layout import Box, Line, Word

_SPACES = frozenset(" \t\r\n\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u3000\ufeff")
_LINE_BREAKS = frozenset("\r\n")
# PDFium's stand-ins: 0x02 for a hyphen at the end of a line (a soft hyphen), 0xFFFE / 0 for no Unicode mapping.
_STAMP_LETTERS = 50  # fewer letters than this over a page-sized picture: the picture holds the text
_SUBSTITUTES = {0x02: "-", 0x00: "", 0xFFFE: "", 0xFFFF: ""}


class PageFrame:
    """Maps PDF user-space points of one page to normalized top-left coordinates of the page as displayed
    (its crop box, turned by its /Rotate)."""

    def __init__(self, page: pdfium.PdfPage) -> None:
        left, bottom, right, top = page.get_bbox()  # the crop box
        self.left, self.top = left, top
        self.width, self.height = (right - left) or 1.0, (top - bottom) or 1.0
        self.rotation = page.get_rotation() % 360

    def box(self, left: float, bottom: float, right: float, top: float) -> Box:
        x0 = (left - self.left) / self.width
        x1 = (right - self.left) / self.width
        y0 = (self.top - top) / self.height
        y1 = (self.top - bottom) / self.height
        if self.rotation == 90:  # shown turned a quarter clockwise: (x, y) -> (1 - y, x)
            x0, y0, x1, y1 = 1 - y1, x0, 1 - y0, x1
        elif self.rotation == 180:
            x0, y0, x1, y1 = 1 - x1, 1 - y1, 1 - x0, 1 - y0
        elif self.rotation == 270:  # (x, y) -> (y, 1 - x)
            x0, y0, x1, y1 = y0, 1 - x1, y1, 1 - x0
        return (_clip(x0), _clip(y0), _clip(x1), _clip(y1))


def _clip(value: float) -> float:
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value


def needs_ocr(page: pdfium.PdfPage) -> bool:
    """Whether the page is a scan to read by OCR: no text layer, or hardly any (a scanner's stamp, a page number)
    over pictures that cover most of the page."""
    textpage = page.get_textpage()
    try:
        letters = sum(1 for char in textpage.get_text_range() if not char.isspace())
    finally:
        textpage.close()
    if letters == 0:
        return True
    if letters >= _STAMP_LETTERS:
        return False
    width, height = page.get_size()
    covered = 0.0
    for image in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=3):
        left, bottom, right, top = image.get_bounds()
        covered += max(0.0, right - left) * max(0.0, top - bottom)
    return covered >= 0.5 * width * height


def text_lines(page: pdfium.PdfPage) -> list[Line]:
    """The page's lines of words, in PDFium's order (the content stream's, with its line breaks)."""
    frame = PageFrame(page)
    textpage = page.get_textpage()
    try:
        return _lines(textpage, frame)
    finally:
        textpage.close()


def _lines(textpage: pdfium.PdfTextPage, frame: PageFrame) -> list[Line]:
    get_unicode = pdfium_c.FPDFText_GetUnicode
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    raw = textpage.raw
    lines: list[Line] = []
    words: list[Word] = []
    chars: list[str] = []
    left = bottom = right = top = 0.0  # the word's box so far
    last: tuple[float, float, float, float] | None = None  # the previous character's box on this line

    def end_word() -> None:
        nonlocal chars
        if chars:
            words.append(Word("".join(chars), frame.box(left, bottom, right, top)))
            chars = []

    def end_line() -> None:
        nonlocal words, last
        end_word()
        if words:
            lines.append(Line(words))
            words = []
        last = None

    for index in range(pdfium_c.FPDFText_CountChars(raw)):
        code = get_unicode(raw, index)
        char = _SUBSTITUTES.get(code)
        if char is None:
            char = chr(code)
        if not char:
            continue
        if char in _SPACES:
            if char in _LINE_BREAKS:
                end_line()
            else:
                end_word()
            continue
        if not get_box(raw, index, rect_ref):
            continue
        c_left, c_bottom, c_right, c_top = rect.left, rect.bottom, rect.right, rect.top
        if last is not None:
            l_left, l_bottom, l_right, l_top = last
            height = max(l_top - l_bottom, c_top - c_bottom)
            overlap = min(l_top, c_top) - max(l_bottom, c_bottom)
            # Beside the previous character by less than half the smaller one's height (a superscript keeps more),
            # or a jump back: the line ended without a break PDFium could infer.
            if overlap < 0.5 * min(l_top - l_bottom, c_top - c_bottom) or c_right < l_left - 0.5 * height:
                end_line()
            elif c_left - l_right > 0.6 * height:  # a wide gap: a new word
                end_word()
        if chars:
            left, right = min(left, c_left), max(right, c_right)
            bottom, top = min(bottom, c_bottom), max(top, c_top)
        else:
            left, bottom, right, top = c_left, c_bottom, c_right, c_top
        chars.append(char)
        last = (c_left, c_bottom, c_right, c_top)
    end_line()
    return lines
