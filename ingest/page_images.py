"""The page images a Document AI document carries (`pages[].image`), one page at a time (design §3 "Page images").

A pass of its own, apart from segment building: each file is decoded into a struct that declares only the pages'
numbers and their `image` as raw JSON (msgspec skips everything else, text and layout included), then each
page's image alone is decoded, its base64 turned into bytes by msgspec, and handed out before the next one is
touched: at most one page's image is ever held in decoded form.

Document AI renders `image` after deskewing and rotating the scan (the page's `transforms` say how), and gives
every vertex relative to that image: boxes normalized to the page land on the image as it is, upside-down and
rotated pages included.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import msgspec
from msgspec import Raw

from ingest.schema import NO_RAW, Base, ShardInfo

MIME_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
# The first bytes of each kind a browser shows inline (a TIFF page, say, is left out rather than stored unseen).
_SIGNATURES = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/jpeg": b"\xff\xd8\xff",
    "image/gif": b"GIF8",
    "image/webp": b"RIFF",
}


@dataclass(frozen=True, slots=True)
class PageImage:
    page_idx: int  # as the segments number pages: pageNumber - 1
    mime: str
    width: int  # pixels
    height: int
    data: bytes

    @property
    def extension(self) -> str:
        return MIME_EXTENSIONS[self.mime]


class _Image(Base):
    content: bytes = b""  # base64 in the JSON: msgspec decodes it straight to bytes
    width: int = 0
    height: int = 0


class _Page(Base):
    pageNumber: int = 0
    page_number: int = 0
    image: Raw = NO_RAW


class _Shard(Base):
    pages: tuple[_Page, ...] = ()
    shardInfo: ShardInfo | None = None
    shard_info: ShardInfo | None = None
    document: Raw = NO_RAW  # a ProcessResponse: its pages are its document's (design §3)


_SHARD = msgspec.json.Decoder(_Shard, strict=False)
_IMAGE = msgspec.json.Decoder(_Image, strict=False)


def page_images(docai: bytes | Sequence[bytes]) -> Iterator[PageImage]:
    """Each page image of one document (one JSON file's bytes, or its shards' in any order), in page order
    within each shard and shards in `shardIndex` order. Pages without an image, or whose image is unreadable
    or of a kind a browser does not show, are skipped: a page image is never a reason for an ingest to fail.
    Input that is not Document AI JSON yields nothing (segment building is what says why)."""
    blobs = [docai] if isinstance(docai, bytes | bytearray | memoryview) else list(docai)
    shards = []
    for blob in blobs:
        try:
            shard = _SHARD.decode(blob)
            if not shard.pages and shard.document:
                shard = _SHARD.decode(shard.document)
        except msgspec.DecodeError:
            continue
        shards.append(shard)
    shards.sort(key=_shard_index)
    for shard in shards:
        for number, page in enumerate(shard.pages, start=1):
            if not page.image:
                continue
            image = _read_image(page.image, (page.pageNumber or page.page_number or number) - 1)
            if image is not None:
                yield image
            del image  # not held while the next page's image is decoded


def _shard_index(shard: _Shard) -> int:
    info = shard.shardInfo or shard.shard_info
    return info.index if info is not None else 0


def _read_image(raw: Raw, page_idx: int) -> PageImage | None:
    try:
        image = _IMAGE.decode(raw)
    except msgspec.DecodeError:  # not base64, or not an object
        return None
    # The bytes say what they are: real outputs label a JPEG `image/png` (ocr_with_symbols_tiny.json).
    mime = next((m for m, signature in _SIGNATURES.items() if image.content.startswith(signature)), None)
    if mime is None:
        return None
    # The image's own header (read without decoding pixels) says its size; some processors leave it out.
    width, height = _size(image.content) or (image.width, image.height)
    if width <= 0 or height <= 0:
        return None
    return PageImage(page_idx, mime, width, height, image.content)


def _size(data: bytes) -> tuple[int, int] | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as picture:  # reads the header only
            return picture.size
    except (UnidentifiedImageError, OSError, ValueError):
        return None
