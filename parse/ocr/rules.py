"""A page's ruled lines (a table's grid, a form's boxes) taken out before OCR.

Tesseract takes a bordered table for a picture: on the fixtures' invoice it read the grid's cells as "fomoecmion
Jounin [ewe imam" and nothing of their values; without the rules it reads every row (bench/bench_ocr.py). A rule
is a run of ink (darker than its surroundings) at least 1/25 of the page long across, 1/15 down; letters never are.
Its pixels get the page's local background, so that no edge is left where it was.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageFilter

_INK = 25  # darker than the surroundings by this much (0..255): ink, in any light
_MIN_LENGTH = 40  # pixels: shorter runs are never rules, even on a small picture
# A rule is at least this share of the page's width (across) or height (down): a letter's stroke never is, not even
# the "l" of a logo an eighth of an inch high on a letter page (taken for a rule, "Google" was read "Googie").
_ACROSS, _DOWN = 1 / 25, 1 / 15


def _runs(ink: np.ndarray, length: int) -> np.ndarray:
    """The pixels of `ink` in runs of at least `length` along each row: the rows' opening by a line of that length
    (a window all ink, then every pixel such a window covers), with running sums."""
    if ink.shape[1] < length:
        return np.zeros_like(ink)
    sums = np.cumsum(np.pad(ink.astype(np.int32), ((0, 0), (1, 0))), axis=1)
    full = (sums[:, length:] - sums[:, :-length]) == length  # the window starting at each column is all ink
    starts = np.cumsum(np.pad(full.astype(np.int32), ((0, 0), (1, 0))), axis=1)
    column = np.arange(ink.shape[1])
    last = np.minimum(column, full.shape[1] - 1) + 1  # windows starting in (column - length, column] cover it
    first = np.maximum(column - length + 1, 0)
    return (starts[:, last] - starts[:, first]) > 0


def unruled(image: Image.Image) -> Image.Image | None:
    """The page in grayscale without its ruled lines; None when it has none."""
    gray = image.convert("L")
    pixels = np.asarray(gray, dtype=np.int16)
    ink = (np.asarray(gray.filter(ImageFilter.BoxBlur(15)), dtype=np.int16) - pixels) > _INK
    height, width = ink.shape
    rules = _runs(ink, max(_MIN_LENGTH, int(width * _ACROSS))) | _runs(ink.T, max(_MIN_LENGTH, int(height * _DOWN))).T
    if not rules.any():
        return None
    grown = rules.copy()  # a pixel more on each side: the rules' anti-aliased edges go too
    grown[1:] |= rules[:-1]
    grown[:-1] |= rules[1:]
    grown[:, 1:] |= rules[:, :-1]
    grown[:, :-1] |= rules[:, 1:]
    background = np.asarray(gray.filter(ImageFilter.BoxBlur(25)), dtype=np.int16)
    cleaned = pixels.copy()
    cleaned[grown] = np.maximum(background[grown], pixels[grown])
    return Image.fromarray(cleaned.astype(np.uint8))
