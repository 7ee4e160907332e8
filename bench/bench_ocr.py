"""OCR of real photos and scans (issue 43): the `local` parser on the page images that the real Document AI outputs
carry (`pages[].image`), against Document AI's own text of that page.

    python bench/bench_ocr.py [--fixtures ../shared/fixtures] [--only NAME ...]

For each distinct page image of ../shared/fixtures/docai-real/*.json and docai/*.json whose page has text: the image
bytes as a user would upload them, through `parse.parse_local` (orientation, deskew, OCR, form fields and tables),
then
- CER: character error rate, the Levenshtein distance (rapidfuzz) between the two texts normalized (NFKC, case
  folded, runs of spaces and line breaks made one space) over the length of Document AI's;
- words: the share of Document AI's words (letters or digits, with repeats) the local text holds;
- seconds: CPU seconds the page took (this process and Tesseract's, on one core).
A table per image, then totals (CER over all characters, words over all words, seconds a page).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import io
import re
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import orjson
from bench_parse import cpu_seconds, pin_one_core
from PIL import Image, UnidentifiedImageError
from rapidfuzz.distance import Levenshtein

import parse

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class FixturePage:
    """One page image of a fixture and Document AI's text of that page."""

    name: str  # `<fixture stem>` or `<fixture stem>_p2` for a later page
    image: bytes  # as stored in the JSON (PNG or JPEG)
    reference: str


def fixture_pages(root: Path) -> list[FixturePage]:
    """Every distinct page image (the same photo run through several processors counts once) whose page has text."""
    pages: list[FixturePage] = []
    seen: set[str] = set()
    for path in sorted([*root.glob("docai-real/*.json"), *root.glob("docai/*.json")]):
        document = orjson.loads(path.read_bytes())
        document = document.get("document", document) if isinstance(document, dict) else {}
        text = document.get("text") or ""
        for number, page in enumerate(document.get("pages") or [], start=1):
            content = (page.get("image") or {}).get("content")
            reference = page_text(page, text)
            if not content or not reference.strip():
                continue
            try:
                image = base64.b64decode(content)
                Image.open(io.BytesIO(image)).verify()
            except (binascii.Error, UnidentifiedImageError, OSError):
                continue  # a fixture whose image was cut (an ERR_ case)
            digest = hashlib.sha256(image).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            name = path.stem if number == 1 else f"{path.stem}_p{number}"
            pages.append(FixturePage(name, image, reference))
    return pages


def page_text(page: dict, text: str) -> str:
    """The page's share of the document's text (its layout's anchor)."""
    layout = page.get("layout") or {}
    anchor = layout.get("textAnchor") or layout.get("text_anchor") or {}
    segments = anchor.get("textSegments") or anchor.get("text_segments") or []
    return "".join(text[_index(s, "start") : _index(s, "end")] for s in segments)


def _index(segment: dict, which: str) -> int:
    return int(segment.get(f"{which}Index") or segment.get(f"{which}_index") or 0)


def normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def words_of(text: str) -> Counter:
    return Counter(re.findall(r"\w+", normalized(text)))


def local_text(image: bytes) -> str:
    """The text the local parser reads on the image (every shard's)."""
    try:
        return "".join(shard["text"] for shard in parse.parse_local(image))
    except parse.ParseError:
        return ""  # nothing read: the whole reference is missed


@dataclass
class Row:
    name: str
    reference_chars: int
    edits: int
    reference_words: int
    words_found: int
    seconds: float

    @property
    def cer(self) -> float:
        return self.edits / max(1, self.reference_chars)

    @property
    def words(self) -> float:
        return self.words_found / max(1, self.reference_words)


def measure(page: FixturePage) -> Row:
    started = cpu_seconds()
    text = local_text(page.image)
    seconds = cpu_seconds() - started
    reference, found = normalized(page.reference), normalized(text)
    expected, read = words_of(page.reference), words_of(text)
    held = sum(min(count, read[word]) for word, count in expected.items())
    return Row(page.name, len(reference), Levenshtein.distance(found, reference), expected.total(), held, seconds)


def print_table(rows: list[Row]) -> None:
    print(f"{'image':52} {'chars':>6} {'CER':>6} {'words':>6} {'found':>6} {'CPU s':>6}")
    for row in rows:
        print(
            f"{row.name:52} {row.reference_chars:6d} {row.cer:6.3f} {row.reference_words:6d} {row.words:6.3f} "
            f"{row.seconds:6.2f}"
        )
    chars = sum(r.reference_chars for r in rows)
    edits = sum(r.edits for r in rows)
    words = sum(r.reference_words for r in rows)
    found = sum(r.words_found for r in rows)
    seconds = sum(r.seconds for r in rows)
    print(
        f"{'TOTAL (' + str(len(rows)) + ' images)':52} {chars:6d} {edits / max(1, chars):6.3f} {words:6d} "
        f"{found / max(1, words):6.3f} {seconds / max(1, len(rows)):6.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", type=Path, default=REPO.parent / "shared" / "fixtures")
    parser.add_argument("--only", nargs="*", help="only the images whose name holds one of these")
    args = parser.parse_args()
    if not parse.tesseract_available():
        raise SystemExit("no tesseract on PATH: apt-get install tesseract-ocr")
    pin_one_core()
    pages = fixture_pages(args.fixtures)
    if args.only:
        pages = [p for p in pages if any(part in p.name for part in args.only)]
    if not pages:
        raise SystemExit(f"no page images under {args.fixtures}")
    started = time.perf_counter()
    print_table([measure(page) for page in pages])
    print(f"({time.perf_counter() - started:.0f} s wall)")


if __name__ == "__main__":
    main()
