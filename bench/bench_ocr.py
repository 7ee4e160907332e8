"""OCR of real photos and scans (issue 43): the `local` parser on the page images that the real Document AI outputs
carry (`pages[].image`), against Document AI's own text of that page.

    python bench/bench_ocr.py [--fixtures ../shared/fixtures] [--only NAME ...] [--variants]

For each distinct page image of ../shared/fixtures/docai-real/*.json and docai/*.json whose page has text: the image
bytes as a user would upload them, through `parse.parse_local` (orientation, deskew, OCR, form fields and tables),
then
- CER: character error rate, the Levenshtein distance (rapidfuzz) between the two texts normalized (NFKC, case
  folded, runs of spaces and line breaks made one space) over the length of Document AI's; it counts reading order
  too (a form's two columns read side by side, or one after the other), so "sorted" is the same with each text's
  words sorted first: what was misread, whatever the order;
- words: the share of Document AI's words (letters or digits, with repeats) the local text holds;
- seconds: CPU seconds the page took (this process and Tesseract's, on one core).
A table per image, then totals (CER over all characters, words over all words, seconds a page).

`--variants` measures each step of parse.ocr.scan same-run, by switching the later ones off (module settings set for
the run, as a before/after of each change): the parser as it was before issue 43 (no levelling, no orientation,
no second reading of small text), then each step added. The table per image is printed for the first and the
last; then the totals of each.
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
from parse.ocr import scan, skew

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class FixturePage:
    """One page image of a fixture and Document AI's text of that page."""

    name: str  # `<fixture stem>` or `<fixture stem>_p2` for a later page
    image: bytes  # as stored in the JSON (PNG or JPEG)
    reference: str


@dataclass(frozen=True)
class FixtureDocument:
    """A fixture whose pages carry their images: its Document AI JSON (a ProcessResponse read as its document)."""

    path: Path
    document: dict
    pages: list[FixturePage]


def fixture_documents(root: Path) -> list[FixtureDocument]:
    """Every fixture with page images whose pages have text, each photo once (the same photo run through several
    processors: the first fixture that has it)."""
    documents: list[FixtureDocument] = []
    seen: set[str] = set()
    for path in sorted([*root.glob("docai-real/*.json"), *root.glob("docai/*.json")]):
        document = orjson.loads(path.read_bytes())
        document = document.get("document", document) if isinstance(document, dict) else {}
        text = document.get("text") or ""
        pages = []
        count = len(document.get("pages") or [])
        for number, page in enumerate(document.get("pages") or [], start=1):
            content = (page.get("image") or {}).get("content")
            reference = page_text(page, text) or (text if count == 1 else "")
            if not content or not reference.strip():
                continue
            try:
                image = base64.b64decode(content)
                Image.open(io.BytesIO(image)).verify()
            except (binascii.Error, UnidentifiedImageError, OSError):
                continue  # a fixture whose image was cut (an ERR_ case)
            name = path.stem if number == 1 else f"{path.stem}_p{number}"
            pages.append(FixturePage(name, image, reference))
        digest = hashlib.sha256(pages[0].image).hexdigest() if pages else ""
        if pages and digest not in seen:
            seen.add(digest)
            documents.append(FixtureDocument(path, document, pages))
    return documents


def fixture_pages(root: Path) -> list[FixturePage]:
    return [page for document in fixture_documents(root) for page in document.pages]


# Printed pages of the fixtures also read turned and askew (as a user photographs them), made here: the real images
# are nearly all upright and level.
TURNED = ("invoice_parser_1p", "expense_parser_1p", "us_driver_license_parser_1p", "utility_parser_1p_4tables")
TURNS = ((90, "turned 90"), (180, "upside down"), (270, "turned 270"), (6, "askew 6 degrees"))


def turned_pages(pages: list[FixturePage]) -> list[FixturePage]:
    out = []
    for page in pages:
        if page.name not in TURNED:
            continue
        with Image.open(io.BytesIO(page.image)) as image:
            picture = image.convert("RGB")
        for angle, how in TURNS:
            turned = picture.rotate(angle, expand=True, fillcolor="white", resample=Image.Resampling.BICUBIC)
            buffer = io.BytesIO()
            turned.save(buffer, format="JPEG", quality=92)
            out.append(FixturePage(f"{page.name} {how}", buffer.getvalue(), page.reference))
    return out


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
    sorted_edits: int  # with each text's words sorted: misreadings, whatever the reading order
    reference_words: int
    words_found: int
    seconds: float

    @property
    def cer(self) -> float:
        return self.edits / max(1, self.reference_chars)

    @property
    def sorted_cer(self) -> float:
        return self.sorted_edits / max(1, self.reference_chars)

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
    edits = Levenshtein.distance(found, reference)
    sorted_edits = Levenshtein.distance(" ".join(sorted(found.split())), " ".join(sorted(reference.split())))
    return Row(page.name, len(reference), edits, sorted_edits, expected.total(), held, seconds)


