"""OCR with Tesseract (Debian's `tesseract-ocr`), run as a program: its TSV output gives each word with its box
and confidence, numbered by block, paragraph and line, which map one to one onto Document AI's blocks,
paragraphs, lines and tokens.

Why Tesseract rather than RapidOCR (rapidocr-onnxruntime, whose models ship in its wheel): on the ten real scans
of the fixtures (bench/bench_parse.py, one core) Tesseract read 0.80 of Document AI's words (0.80 of its
character trigrams) in 0.83 CPU s a page, RapidOCR 0.58 (0.74) in 3.3 s; Tesseract gives word boxes and
blocks, paragraphs and lines, where RapidOCR gives line boxes only (and joins words: "NameAmount"); and it is
a distribution package of ~20 MB with its English model (RapidOCR brings ~280 MB of onnxruntime and OpenCV).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess

from PIL import Image

from parse.errors import ParseError
from parse.layout import Block, Line, PageLayout, Paragraph, Word

INSTALL_HINT = "install Tesseract (Debian/Ubuntu: apt-get install tesseract-ocr)"
# Tesseract reads text best at ~300 dpi; a page is given to it at about this many pixels (a letter page at
# ~190 dpi), bounded so that a page takes at most a few seconds on one core.
OCR_PIXELS = 3_500_000
_TIMEOUT_S = 120
_MISSING_LANGUAGE = re.compile(r"Failed loading language '([^']+)'")
_ROTATE = re.compile(r"^Rotate: (\d+)", re.MULTILINE)
_ORIENTATION_CONFIDENCE = re.compile(r"^Orientation confidence: ([\d.]+)", re.MULTILINE)
# Sauvola's local thresholding (2) rather than Otsu's global one (0): a photo with shadows or a dark background
# (a receipt on a desk) keeps its text; measured by bench/bench_parse.py on the fixtures' scans.
THRESHOLDING = 2


def tesseract_available() -> bool:
    return shutil.which("tesseract") is not None


def ocr_page(
    image: Image.Image, *, languages: str = "eng", where: str = "a page", thresholding: int = THRESHOLDING
) -> PageLayout:
    """The words Tesseract reads on `image`, grouped as it groups them; boxes normalized to the image.
    `where` names the page in errors ("page 3")."""
    threshold = f"thresholding_method={thresholding}"
    done = _tesseract(image, ["-l", languages, "--psm", "3", "-c", threshold, "tsv"], where)
    stderr = done.stderr.decode(errors="replace")
    # With one of several languages missing, Tesseract says so and goes on with the others: refuse, as asked.
    if done.returncode != 0 or _MISSING_LANGUAGE.search(stderr):
        raise ParseError(_failure(stderr, done.returncode, where))
    return _layout(done.stdout.decode("utf-8", errors="replace"), image.width, image.height)


def orientation(image: Image.Image, *, where: str = "a page") -> tuple[int, float] | None:
    """Tesseract's orientation detection (`--psm 0`, with osd.traineddata, which Debian's tesseract-ocr depends on):
    the turn (degrees counterclockwise, as PIL's `rotate`: 0, 90, 180 or 270) that sets the page upright, and how
    sure it is (Tesseract's confidence: above ~2 it is right on the fixtures' pages turned every way). None where
    it cannot tell: too few letters (a label, a line of handwriting), or no orientation data installed."""
    done = _tesseract(image, ["--psm", "0"], where)
    report = done.stdout.decode(errors="replace")
    turn, sure = _ROTATE.search(report), _ORIENTATION_CONFIDENCE.search(report)
    if done.returncode != 0 or turn is None or sure is None:
        return None
    return (360 - int(turn.group(1))) % 360, float(sure.group(1))  # Tesseract says how far to turn it clockwise


def _tesseract(image: Image.Image, arguments: list[str], where: str) -> subprocess.CompletedProcess[bytes]:
    """Tesseract run on the image (given as a PGM on stdin: no compression to spend time on)."""
    executable = shutil.which("tesseract")
    if executable is None:
        raise ParseError(f"{where} has no text layer and OCR needs Tesseract, which is not installed: {INSTALL_HINT}")
    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="PPM")
    # One thread: a worker runs one page per core; Tesseract's own threads only contend with the others.
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        return subprocess.run(
            [executable, "stdin", "stdout", *arguments],
            input=buffer.getvalue(),
            capture_output=True,
            env=env,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ParseError(f"OCR of {where} took over {_TIMEOUT_S} s: the image may not be a document") from None
    except OSError as exc:  # found on PATH but cannot run (permissions, a broken install)
        reason = f"OCR of {where} failed: Tesseract cannot be started ({exc.strerror})"
        raise ParseError(f"{reason}: {INSTALL_HINT}") from None


def _failure(stderr: str, status: int, where: str) -> str:
    """Tesseract's reason, without its paths: a missing language pack names the package to install."""
    missing = _MISSING_LANGUAGE.findall(stderr)
    if missing:
        packages = " ".join(f"tesseract-ocr-{language}" for language in missing)
        names = ", ".join(missing)
        return (
            f"OCR needs Tesseract's language data for {names}: install it (Debian/Ubuntu: apt-get install {packages})"
        )
    return f"OCR of {where} failed (Tesseract exit status {status}): the image may be damaged"


def _layout(tsv: str, width: int, height: int) -> PageLayout:
    """Tesseract's TSV (level, page, block, paragraph, line, word, left, top, width, height, conf, text)."""
    blocks: dict[int, dict[int, dict[int, list[Word]]]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5":
            continue
        text = cells[11].strip()
        if not text:
            continue
        block, paragraph, line = int(cells[2]), int(cells[3]), int(cells[4])
        left, top, w, h = (int(v) for v in cells[6:10])
        box = (left / width, top / height, min(1.0, (left + w) / width), min(1.0, (top + h) / height))
        confidence = max(0.0, min(1.0, float(cells[10]) / 100))
        blocks.setdefault(block, {}).setdefault(paragraph, {}).setdefault(line, []).append(Word(text, box, confidence))
    return PageLayout(
        [
            Block([Paragraph([Line(words) for words in lines.values()]) for lines in paragraphs.values()])
            for paragraphs in blocks.values()
        ],
        ocr=True,
    )
