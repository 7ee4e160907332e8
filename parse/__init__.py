"""Pure: a PDF or an image (bytes) -> Document AI JSON, offline: the `local` parser (design §3a). No storage, no
Celery, no settings: the caller passes limits in and writes the shards out.

- `detect_kind(data) -> str | None`: "pdf", "png", "jpeg", "tiff", "gif", "bmp" or "webp" by the first bytes;
  None for anything else (Document AI JSON, text).
- `page_count(data) -> int`: pages of a PDF, frames of a TIFF (1 for other images), without rendering anything:
  the limit check before any call. Raises `ParseError` as below.
- `pdf_pages(data, start, stop) -> bytes`: pages [start, stop) (0-based) as a new PDF (Document AI's online
  requests take 15 pages at most).
- `parse_local(data, *, pages_per_shard=15, max_pages=2000, on_page=None, ocr_languages="eng")`: checks the
  file and its page count first (raising at the call), then returns an iterator of Document AI JSON shards
  (dicts, camelCase as the API's JSON: `text`, `pages[]` with `pageNumber`, `dimension` in pixels of the page
  image, `layout`, `blocks`, `paragraphs`, `lines`, `tokens` with text anchors and normalized bounding polys,
  `image` {content (base64), mimeType, width, height} of at most ~1.5 megapixels (text and line art as a PNG of
  at most 32 colors, photos and scans as a JPEG), and `shardInfo` {shardIndex, shardCount, textOffset} as
  strings). Pages are read one at a time; `on_page(done, total)` is called after each. PDF pages with a text layer
  are read by pypdfium2, other pages and images by Tesseract (parse.ocr.scan: levelled, set upright, without their
  ruled lines, small text read larger; the page image is the upright picture), whose pages also get `formFields`
  and `tables` read from where the words are (parse.ocr.forms), as Document AI's Form Parser gives them.
- `ParseError`: one line a user can act on, naming no internal path: not a PDF or an image, an encrypted,
  corrupt or empty PDF, an image over 40 megapixels, more pages than `max_pages`, Tesseract or one of its
  language packs missing (naming the package to install), a page OCR cannot read, a file where OCR reads no word
  at all ("no text could be read on page 1: …").
- `check_page_limit(count, max_pages)`: the ParseError of the page limit (for a parser that counts pages
  itself, as the Document AI path does with `page_count`); `DEFAULT_MAX_PAGES` (2000),
  `DEFAULT_PAGES_PER_SHARD` (15: Document AI's online limit).
- `IMAGE_KINDS`: the kinds of `detect_kind` that are images; `NOT_SUPPORTED`: the message for anything else.
- `tesseract_available()`: whether OCR can run here (`tesseract` on PATH).

`segcite ingest` / `ingest.build_segments` read the shards as they read Document AI's.
PDFium is not thread-safe: parse in one thread per process at a time (Celery's prefork pool does); OCR runs
Tesseract as a child process on one core (OMP_THREAD_LIMIT=1).
"""

from parse.errors import ParseError
from parse.kinds import IMAGE_KINDS, detect_kind
from parse.local import (
    DEFAULT_MAX_PAGES,
    DEFAULT_PAGES_PER_SHARD,
    NOT_SUPPORTED,
    check_page_limit,
    page_count,
    parse_local,
)
from parse.ocr import tesseract_available
from parse.pdf import pdf_pages

__all__ = [
    "DEFAULT_MAX_PAGES",
    "DEFAULT_PAGES_PER_SHARD",
    "IMAGE_KINDS",
    "NOT_SUPPORTED",
    "ParseError",
    "check_page_limit",
    "detect_kind",
    "page_count",
    "parse_local",
    "pdf_pages",
    "tesseract_available",
]