def print_table(rows: list[Row]) -> None:
    print(f"{'image':52} {'chars':>6} {'CER':>6} {'sorted':>6} {'words':>6} {'found':>6} {'CPU s':>6}")
    for row in rows:
        print(
            f"{row.name:52} {row.reference_chars:6d} {row.cer:6.3f} {row.sorted_cer:6.3f} {row.reference_words:6d} "
            f"{row.words:6.3f} {row.seconds:6.2f}"
        )
    total = totals(rows)
    print(
        f"{'TOTAL (' + str(len(rows)) + ' images)':52} {total['chars']:6d} {total['cer']:6.3f} {total['sorted']:6.3f} "
        f"{total['words']:6d} {total['found']:6.3f} {total['seconds']:6.2f}"
    )


def totals(rows: list[Row]) -> dict:
    """CER over all characters, words found over all words, CPU seconds a page."""
    chars, words = sum(r.reference_chars for r in rows), sum(r.reference_words for r in rows)
    return {
        "chars": chars,
        "cer": sum(r.edits for r in rows) / max(1, chars),
        "sorted": sum(r.sorted_edits for r in rows) / max(1, chars),
        "words": words,
        "found": sum(r.words_found for r in rows) / max(1, words),
        "seconds": sum(r.seconds for r in rows) / max(1, len(rows)),
    }


def _no_turns(image: Image.Image, where: str) -> list[int]:
    return []


def _no_rules(image: Image.Image) -> None:
    return None


# Each variant: the settings it changes, (module, name, value); the last is the parser as it is.
_LEVELLED = (skew, "MIN_SKEW", float("inf"))
_UPRIGHT = (scan, "_turns", _no_turns)
_RULES = (scan, "unruled", _no_rules)
_LARGER = (scan, "SMALL_TEXT", 0)
VARIANTS: dict[str, list[tuple[object, str, object]]] = {
    "before issue 43": [_LEVELLED, _UPRIGHT, _RULES, _LARGER],
    "+ levelled": [_UPRIGHT, _RULES, _LARGER],
    "+ set upright": [_RULES, _LARGER],
    "+ rules taken out": [_LARGER],
    "+ small text read larger (as it is)": [],
}


def run_variant(pages: list[FixturePage], settings: list[tuple[object, str, object]]) -> list[Row]:
    saved = [(module, name, getattr(module, name)) for module, name, _ in settings]
    try:
        for module, name, value in settings:
            setattr(module, name, value)
        return [measure(page) for page in pages]
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def print_totals(results: dict[str, list[Row]]) -> None:
    print(f"{'variant':40} {'CER':>6} {'sorted':>6} {'words':>6} {'CPU s/page':>10}")
    for name, rows in results.items():
        t = totals(rows)
        print(f"{name:40} {t['cer']:6.3f} {t['sorted']:6.3f} {t['found']:6.3f} {t['seconds']:10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", type=Path, default=REPO.parent / "shared" / "fixtures")
    parser.add_argument("--only", nargs="*", help="only the images whose name holds one of these")
    parser.add_argument("--variants", action="store_true", help="each step of parse.ocr.scan, before and after")
    parser.add_argument("--no-turned", action="store_true", help="leave out the turned and askew copies")
    args = parser.parse_args()
    if not parse.tesseract_available():
        raise SystemExit("no tesseract on PATH: apt-get install tesseract-ocr")
    pin_one_core()
    pages = fixture_pages(args.fixtures)
    if args.only:
        pages = [p for p in pages if any(part in p.name for part in args.only)]
    if not pages:
        raise SystemExit(f"no page images under {args.fixtures}")
    sets = {"real page images": pages}
    if not args.no_turned:
        sets["printed pages turned and askew"] = turned_pages(pages)
    started = time.perf_counter()
    for title, chosen in sets.items():
        if not chosen:
            continue
        print(f"== {title}")
        if not args.variants:
            print_table([measure(page) for page in chosen])
            continue
        results = {name: run_variant(chosen, settings) for name, settings in VARIANTS.items()}
        names = list(results)
        for name in (names[0], names[-1]):
            print(f"\n{name}:")
            print_table(results[name])
        print()
        print_totals(results)
        print()
    print(f"({time.perf_counter() - started:.0f} s wall)")


if __name__ == "__main__":
    main()
