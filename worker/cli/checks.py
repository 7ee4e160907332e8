"""What `segcite ingest` checks on this machine before it stores or queues anything: that each file (a folder of
JSON alone: its shards) is a document the worker would accept, each judged on its own. The verdict is the
worker's own: `build_segments` for Document AI JSON (a ProcessResponse read as its document), which reads tens
of megabytes in milliseconds, and the parse stage's limits for a PDF or an image (readable, not encrypted, pages
within SEGCITE_MAX_PAGES), so a file refused here would have been a `failed` row there; a PDF or an image that
is empty is refused as an empty file. A folder's other files are named as skipped, with why."""

from __future__ import annotations

from pathlib import Path

from ingest import InvalidDocument, build_segments

_CHECK_ID = "local-check"  # segment ids need a document id; these segments are thrown away
_HEAD_BYTES = 1024
SKIPPED_REASON = "not Document AI JSON, a PDF or an image"
_SHARD_MISSING = "pass every shard of the document"  # how build_segments ends a missing shard's refusal
_SOURCE_SUFFIXES = frozenset({".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif", ".bmp", ".webp"})


def expand(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """The uploads the paths name: a file is one; a folder of JSON files alone is one document (its shards, named
    after the folder); in a folder that also holds a PDF or an image, each file is a document of its own. Returns
    them, and a line for every file of a folder left out."""
    uploads: list[Path] = []
    skipped: list[str] = []
    for path in paths:
        if not path.is_dir():
            uploads.append(path)
            continue
        documents: list[Path] = []
        shards: list[Path] = []
        for entry in sorted(path.iterdir()):
            if entry.is_dir():
                skipped.append(f"{entry}: a folder inside a folder (pass it by name)")
            elif entry.suffix == ".json":
                shards.append(entry)
                documents.append(entry)
            elif source_kind(entry) or empty_source(entry):  # an empty PDF is refused as such, not skipped
                documents.append(entry)
            else:
                skipped.append(f"{entry}: {SKIPPED_REASON}")
        # Nothing in it to ingest: its check says so (`shard_paths`).
        uploads.extend([path] if len(shards) == len(documents) else documents)
    return uploads, skipped


def empty_source(path: Path) -> bool:
    """A file named as a PDF or an image that holds nothing (0 bytes, or blanks)."""
    if path.suffix.lower() not in _SOURCE_SUFFIXES:
        return False
    try:
        with path.open("rb") as file:
            head = file.read(_HEAD_BYTES + 1)
    except OSError:
        return False
    return len(head) <= _HEAD_BYTES and not head.strip()


def source_kind(path: Path) -> str | None:
    """`pdf`, `png`… when the file is a PDF or an image (by its bytes), else None."""
    from parse import detect_kind

    try:
        with path.open("rb") as file:
            return detect_kind(file.read(_HEAD_BYTES))
    except OSError:
        return None


def upload_problem(path: Path, max_chars: int, max_pages: int = 2000) -> str | None:
    """Why `path` cannot be ingested, as one line naming it; None when the worker would accept it."""
    from worker.app_actions import shard_paths

    files = shard_paths(path) if path.is_dir() else [path]
    if not path.is_dir() and source_kind(path):
        return _source_problem(path, max_pages)
    if not path.is_dir() and empty_source(path):
        return f"{path}: empty file: nothing to ingest"
    names = [str(file) for file in files]
    try:
        blobs = [file.read_bytes() for file in files]
    except OSError as exc:
        return f"{exc.filename or path}: cannot read it ({exc.strerror})"
    try:
        build_segments(blobs if len(blobs) > 1 else blobs[0], _CHECK_ID, max_chars=max_chars, names=names)
    except InvalidDocument as exc:
        if len(blobs) > 1 and _whole_documents(blobs, names, max_chars) > 1:
            return (
                f"{path}: its files look like separate documents, not the shards of one; "
                f"pass them as files: `segcite ingest {path / '*.json'}`"
            )
        message = str(exc)
        if files[0].suffix != ".json" and message.startswith(tuple(names)) and "not valid JSON" in message:
            return f"{path}: {SKIPPED_REASON}"
        if not path.is_dir() and message.endswith(_SHARD_MISSING):  # a shard alone, beside other documents
            message += " (put its shards in a folder of their own: `segcite ingest FOLDER` reads them as one document)"
        return message if message.startswith(tuple(names)) else f"{path}: {message}"
    return None


def _source_problem(path: Path, max_pages: int) -> str | None:
    """A PDF or an image: the parse stage's checks (design §3a), before anything is stored."""
    from parse import ParseError, check_page_limit, page_count

    try:
        check_page_limit(page_count(path.read_bytes()), max_pages)
    except ParseError as exc:
        return f"{path}: {exc}"
    except OSError as exc:
        return f"{path}: cannot read it ({exc.strerror})"
    return None


def _whole_documents(blobs: list[bytes], names: list[str], max_chars: int) -> int:
    """How many of a folder's files are each a whole document on their own (only on the error path)."""
    whole = 0
    for blob, name in zip(blobs, names, strict=True):
        try:
            build_segments(blob, _CHECK_ID, max_chars=max_chars, names=[name])
        except InvalidDocument:
            continue
        whole += 1
    return whole
