"""Document AI for one file on this machine (`segcite parse` with SEGCITE_PARSER=documentai): the same page ranges,
requests and shards as the worker's parse stage, without Celery: up to 8 requests at once from threads (at
about a second each, under Google's 600 a minute), the shards handed out in order with their text offsets."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from worker.errors import PermanentError, TransientError
from worker.parsing import documentai
from worker.parsing.shards import IMAGELESS_PAGES, ONLINE_PAGES, Shard, as_shard, plan
from worker.settings import Settings

THREADS = 8
TRIES = 4  # a transient error (quota, unavailable) is tried again after 1, 2, 4 s


def parse_online(
    settings: Settings, data: bytes, *, name: str, on_shard: Callable[[Shard], None] | None = None
) -> Iterator[dict[str, Any]]:
    """Document AI JSON shards of a PDF or an image, in order. Raises ParseError (the file) or PermanentError
    (Document AI refused it, or is misconfigured) with a message naming `name`."""
    from parse import check_page_limit, detect_kind, page_count, pdf_pages

    kind = detect_kind(data) or "pdf"
    pages = page_count(data)
    check_page_limit(pages, settings.segcite_max_pages)
    per_request = IMAGELESS_PAGES if settings.documentai_imageless else ONLINE_PAGES
    if kind != "pdf" and pages > per_request:
        raise PermanentError(f"{name}: a {pages}-page image is more than one request takes; convert it to a PDF")
    shards = plan(pages, per_request)

    def one(shard: Shard) -> dict[str, Any]:
        content = pdf_pages(data, shard.start, shard.stop) if kind == "pdf" else data
        for attempt in range(TRIES):
            try:
                return as_shard(documentai.process(settings, content, kind, what=f"{name}, {shard.describe()}"), shard)
            except TransientError:
                if attempt == TRIES - 1:
                    raise
                time.sleep(2**attempt)
        raise AssertionError("unreachable")

    offset = 0
    with ThreadPoolExecutor(min(THREADS, len(shards))) as pool:
        for shard, document in zip(shards, pool.map(one, shards), strict=True):
            document["shardInfo"]["textOffset"] = offset
            offset += len(document.get("text") or "")
            if on_shard is not None:
                on_shard(shard)
            yield document
