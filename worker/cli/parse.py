"""`segcite parse FILE --out DIR`: a PDF or an image -> the Document AI JSON segcite would ingest, written as
shards (DIR/0001.json, …) without ingesting, so a user can see what segcite reads."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from worker.cli.errors import UserError

if TYPE_CHECKING:
    from worker.parsing.shards import Shard
    from worker.settings import Settings

_SHARD_GLOB = "[0-9][0-9][0-9][0-9].json"


@click.command("parse")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for the shards."
)
@click.option(
    "--max-pages",
    type=click.IntRange(1),
    default=None,
    help="Refuse longer documents (default: SEGCITE_MAX_PAGES, 2000).",
)
@click.option(
    "--ocr-languages",
    default="eng",
    show_default=True,
    help="Tesseract's languages for scans and images, e.g. eng+deu (each needs its tesseract-ocr-LANG package).",
)
@click.option("--force", is_flag=True, help="Replace the shards a previous run left in the folder.")
def parse_command(file: Path, out_dir: Path, max_pages: int | None, ocr_languages: str, force: bool) -> None:
    """Parse a PDF or an image into Document AI JSON shards (DIR/0001.json, …), 15 pages each, with the parser the
    worker would use (SEGCITE_PARSER: offline, or Document AI where a processor is configured); progress on
    stderr. `segcite segments DIR --document-id X` then shows the segments segcite makes of them."""
    import orjson

    import parse

    name = str(file)
    data = file.read_bytes()
    if parse.detect_kind(data) is None:
        hint = " (Document AI JSON needs no parsing: `segcite segments` reads it)" if data.lstrip()[:1] in b"{[" else ""
        raise UserError(f"{name}: {parse.NOT_SUPPORTED}{hint}")
    stale = sorted(out_dir.glob(_SHARD_GLOB)) if out_dir.is_dir() else []
    if stale and not force:
        raise UserError(f"{out_dir} already holds shards ({stale[0].name}, …): --force replaces them")

    from worker.errors import PermanentError, TransientError
    from worker.settings import load_settings

    settings = load_settings()
    limit = max_pages or settings.segcite_max_pages

    def progress(done: int, total: int) -> None:
        click.echo(f"{name}: page {done}/{total}", err=True)

    try:
        if settings.parser == "documentai":  # SEGCITE_PARSER, or a configured processor (`auto`)
            shards = _document_ai_shards(settings.model_copy(update={"segcite_max_pages": limit}), data, name)
        else:
            # The checks (a readable file, the page limit) run at the call, before anything is written.
            shards = parse.parse_local(data, max_pages=limit, on_page=progress, ocr_languages=ocr_languages)
        out_dir.mkdir(parents=True, exist_ok=True)
        # Written beside the folder's shards, moved in only when every page is read: nothing half-written.
        staging = Path(tempfile.mkdtemp(prefix=".segcite-parse-", dir=out_dir))
        try:
            written: list[Path] = []
            pages = size = 0
            for number, shard in enumerate(shards, start=1):
                path = staging / f"{number:04d}.json"
                content = orjson.dumps(shard)
                path.write_bytes(content)
                written.append(path)
                pages += len(shard["pages"])
                size += len(content)
            for old in stale:
                old.unlink()
            final = [path.replace(out_dir / path.name) for path in written]
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except parse.ParseError as exc:
        raise UserError(f"{name}: {exc}") from None
    except (PermanentError, TransientError) as exc:  # Document AI refused it, is misconfigured, or is down
        message = str(exc)
        raise UserError(message if name in message else f"{name}: {message}") from None
    for path in final:
        click.echo(str(path))
    click.echo(f"{name}: {pages} page(s) in {len(final)} shard(s) in {out_dir}, {_size(size)} written", err=True)


def _size(count: int) -> str:
    """Bytes as a reader counts them: 812 bytes, 45.3 KB, 12.7 MB."""
    if count < 1000:
        return f"{count} bytes"
    if count < 1_000_000:
        return f"{count / 1e3:.1f} KB"
    return f"{count / 1e6:.1f} MB"


def _document_ai_shards(settings: Settings, data: bytes, name: str) -> Iterator[dict[str, Any]]:
    """The shards Document AI makes of the file (worker/parsing/online.py), a line on stderr per page range."""
    from worker.parsing.online import parse_online

    def shard_progress(shard: Shard) -> None:
        click.echo(f"{name}: {shard.describe()} read by Document AI ({shard.index + 1} of {shard.count})", err=True)

    return parse_online(settings, data, name=name, on_shard=shard_progress)
