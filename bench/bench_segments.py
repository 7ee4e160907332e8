"""build_segments against orjson.loads of the same bytes, same run, on four kinds of input (design §3).

    python bench/bench_segments.py [--pages 400] [--from-json] [--fixtures ../shared/fixtures]

Inputs: a large generated OCR file (paragraphs, lines, tokens, tables); a many-small-shards document read from
its page anchors (181 pages in 19 shards); a Layout Parser document; a one-page form. For each: the speed-up
over `orjson.loads` (design §3: never below 1x; >= 20x on the large OCR file) and peak traced memory as a
multiple of the input size (<= 0.5x on the large OCR file). Ratios only, never absolute thresholds.
`decode x` is the ceiling of an ingest built on msgspec: the speed-up of its typed decoding of the fields ingest needs
(`ingest.schema.DOCUMENT`) alone, as if checking the input and making segments cost nothing.
`--fixtures` adds every real Document AI file under that folder (the lowest ratio is what matters there).
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from docai_synth import (
    LayoutPageSpec,
    PageSpec,
    build_document,
    build_layout_document,
    page_anchors_only,
    shard_document,
)

from ingest import InvalidDocument, build_segments
from ingest.schema import DOCUMENT

WORDS = (
    "invoice total amount due payment period contract energy meter reading tariff customer address "
    "125.31 €12,50 2024-01-05 électricité consommation"
).split()


@dataclass
class Input:
    name: str
    data: bytes | list[bytes]

    @property
    def size(self) -> int:
        return len(self.data) if isinstance(self.data, bytes) else sum(len(d) for d in self.data)

    def orjson_loads(self) -> Any:
        return orjson.loads(self.data) if isinstance(self.data, bytes) else [orjson.loads(d) for d in self.data]

    def typed_decode(self) -> Any:
        return DOCUMENT.decode(self.data) if isinstance(self.data, bytes) else [DOCUMENT.decode(d) for d in self.data]


class Words:
    def __init__(self, seed: int):
        self.rnd = random.Random(seed)

    def sentence(self, low: int = 6, high: int = 14) -> str:
        return " ".join(self.rnd.choice(WORDS) for _ in range(self.rnd.randint(low, high))) + "."

    def paragraph(self, low: int = 2, high: int = 6) -> str:
        return " ".join(self.sentence() for _ in range(self.rnd.randint(low, high)))

    def table(self, columns: int, rows: int) -> list[list[str]]:
        body = [[self.rnd.choice(WORDS) for _ in range(columns)] for _ in range(rows)]
        return [[f"h{c}" for c in range(columns)], *body]


def ocr_pages(pages: int, seed: int) -> list[PageSpec]:
    words = Words(seed)
    specs = []
    for _ in range(pages):
        paragraphs = [words.paragraph() for _ in range(words.rnd.randint(5, 9))]
        specs.append(PageSpec(paragraphs, words.table(4, 6), table_at=words.rnd.randint(0, len(paragraphs))))
    return specs


def large_ocr(pages: int) -> Input:
    document, _ = build_document(ocr_pages(pages, seed=7), with_tokens=True)
    return Input(f"large OCR file ({pages} pages, tokens)", orjson.dumps(document))


def small_shards(pages: int = 181, shards: int = 19) -> Input:
    document, _ = build_document(ocr_pages(pages, seed=11), with_tokens=False)
    per_shard = -(-pages // shards)
    parts = [orjson.dumps(s) for s in shard_document(page_anchors_only(document), per_shard)]
    return Input(f"{pages} pages in {len(parts)} shards (page anchors)", parts)


def layout_parser(pages: int = 40) -> Input:
    words = Words(13)
    specs = []
    for number in range(1, pages + 1):
        blocks = [("heading-2", words.sentence(2, 5))]
        for _ in range(words.rnd.randint(8, 14)):
            blocks.append(("paragraph", words.sentence(2, 12) if words.rnd.random() < 0.5 else words.paragraph(1, 3)))
        specs.append(LayoutPageSpec(f"REPORT {number}", blocks, words.table(3, 5), footer=f"Page {number}"))
    return Input(f"Layout Parser ({pages} pages)", orjson.dumps(build_layout_document(specs)))


def one_page_form() -> Input:
    words = Words(17)
    paragraphs = [words.sentence(2, 6) for _ in range(14)] + [words.paragraph(1, 3) for _ in range(3)]
    document, _ = build_document([PageSpec(paragraphs, words.table(4, 5), table_at=6)], with_tokens=True)
    return Input("one-page form (tokens)", orjson.dumps(document))


def fixture_inputs(root: Path) -> list[Input]:
    inputs = []
    for path in sorted(root.rglob("*.json")):
        if path.name == "manifest.json" or path.parent.name.startswith("invoice_sharded"):
            continue
        data = path.read_bytes()
        if path.name.startswith("WRAPPED_"):
            data = orjson.dumps(orjson.loads(data)["document"])
        inputs.append(Input(path.name, data))
    shards = root / "docai" / "invoice_sharded_48p_noimages"
    if shards.is_dir():
        inputs.append(Input(shards.name, [p.read_bytes() for p in sorted(shards.glob("*.json"))]))
    return inputs


def cpu_seconds(fn: Callable[[], Any], calls: int) -> float:
    """CPU time of this process per call, not wall time: time slices lost to other jobs on a shared machine
    are not counted."""
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls


def best_times(fns: list[Callable[[], Any]], budget: float = 0.3, rounds: int = 7) -> list[float]:
    """Best per-call CPU time of each function, the functions taking turns round after round (so a change of
    load on the machine hits all of them alike), each round as many calls as fit in `budget` seconds."""
    calls = [max(1, int(budget / max(cpu_seconds(fn, 1), 1e-6))) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], cpu_seconds(fn, calls[i]))
    return best


def peak_memory(fn: Callable[[], Any]) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak


def measure(item: Input, budget: float) -> tuple[float, float, float, float] | None:
    """(speed-up over orjson.loads, our seconds, our peak memory / input size, speed-up of the decoding alone);
    None if refused."""

    def ours() -> Any:
        return build_segments(item.data, "bench")

    try:
        ours()
    except InvalidDocument:
        return None
    t_ours, t_orjson, t_decode = best_times([ours, item.orjson_loads, item.typed_decode], budget)
    return t_orjson / t_ours, t_ours, peak_memory(ours) / item.size, t_orjson / t_decode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=400, help="pages of the large OCR file")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds per timing round")
    parser.add_argument("--from-json", action="store_true", help="also time Document.from_json (slow)")
    parser.add_argument("--fixtures", type=Path, help="also every real file under this folder")
    args = parser.parse_args()

    inputs = [large_ocr(args.pages), small_shards(), layout_parser(), one_page_form()]
    print(f"{'input':<44} {'size':>9} {'segments':>8} {'ours':>9} {'x orjson':>9} {'memory':>8} {'decode x':>9}")
    for item in inputs:
        report(item, args.budget)
    print("design §3: never below 1.0x orjson.loads; large OCR >= 20x and memory <= 0.50x its size")
    if args.from_json:
        from google.cloud import documentai

        data = inputs[0].data
        t_ours, t_proto = best_times(
            [lambda: build_segments(data, "bench"), lambda: documentai.Document.from_json(data)], 0, rounds=1
        )
        print(f"Document.from_json on the large OCR file: {t_proto:.3f} s ({t_proto / t_ours:.1f}x build_segments)")
    if args.fixtures:
        ratios = []
        for item in fixture_inputs(args.fixtures):
            result = report(item, min(args.budget, 0.1))
            if result is not None:
                ratios.append((result[0], item.name))
        worst = min(ratios)
        print(f"real files: lowest speed-up {worst[0]:.1f}x ({worst[1]}), {len(ratios)} files ingested")


def report(item: Input, budget: float) -> tuple[float, float, float, float] | None:
    result = measure(item, budget)
    size = f"{item.size / 1e6:.2f} MB" if item.size >= 1e5 else f"{item.size / 1e3:.1f} kB"
    if result is None:
        print(f"{item.name[:44]:<44} {size:>9} refused")
        return None
    ratio, seconds, memory, ceiling = result
    count = len(build_segments(item.data, "bench"))
    print(
        f"{item.name[:44]:<44} {size:>9} {count:>8} {seconds * 1e3:>7.2f}ms {ratio:>8.1f}x {memory:>7.2f}x "
        f"{ceiling:>8.1f}x"
    )
    return result


if __name__ == "__main__":
    main()
