"""The offline `local` parser (issue 33, design §3a): speed on text pages, OCR time and accuracy, memory on a long
PDF. One core throughout (the process is pinned to one CPU; Tesseract runs with OMP_THREAD_LIMIT=1).

    python bench/bench_parse.py [--pages 500] [--fixtures ../shared/fixtures] [--skip-memory]

- Text pages a second: `parse.parse_local` over a PDF of `--pages` generated pages (Chromium prints it), all of
  it: text layer, reading order, page image rendered (~1.5 MP) and encoded; with the share of each step.
  Target >= 20 pages a second.
- OCR seconds a page, and word recall: (a) generated pages printed, rendered to a 200 dpi image-only PDF and
  parsed (the words are known); (b) the real scans inside the Document AI fixtures (`pages[].image`), whose
  Document AI text is the reference. Tesseract at the resolution parse/ gives it (<= 3.5 MP), with Otsu's global
  thresholding instead of Sauvola's local one, and at the page image's (~1.5 MP); RapidOCR
  (rapidocr-onnxruntime, when installed) on the same images, for the choice of engine. Recall of the reference's
  words, and of its character trigrams with spaces removed (fair to an engine that joins words). CPU seconds
  (this process and Tesseract's) are what one core spends, whatever else the machine runs. Target <= 3 s a page.
- Memory: growth of the peak resident memory (Linux VmHWM, reset before parsing) of a process that parses the
  whole long PDF, against processes that parse its first 15 pages (one shard) and 60 (four), same run: a
  parser that holds a few pages at a time shows the same peak for 60 pages as for 500.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import orjson
import pypdfium2 as pdfium
from PIL import Image

import parse
from parse import images, ocr
from parse.layout import group_paragraphs
from parse.text_layer import needs_ocr, text_lines

REPO = Path(__file__).resolve().parent.parent
VOCABULARY = (
    "harvest orchard apples pears valley river contract payment invoice total amount period tariff meter "
    "customer address growth revenue quarter report figure table summary market price volume supply "
    "demand region north south east west 2024 2025 12.50 4812 percent annual"
).split()
# Real scans among the fixtures (one page each unless said): letters, invoices, forms, tables, a photo.
SCANS = [
    "docai-real/contract_parser_1p.json",
    "docai-real/custom_extractor_patent_1p.json",
    "docai-real/doc_quality_1p.json",
    "docai-real/utility_parser_1p_4tables.json",
    "docai-real/invoice_parser_1p.json",
    "docai-real/expense_parser_1p.json",
    "docai-real/form_parser_v1_1p.json",
    "docai-real/invoice_toolbox_test0_1p.json",
    "docai-real/ocr_pix2info_f_crumpled_paper_snake.json",
    "docai/invoice_parser_edf_2p_snake_case.json",
]


def pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    os.environ["OMP_THREAD_LIMIT"] = "1"


def generated_html(pages: int, seed: int = 7) -> tuple[str, list[str]]:
    """A report of `pages` pages: a heading and ~36 lines of prose each. Also each page's words."""
    rng = random.Random(seed)
    parts, words_by_page = [], []
    for number in range(pages):
        lines = [" ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(9, 13))) for _ in range(36)]
        heading = f"Section {number + 1}: {rng.choice(VOCABULARY).title()}"
        paragraphs = "".join(f"<p>{' '.join(lines[i : i + 6])}</p>" for i in range(0, len(lines), 6))
        parts.append(f'<div class="page"><h2>{heading}</h2>{paragraphs}</div>')
        words_by_page.append(heading.split() + " ".join(lines).split())
    html = (
        '<!doctype html><html><head><meta charset="utf-8"><style>@page { size: 816px 1056px; margin: 0 }'
        "body { margin: 0; font-family: 'DejaVu Serif'; font-size: 15px }"
        ".page { width: 672px; height: 1056px; padding: 0 72px; overflow: hidden; break-after: page }"
        "h2 { margin: 72px 0 16px }</style></head><body>" + "".join(parts) + "</body></html>"
    )
    return html, words_by_page


def print_pdf(html: str) -> bytes:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / "doc.html", Path(folder) / "doc.pdf"
        source.write_text(html, encoding="utf-8")
        subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
             f"--print-to-pdf={out}", source.as_uri()],
            capture_output=True, timeout=600, check=True,
        )  # fmt: skip
        return out.read_bytes()


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (Tesseract): on a shared machine, what one core
    spends, whatever else runs beside it."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def words_of(text: str) -> Counter:
    return Counter(w for w in re.findall(r"\w+", text.lower()) if len(w) > 1 or w.isdigit())


