"""What `segcite ingest` checks on this machine before it stores or queues anything: that each file (a folder:
its shards) is a document the worker would accept. The verdict is the worker's own parser's (`build_segments`,
which reads tens of megabytes in milliseconds), so a file refused here would have been a `failed` row there."""

from __future__ import annotations

from pathlib import Path

from ingest import InvalidDocument, build_segments

_CHECK_ID = "local-check"  # segment ids need a document id; these segments are thrown away


def upload_problem(path: Path, max_chars: int) -> str | None:
    """Why `path` cannot be ingested, as one line naming it; None when the worker would accept it."""
    from worker.app_actions import shard_paths

    files = shard_paths(path) if path.is_dir() else [path]
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
        return message if message.startswith(tuple(names)) else f"{path}: {message}"
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
