"""The parse stage's work (design §3a), behind the tasks: `begin` (in the ingest task: is there a PDF or an image
to parse? check its limits, then parse it here with the `local` parser, or send its shards to Document AI as
parallel tasks), `parse_shard` (one page range through Document AI, under the project's rate limit) and
`finish` (the last shard stored: the shards' text offsets set, the document `parsed`, its ingest recorded in the
inbox). Nothing is written before the limits are checked; errors leave as PermanentError naming the user's file.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import orjson

from worker.errors import MissingObject, PermanentError
from worker.parsing import documentai
from worker.parsing.ratelimit import RateLimiter
from worker.parsing.shards import (
    IMAGELESS_PAGES,
    ONLINE_PAGES,
    Shard,
    as_shard,
    plan,
    prefix,
    set_offset,
    shard_key,
)
from worker.redis_state import ParseProgress
from worker.stores.rows import DocumentRow, DocumentStatus

if TYPE_CHECKING:
    from worker.runtime import Runtime

log = logging.getLogger(__name__)

HEAD_BYTES = 1024  # enough to tell a PDF (`%PDF` may follow some junk) or an image from JSON
PROGRESS_INTERVAL = 0.5  # seconds between two progress writes while parsing locally
FINISH_CLAIM = 600  # seconds one task holds the right to finish a parse
# A failed document is parsed again too: a second copy of its task (the inbox's and a direct send) that comes after
# the failure must not read the PDF as JSON and overwrite the failure's reason with "not valid JSON".
_TO_PARSE = (DocumentStatus.UPLOADED, DocumentStatus.PARSING, DocumentStatus.FAILED)


def begin(rt: Runtime, document: DocumentRow) -> DocumentRow | None:
    """The document to ingest now (its JSON is there: uploaded as JSON, or parsed already, here or before), or None
    when its shards went to Document AI as tasks (the last of them records the ingest)."""
    if document.status not in _TO_PARSE:
        return document
    source = source_key(rt, document)
    if source is None:
        return document
    data = read_source(rt, document, source)
    pages = check(rt, document.filename, data)
    parser = rt.settings.parser
    shards = plan(pages, pages_per_shard(rt, parser))
    rt.store.update_document(
        document.id,
        status=DocumentStatus.PARSING,
        progress=0.0,
        error=None,
        page_count=pages,
        source_r2_key=source,
        docai_raw_r2_key=prefix(source),
    )
    stored = reusable_shards(rt, source, shards)
    if parser == "local":
        if len(stored) < len(shards):
            parse_locally(rt, document, source, data)
        return mark_parsed(rt, document.id)
    del data
    missing = [shard for shard in shards if shard.index not in stored]
    ParseProgress(rt.redis).start(document.id, sorted(stored))
    if not missing:
        return finish(rt, document.id, record=False)  # and ingested by this task
    send_shards(document.id, missing)
    log.info("%s: %d of %d shards sent to Document AI", document.id, len(missing), len(shards))
    return None


def source_key(rt: Runtime, document: DocumentRow) -> str | None:
    """The PDF or image a document was registered with: the one recorded already, or its `docai_raw_r2_key`
    when that object's bytes are a PDF or an image (the app registers either the same way)."""
    from parse import detect_kind

    if document.source_r2_key:
        return document.source_r2_key
    key = document.docai_raw_r2_key
    if not key or key.endswith("/"):
        return None
    head = rt.objects.head(key, HEAD_BYTES)
    return key if head and detect_kind(head) else None


def read_source(rt: Runtime, document: DocumentRow, key: str) -> bytes:
    try:
        return rt.objects.read(key)
    except MissingObject as exc:
        raise PermanentError(f"{document.filename}: the file is not in the object store") from exc


def check(rt: Runtime, filename: str, data: bytes) -> int:
    """The file's page count, or a PermanentError saying why it cannot be parsed, before any call: not a PDF or an
    image, an encrypted, corrupt or empty PDF, an image over 40 megapixels (parse.page_count's checks), more pages
    than SEGCITE_MAX_PAGES."""
    from parse import ParseError, detect_kind, page_count

    kind = detect_kind(data)
    if kind is None:
        raise PermanentError(f"{filename}: not a PDF or an image segcite can read")
    try:
        pages = page_count(data)
    except ParseError as exc:
        raise PermanentError(named(filename, exc)) from exc
    if pages < 1:
        raise PermanentError(f"{filename}: the file has no pages")
    limit = rt.settings.segcite_max_pages
    if pages > limit:
        raise PermanentError(
            f"{filename}: {pages} pages, more than the {limit} a document may have (SEGCITE_MAX_PAGES)"
        )
    if kind != "pdf" and rt.settings.parser == "documentai":
        check_image(filename, pages, pages_per_shard(rt, "documentai"))
    return pages


def check_image(filename: str, pages: int, per_request: int) -> None:
    """An image goes to Document AI whole (it is not split): its frames must fit one request."""
    if pages > per_request:
        raise PermanentError(
            f"{filename}: a {pages}-page image is more than one request takes ({per_request} pages); "
            "convert it to a PDF"
        )


