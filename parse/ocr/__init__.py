"""OCR: a picture of a page -> its words, lines, paragraphs and blocks with their boxes (parse.layout).

- `tesseract`: Tesseract run as a program (its TSV; its orientation detection); `tesseract_available()`.
- `scan`: a photo or a scanned page levelled (`skew`), set upright, read without its ruled lines (`rules`), its
  small text read larger: `read_scan(image) -> (upright image, layout)`.
- `forms`: a page's form fields and tables, from where OCR found its words.
"""

from parse.ocr.scan import read_scan
from parse.ocr.tesseract import INSTALL_HINT, OCR_PIXELS, THRESHOLDING, ocr_page, orientation, tesseract_available

__all__ = ["INSTALL_HINT", "OCR_PIXELS", "THRESHOLDING", "ocr_page", "orientation", "read_scan", "tesseract_available"]
