"""build_segments(bytes) against orjson.loads and Document.from_json of the same OCR file, in one run.

    python bench/bench_segments.py [--pages 400] [--from-json]

Reports same-run ratios (never absolute thresholds): speed-up over `orjson.loads`, and peak traced memory
as a multiple of the file size. Issue 3 asks for >= 5x and <= 1x (aim: 20x and 0.5x).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from docai_synth import PageSpec, build_document

from ingest import build_segments

WORDS = (
    "invoice total amount due payment period contract energy meter reading tariff customer address "
    "125.31 €12,50 2024-01-05 électricité consommation"
).split()


def make_file(pages: int, seed: int = 7) -> bytes:
    rnd = random.Random(seed)

    def sentence() -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 14))) + "."

    specs = []
    for _ in range(pages):
        paragraphs = [" ".join(sentence() for _ in range(rnd.randint(2, 6))) for _ in range(rnd.randint(5, 9))]
        table = [[f"h{c}" for c in range(4)]] + [[rnd.choice(WORDS) for _ in range(4)] for _ in range(6)]
        specs.append(PageSpec(paragraphs, table, table_at=rnd.randint(0, len(paragraphs))))
    document, _ = build_document(specs, with_tokens=True)
    return orjson.dumps(document)


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(fn) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--from-json", action="store_true", help="also time Document.from_json (slow)")
    args = parser.parse_args()

    data = make_file(args.pages)
    size = len(data)
    print(f"file: {args.pages} pages, {size / 1e6:.1f} MB (paragraphs, lines, tokens, tables)")
    segments = build_segments(data, "bench")
    print(f"segments: {len(segments)}")

    t_ours = best_time(lambda: build_segments(data, "bench"), args.repeat)
    t_orjson = best_time(lambda: orjson.loads(data), args.repeat)
    print(f"build_segments(bytes): {t_ours:.3f} s")
    print(f"orjson.loads:          {t_orjson:.3f} s")
    print(f"speed-up over orjson.loads: {t_orjson / t_ours:.1f}x   (must >= 5x, aim 20x)")
    if args.from_json:
        from google.cloud import documentai

        t_proto = best_time(lambda: documentai.Document.from_json(data, ignore_unknown_fields=True), 1)
        print(f"Document.from_json:    {t_proto:.3f} s  ({t_proto / t_ours:.1f}x build_segments)")

    m_ours = peak_memory(lambda: build_segments(data, "bench"))
    m_orjson = peak_memory(lambda: orjson.loads(data))
    print(f"peak memory build_segments: {m_ours / 1e6:.1f} MB = {m_ours / size:.2f}x file   (must <= 1x, aim 0.5x)")
    print(f"peak memory orjson.loads:   {m_orjson / 1e6:.1f} MB = {m_orjson / size:.2f}x file")


if __name__ == "__main__":
    main()
