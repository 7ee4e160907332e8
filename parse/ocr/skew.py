"""How far a page's lines of text lean (a photo or a scan taken askew), and the page levelled.

Projection profiles: the page's ink, turned by each candidate angle, is summed row by row; at the angle where the
rows run between the lines, the sums jump from full (a line) to empty (the gap under it), and the profile is at
its sharpest. Where no angle stands out (a page turned a quarter, whose lines run down it, or a photo without
text), nothing is levelled: turning a page a quarter is for the orientation to do (parse.ocr.scan).
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageFilter

MAX_SKEW = 15.0  # degrees either way; a page held at a worse angle is turned a quarter rather than levelled
MIN_SKEW = 1.5  # degrees: below it OCR reads the lines as well as levelled (bench/bench_ocr.py), and turning blurs
_SIDE = 800  # the ink is measured on a copy this long: lines stay apart, and 50 turns of it take ~0.1 s
_INK = 20  # darker than its surroundings by this much (0..255) is ink, whatever the lighting of a photo
_COARSE, _FINE = 1.0, 0.1  # degrees between the angles tried, then around the best one
# The sharpest profile, over the median one: 6 and more on the fixtures' pages upright or askew (a receipt's edges
# and barcode included), 2 to 4 on pages turned a quarter without rules.
_STANDS_OUT = 5.0


def _ink(image: Image.Image) -> Image.Image:
    """What is darker than its neighbourhood (a 25-pixel box): letters and rules, not shadows or a dark desk."""
    gray = image.convert("L")
    gray.thumbnail((_SIDE, _SIDE))
    local = np.asarray(gray.filter(ImageFilter.BoxBlur(12)), dtype=np.int16)
    ink = (local - np.asarray(gray, dtype=np.int16)) > _INK
    return Image.fromarray(ink.astype(np.uint8) * 255)


def _sharpness(ink: Image.Image, angle: float) -> float:
    """How sharp the rows' profile is with the ink turned by `angle` degrees."""
    turned = np.asarray(ink.rotate(angle, resample=Image.Resampling.NEAREST), dtype=bool)
    rows = np.diff(turned.sum(axis=1).astype(np.float64))
    return float(rows @ rows)


def skew_angle(image: Image.Image) -> float | None:
    """The angle (degrees, counterclockwise as PIL's `rotate`) that levels the page's lines; None where no angle
    stands out (its lines run down the page, or it holds none)."""
    ink = _ink(image)
    if not ink.getbbox():
        return None
    coarse = {angle: _sharpness(ink, angle) for angle in np.arange(-MAX_SKEW, MAX_SKEW + _COARSE / 2, _COARSE)}
    best = max(coarse, key=coarse.__getitem__)
    if coarse[best] < _STANDS_OUT * float(np.median(list(coarse.values()))):
        return None
    fine = {angle: _sharpness(ink, angle) for angle in np.arange(best - _COARSE, best + _COARSE, _FINE)}
    return round(float(max(fine, key=fine.__getitem__)), 1)


def level(image: Image.Image) -> Image.Image:
    """The page turned so that its lines run level (unchanged when they lean less than MIN_SKEW degrees); the
    corners the turn uncovers are white."""
    angle = skew_angle(image)
    if angle is None or abs(angle) < MIN_SKEW:
        return image
    white = 255 if image.mode == "L" else (255, 255, 255)
    return image.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=white)
