"""Keeping a document's page images (design §3 "Page images"): each page's image, taken from its Document AI JSON
by `ingest.page_images` one page at a time, stored once in the object store beside that JSON, and a row per page
in `document_pages` (migrations/011_page_images.sql) that citations read their `page_image` from (§5.8).

Keys are content-addressed (`<json key without .json>.pages/<page>-<sha256 prefix>.<ext>`): a re-ingest of the
same bytes finds its rows already naming those keys and writes nothing; a changed image gets a new key, and the
old object goes once no row names it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ingest.page_images import PageImage, page_images
from worker.runtime import Runtime
from worker.stores import Store
from worker.stores.rows import DocumentRow, PageImageRow


def image_key(docai_key: str, image: PageImage) -> str:
    base = docai_key.rstrip("/").removesuffix(".json")
    digest = hashlib.sha256(image.data).hexdigest()[:16]
    return f"{base}.pages/{image.page_idx + 1}-{digest}.{image.extension}"


def store_page_images(rt: Runtime, document: DocumentRow, blobs: list[bytes]) -> int:
    """Stores the page images of `document` (its JSON's bytes: `blobs`) that are not stored yet; returns how many
    pages have one. Off with SEGCITE_PAGE_IMAGES=false (then rows and objects stored earlier stay)."""
    if not rt.settings.segcite_page_images or not document.docai_raw_r2_key:
        return 0
    stored = rt.store.page_images([document.id])
    rows = []
    for image in page_images(blobs if len(blobs) > 1 else blobs[0]):
        key = image_key(document.docai_raw_r2_key, image)
        before = stored.get((document.id, image.page_idx))
        if before is None or before.image_key != key:
            rt.objects.put(key, image.data, image.mime)
        rows.append(PageImageRow(document.id, image.page_idx, key, image.mime, image.width, image.height))
    for key in rt.store.replace_page_images(document, rows):
        rt.objects.delete(key)
    return len(rows)


def delete_page_images(rt: Runtime, document_id: str) -> None:
    """The document's page rows, and each image no other document's row names."""
    for key in rt.store.delete_page_images(document_id):
        rt.objects.delete(key)


class CitedPageImages(Mapping[tuple[str, int], Mapping[str, Any]]):
    """(document_id, page_idx) -> a citation's `page_image`, as `query.build_answer` reads it: each document's
    pages loaded from the store the first time one of its pages is asked for (one query per cited document)."""

    def __init__(self, store: Store):
        self.store = store
        self.loaded: set[str] = set()
        self.pages: dict[tuple[str, int], dict[str, Any]] = {}

    def _load(self, document_ids: Iterable[str]) -> None:
        wanted = set(document_ids) - self.loaded
        if wanted:
            found = self.store.page_images(wanted)
            self.pages.update({where: row.citation_image() for where, row in found.items()})
            self.loaded |= wanted

    def __getitem__(self, where: tuple[str, int]) -> Mapping[str, Any]:
        self._load([where[0]])
        return self.pages[where]

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(self.pages)

    def __len__(self) -> int:
        return len(self.pages)