def trigrams_of(text: str) -> Counter:
    """Character trigrams with the spaces taken out: fair to an engine that joins words ("NameAmount")."""
    squeezed = "".join(re.findall(r"\w+", text.lower()))
    return Counter(squeezed[i : i + 3] for i in range(len(squeezed) - 2))


def recall(found: Counter, reference: Counter) -> float:
    total = sum(reference.values())
    return sum(min(count, found[w]) for w, count in reference.items()) / total if total else 1.0


def bench_text(pdf: bytes) -> None:
    count = parse.page_count(pdf)
    started, cpu = time.perf_counter(), cpu_seconds()
    shards = size = 0
    dumping = 0.0  # the size is measured, not part of parsing
    for shard in parse.parse_local(pdf):
        shards += 1
        before = cpu_seconds()
        size += len(orjson.dumps(shard))
        dumping += cpu_seconds() - before
    elapsed, cpu = time.perf_counter() - started - dumping, cpu_seconds() - cpu - dumping
    print(
        f"text pages: {count} pages in {shards} shards: {count / cpu:.1f} pages per CPU second (target >= 20; "
        f"wall {elapsed:.2f} s = {count / elapsed:.1f} pages/s), {size / count / 1e3:.0f} KB of JSON a page"
    )
    # Where the time goes, on the first 50 pages.
    steps = {"text layer + reading order": 0.0, "render ~1.5 MP": 0.0, "image encode (PNG or JPEG)": 0.0}
    document = pdfium.PdfDocument(pdf)
    sample = min(50, count)
    for index in range(sample):
        page = document[index]
        t0 = time.perf_counter()
        needs_ocr(page)
        group_paragraphs(text_lines(page))
        t1 = time.perf_counter()
        picture = images.render_page(page)
        t2 = time.perf_counter()
        images.encode(picture)
        t3 = time.perf_counter()
        steps["text layer + reading order"] += t1 - t0
        steps["render ~1.5 MP"] += t2 - t1
        steps["image encode (PNG or JPEG)"] += t3 - t2
        page.close()
    document.close()
    print("  per page: " + ", ".join(f"{name} {1000 * t / sample:.1f} ms" for name, t in steps.items()))


def bench_generated_scans(pdf: bytes, words_by_page: list[list[str]], pages: int = 3) -> None:
    document = pdfium.PdfDocument(pdf)
    pictures = [document[i].render(scale=200 / 72).to_pil().convert("L") for i in range(pages)]
    out = io.BytesIO()
    pictures[0].save(out, format="PDF", resolution=200, save_all=True, append_images=pictures[1:])
    started, cpu = time.perf_counter(), cpu_seconds()
    shards = list(parse.parse_local(out.getvalue()))
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    reference = words_of(" ".join(w for page in words_by_page[:pages] for w in page))
    found = words_of("".join(s["text"] for s in shards))
    print(
        f"OCR, generated 200 dpi scans (~{sum(reference.values()) // pages} words a page): {cpu / pages:.2f} s CPU "
        f"a page (target <= 3; wall {elapsed / pages:.2f} s), word recall {recall(found, reference):.3f}"
    )


def fixture_scans(root: Path) -> list[tuple[str, Image.Image, str]]:
    """(name, page image, Document AI's text of that page) of the first page of each scan."""
    out = []
    for relative in SCANS:
        path = root / relative
        if not path.is_file():
            continue
        document = orjson.loads(path.read_bytes())
        document = document.get("document", document)
        page = document["pages"][0]
        image = Image.open(io.BytesIO(base64.b64decode(page["image"]["content"]))).convert("RGB")
        text = document["text"]
        if len(document["pages"]) > 1:  # the first page's share of the text
            anchor = page["layout"].get("textAnchor") or page["layout"].get("text_anchor") or {}
            segments = anchor.get("textSegments") or anchor.get("text_segments") or []
            text = "".join(text[_index(s, "start") : _index(s, "end")] for s in segments)
        out.append((relative.split("/")[-1].removesuffix(".json"), image, text))
    return out


def _index(segment: dict, which: str) -> int:
    return int(segment.get(f"{which}Index") or segment.get(f"{which}_index") or 0)


def rapidocr_engine():
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        return None
    return RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)