def named(filename: str, exc: BaseException) -> str:
    message = str(exc)
    return message if message.startswith(filename) else f"{filename}: {message}"


def pages_per_shard(rt: Runtime, parser: str) -> int:
    if parser == "documentai" and rt.settings.documentai_imageless:
        return IMAGELESS_PAGES
    return ONLINE_PAGES


def reusable_shards(rt: Runtime, source: str, shards: list[Shard]) -> set[int]:
    """The shards a parse may keep (a re-parse reuses them): those of the same page plan. Anything else under
    the prefix (another plan's shards, a half-written set of the local parser's) is removed first."""
    planned = {shard_key(source, shard.index): shard.index for shard in shards}
    stored = rt.objects.keys(prefix(source))
    if any(key not in planned for key in stored):
        rt.objects.delete(prefix(source))
        return set()
    return {planned[key] for key in stored}


def parse_locally(rt: Runtime, document: DocumentRow, source: str, data: bytes) -> None:
    """The offline parser, here in the ingest task, a shard stored at a time, the progress moving per page. A file
    it cannot read leaves nothing behind."""
    from parse import ParseError, parse_local

    progress = PageProgress(rt, document.id)
    try:
        for index, shard in enumerate(
            parse_local(
                data,
                pages_per_shard=ONLINE_PAGES,
                max_pages=rt.settings.segcite_max_pages,
                on_page=progress,
                ocr_languages=rt.settings.segcite_ocr_languages,
            )
        ):
            rt.objects.put(shard_key(source, index), orjson.dumps(shard))
    except ParseError as exc:
        rt.objects.delete(prefix(source))
        raise PermanentError(named(document.filename, exc)) from exc
    except BaseException:
        rt.objects.delete(prefix(source))
        raise


class PageProgress:
    """`on_page` of the local parser: the share of pages parsed, written at most every PROGRESS_INTERVAL."""

    def __init__(self, rt: Runtime, document_id: str):
        self.rt = rt
        self.document_id = document_id
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL and done < total:
            return
        self.last = now
        self.rt.store.update_document(self.document_id, progress=round(done / max(total, 1), 3))


def send_shards(document_id: str, shards: list[Shard]) -> None:
    """Each shard a task of its own (`segcite.parse_shard`, named: worker.tasks imports this module), all at once
    (a Celery group on the ingest queue)."""
    from celery import group

    from worker.app import INGEST_QUEUE, app

    group(
        app.signature("segcite.parse_shard", args=(document_id, s.index, s.start, s.stop, s.count)) for s in shards
    ).apply_async(queue=INGEST_QUEUE)


def parse_shard(rt: Runtime, document_id: str, shard: Shard) -> dict[str, Any]:
    """One page range through Document AI (unless stored already), stored as its shard; the task that stores the
    last shard finishes the parse."""
    from parse import detect_kind, pdf_pages

    document = rt.store.get_document(document_id)
    if document is None or document.status != DocumentStatus.PARSING or not document.source_r2_key:
        return {"document_id": document_id, "shard": shard.index, "skipped": document.status if document else "gone"}
    source = document.source_r2_key
    key = shard_key(source, shard.index)
    if rt.objects.head(key, 1) is None:
        data = read_source(rt, document, source)
        kind = detect_kind(data) or "pdf"
        content = pdf_pages(data, shard.start, shard.stop) if kind == "pdf" else data
        del data
        settings = rt.settings
        project = settings.documentai_project_id or ""
        RateLimiter(rt.redis, project, settings.documentai_rate).wait()
        parsed = documentai.process(settings, content, kind, what=f"{document.filename}, {shard.describe()}")
        rt.objects.put(key, orjson.dumps(as_shard(parsed, shard)))
    progress = ParseProgress(rt.redis)
    done = progress.shard_done(document_id, shard.index)
    rt.store.update_document(document_id, progress=round(min(done / shard.count, 1.0), 3))
    if done >= shard.count and progress.claim_finish(document_id, FINISH_CLAIM):
        try:
            finish(rt, document_id)
        except BaseException:
            progress.release_finish(document_id)  # a retry of this task finishes it
            raise
    return {"document_id": document_id, "shard": shard.index, "stored": done, "of": shard.count}


def finish(rt: Runtime, document_id: str, *, record: bool = True) -> DocumentRow | None:
    """Every shard stored: their text offsets set (each shard's text follows the ones before it), the document
    `parsed`, and (`record`) its ingest recorded in the inbox, the one way work enters (design §11). Returns the
    row when it was finished here."""
    document = rt.store.get_document(document_id)
    if document is None or document.status != DocumentStatus.PARSING or not document.source_r2_key:
        return None
    source = document.source_r2_key
    offset = 0
    for key in rt.objects.keys(prefix(source)):
        updated, length = set_offset(rt.objects.read(key), offset)
        if updated is not None:
            rt.objects.put(key, updated)
        offset += length
    row = mark_parsed(rt, document_id)
    if record:
        rt.store.record_work("ingest_document", document_id)
    return row


def mark_parsed(rt: Runtime, document_id: str) -> DocumentRow:
    return rt.store.update_document(document_id, status=DocumentStatus.PARSED, progress=1.0)
