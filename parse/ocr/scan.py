"""A photo or a scanned page read by OCR: levelled, set upright, its small text read larger (issue 43).

1. Levelled: lines leaning up to 15 degrees (parse.ocr.skew).
2. Read as it is. A page OCR reads well (most of its characters in level words it is sure of) is done: the usual
   scan costs one pass.
3. Else set upright: Tesseract's orientation detection says which quarter turn, where it can tell (a page of
   print); where it cannot (a label, a receipt's few lines, handwriting), each other turn is read. A turn is kept
   only when it reads clearly better; Tesseract reads some text turned a quarter clockwise as vertical text, so
   only level words count (a page read sideways is set upright all the same).
4. Ruled lines taken out (parse.ocr.rules: a table's grid hides its cells from Tesseract), kept where it reads
   more.
5. Small text (words under ~20 pixels high, a small photo) read unclearly is read again at 24 pixels, and kept
   where it reads more.
Measured on the real photos and scans of the fixtures by bench/bench_ocr.py.

The page image segcite keeps is the upright, levelled picture: the boxes are on it, as a viewer draws them.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass

from PIL import Image

from parse.layout import PageLayout, Word
from parse.ocr import tesseract
from parse.ocr.rules import unruled
from parse.ocr.skew import level

READABLE = 0.7  # share of a page's characters in level words OCR is sure of, above which it is read
SURE = 0.5  # a word's confidence at which it counts as read
BETTER = 1.25  # a turn is kept when it reads this much more than the page as it came
CLEARER = 1.05  # the page without its rules is kept when it reads this much more (it reads less on some IDs)
SURE_TURN = 2.0  # Tesseract's orientation confidence above which its turn alone is tried
SMALL_TEXT = 20  # pixels: median height of the words under which the page is read again larger,
CLEAR = 0.85  # unless it reads this clearly already (a larger copy took twice the time and found nothing more)
TEXT_HEIGHT = 24  # pixels: the height small text is scaled to
MAX_SCALE = 3.0
MAX_OCR_PIXELS = 12_000_000  # a larger copy is bounded too: Tesseract's time grows with it


@dataclass(frozen=True)
class Reading:
    """What OCR read on one picture of the page."""

    image: Image.Image
    layout: PageLayout

    @functools.cached_property
    def _measured(self) -> list[tuple[Word, int, float]]:
        """Each word of three letters or digits or more: its letters and digits, and its height in pixels, or
        0.0 for a word standing on its side (taller than wide)."""
        width, height = self.image.size
        out = []
        for block in self.layout.blocks:
            for paragraph in block.paragraphs:
                for line in paragraph.lines:
                    for word in line.words:
                        letters = sum(c.isalnum() for c in word.text)
                        if letters < 3:
                            continue
                        x0, y0, x1, y1 = word.box
                        tall = (y1 - y0) * height
                        out.append((word, letters, tall if (x1 - x0) * width >= tall else 0.0))
        return out

    @functools.cached_property
    def score(self) -> float:
        """Characters read with confidence, in level words: what a better reading has more of."""
        return sum(
            letters * word.confidence for word, letters, tall in self._measured if tall and word.confidence >= SURE
        )

    @property
    def quality(self) -> float:
        """The share of its characters read with confidence in level words (0 where it read none)."""
        letters = sum(letters for _, letters, _ in self._measured)
        return self.score / letters if letters else 0.0

    @property
    def readable(self) -> bool:
        return self.quality >= READABLE

    @property
    def text_height(self) -> float | None:
        """The median height (pixels) of the level words read with confidence; None without any."""
        heights = [tall for word, _, tall in self._measured if tall and word.confidence >= SURE]
        return statistics.median(heights) if heights else None


def read_scan(image: Image.Image, *, languages: str = "eng", where: str = "a page") -> tuple[Image.Image, PageLayout]:
    """The page upright and levelled, and the words OCR reads on it (boxes normalized to that picture)."""

    def read(picture: Image.Image, ocr_input: Image.Image | None = None) -> Reading:
        """`picture` as kept, read from `ocr_input` (the same page without its rules, or larger) where given."""
        return Reading(picture, tesseract.ocr_page(ocr_input or picture, languages=languages, where=where))

    best = read(level(image))
    if not best.readable:
        as_it_came = best
        for turn in _turns(as_it_came.image, where):
            turned = read(level(as_it_came.image.rotate(turn, expand=True)))
            if turned.score > BETTER * as_it_came.score and turned.score > best.score:
                best = turned
    ocr_input = best.image
    without_rules = unruled(best.image)
    if without_rules is not None:
        clearer = read(best.image, without_rules)
        if clearer.score > CLEARER * best.score:
            best, ocr_input = clearer, without_rules
    larger = _larger(ocr_input, best.text_height) if best.quality < CLEAR else None
    if larger is not None:
        reread = read(best.image, larger)
        if reread.score > best.score:
            best = reread
    return best.image, best.layout


def _turns(image: Image.Image, where: str) -> list[int]:
    """The quarter turns worth reading: the one Tesseract's orientation detection is sure of, else all three."""
    found = tesseract.orientation(image, where=where)
    if found is not None and found[1] >= SURE_TURN:
        return [found[0]] if found[0] else []
    return [180, 90, 270]


def _larger(image: Image.Image, text_height: float | None) -> Image.Image | None:
    """The picture scaled so that its text is TEXT_HEIGHT pixels high, where it is smaller than SMALL_TEXT."""
    if text_height is None or text_height >= SMALL_TEXT:
        return None
    factor = min(TEXT_HEIGHT / text_height, MAX_SCALE, math.sqrt(MAX_OCR_PIXELS / (image.width * image.height)))
    if factor < 1.1:
        return None
    return image.resize((round(image.width * factor), round(image.height * factor)), Image.Resampling.LANCZOS)
