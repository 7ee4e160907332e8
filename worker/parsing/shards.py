"""The shards of a parse: which pages each holds, where each is stored, and the JSON each is stored as.

A parse of N pages is ceil(N / pages_per_shard) shards; shard i (0-based) holds pages [i * per, (i+1) * per) and is
stored at `<source key>.docai/<i+1:04d>.json`, a Document with `shardInfo` (shardIndex, shardCount, textOffset)
and its pages numbered as in the whole file, which is what ingest reads as the shards of one document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

ONLINE_PAGES = 15  # Document AI's online limit per request
IMAGELESS_PAGES = 30  # ... in imageless mode, for most processors


@dataclass(frozen=True)
class Shard:
    index: int  # 0-based
    count: int
    start: int  # first page, 0-based
    stop: int  # one past the last page

    @property
    def pages(self) -> int:
        return self.stop - self.start

    def describe(self) -> str:
        """`pages 16-30` (1-based, as a user counts them)."""
        return f"page {self.start + 1}" if self.pages == 1 else f"pages {self.start + 1}-{self.stop}"


def plan(pages: int, per_shard: int) -> list[Shard]:
    count = max(1, -(-pages // per_shard))
    return [Shard(i, count, i * per_shard, min(pages, (i + 1) * per_shard)) for i in range(count)]


def prefix(source_key: str) -> str:
    """Where a source's shards live: beside it."""
    return f"{source_key}.docai/"


def shard_key(source_key: str, index: int) -> str:
    return f"{prefix(source_key)}{index + 1:04d}.json"


def as_shard(document: dict[str, Any], shard: Shard) -> dict[str, Any]:
    """A parser's Document for one page range, as the shard it is of the whole: pages numbered from the range's
    first page (a split PDF's answer numbers them from 1), and `shardInfo` (its text offset set by `with_offset`
    once every shard's text length is known)."""
    for number, page in enumerate(document.get("pages") or [], start=shard.start + 1):
        page["pageNumber"] = number
        page.pop("page_number", None)
    document.pop("shard_info", None)
    document["shardInfo"] = {"shardIndex": shard.index, "shardCount": shard.count, "textOffset": 0}
    return document


def set_offset(data: bytes, offset: int) -> tuple[bytes | None, int]:
    """A stored shard with its textOffset set to `offset` (None when it says so already), and the code points of
    its text, which the next shard's offset adds up."""
    document = orjson.loads(data)
    length = len(document.get("text") or "")
    info = document.setdefault("shardInfo", {})
    if int(info.get("textOffset") or 0) == offset:
        return None, length
    info["textOffset"] = offset
    return orjson.dumps(document), length