def bench_fixture_scans(root: Path) -> None:
    scans = fixture_scans(root)
    if not scans:
        print(f"OCR, real scans: no fixtures under {root}")
        return
    engines = {
        "tesseract <=3.5MP (parse/)": lambda image: _tesseract(image, ocr.OCR_PIXELS),
        "tesseract <=3.5MP Otsu": lambda image: _tesseract(image, ocr.OCR_PIXELS, thresholding=0),
        "tesseract ~1.5MP": lambda image: _tesseract(image, images.PAGE_IMAGE_PIXELS),
    }
    rapid = rapidocr_engine()
    if rapid is not None:
        import numpy

        def run_rapid(image: Image.Image, pixels: int) -> str:
            result, _ = rapid(numpy.array(images.fit(image, pixels)))
            return " ".join(text for _, text, _ in result or [])

        engines["rapidocr <=3.5MP"] = lambda image: run_rapid(image, ocr.OCR_PIXELS)
        engines["rapidocr ~1.5MP"] = lambda image: run_rapid(image, images.PAGE_IMAGE_PIXELS)
    else:
        print("  (rapidocr-onnxruntime not installed: `pip install rapidocr-onnxruntime` to compare)")
    print(f"OCR, {len(scans)} real scans from the fixtures (Document AI's text as reference):")
    print(f"  {'engine':28} {'CPU s/page':>10} {'wall':>6} {'words':>7} {'worst':>7} {'3-grams':>8}")
    for name, engine in engines.items():
        seconds, cpu, recalls, grams = 0.0, 0.0, [], []
        for _, image, reference in scans:
            started, used = time.perf_counter(), cpu_seconds()
            text = engine(image)
            seconds, cpu = seconds + time.perf_counter() - started, cpu + cpu_seconds() - used
            recalls.append(recall(words_of(text), words_of(reference)))
            grams.append(recall(trigrams_of(text), trigrams_of(reference)))
        mean, gram = sum(recalls) / len(recalls), sum(grams) / len(grams)
        print(
            f"  {name:28} {cpu / len(scans):10.2f} {seconds / len(scans):6.2f} {mean:7.3f} {min(recalls):7.3f} "
            f"{gram:8.3f}"
        )


def _tesseract(image: Image.Image, pixels: int, thresholding: int = ocr.THRESHOLDING) -> str:
    layout = ocr.ocr_page(images.fit(image, pixels), thresholding=thresholding)
    return " ".join(w.text for b in layout.blocks for p in b.paragraphs for line in p.lines for w in line.words)


MEMORY_CHILD = """
import os, sys
import parse


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) // 1024


os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
data = open(sys.argv[1], "rb").read()
if int(sys.argv[2]) < parse.page_count(data):
    data = parse.pdf_pages(data, 0, int(sys.argv[2]))
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from here
pages = 0
for shard in parse.parse_local(data):
    pages += len(shard["pages"])
print(pages, before, status("VmHWM"))
"""


def bench_memory(pdf: bytes) -> None:
    """Peak growth of a process parsing the first 15 pages (one shard), 60 pages (four), and all of them."""
    total = parse.page_count(pdf)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.pdf"
        path.write_bytes(pdf)
        growth = {}
        for pages in sorted({min(15, total), min(60, total), total}):
            done = subprocess.run(
                [sys.executable, "-c", MEMORY_CHILD, str(path), str(pages)],
                capture_output=True, text=True, check=True, cwd=REPO,
            )  # fmt: skip
            parsed, before, peak = map(int, done.stdout.split())
            growth[parsed] = peak - before
    print(
        "memory: peak RSS growth while parsing "
        + ", ".join(f"{pages} pages {mb} MB" for pages, mb in growth.items())
        + f"; {total} pages / 60 pages = {growth[total] / max(1, growth[min(60, total)]):.2f} (flat: ~1)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--fixtures", type=Path, default=REPO.parent / "shared" / "fixtures")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    pin_one_core()
    html, words_by_page = generated_html(args.pages)
    started = time.perf_counter()
    pdf = print_pdf(html)
    print(
        f"generated PDF: {args.pages} pages, {len(pdf) / 1e6:.1f} MB (Chromium, {time.perf_counter() - started:.1f} s)"
    )
    bench_text(pdf)
    if not parse.tesseract_available():
        print(f"OCR: skipped, {ocr.INSTALL_HINT}")
    else:
        bench_generated_scans(pdf, words_by_page)
        bench_fixture_scans(args.fixtures)
    if not args.skip_memory:
        bench_memory(pdf)


if __name__ == "__main__":
    main()
