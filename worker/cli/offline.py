"""The commands that need no services: segments, cite and highlight read files; config shows the settings."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from worker.cli.errors import UserError
from worker.embedded import effective_urls
from worker.settings import load_settings


def _read_inputs(files: tuple[Path, ...]) -> tuple[list[bytes], list[str]]:
    """Files as given, and their names as the user wrote them; a folder stands for the JSON files in it (the
    shards of one document)."""
    paths: list[Path] = []
    for path in files:
        paths.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    if not paths:
        raise UserError("no JSON files found in " + ", ".join(str(f) for f in files))
    return [p.read_bytes() for p in paths], [str(p) for p in paths]


def _document_id(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A document id whose segment ids read back unchanged (`<document_id>:<index>`, as the model cites them)."""
    from ingest import make_segment_id, parse_segment_id

    if parse_segment_id(make_segment_id(value, 0)) != (value, 0):
        raise click.BadParameter(
            f"{value!r} cannot name a document in segment ids <document_id>:<index>: use letters, digits, "
            "'.', '_' and '-' (no ':'), starting with a letter or digit",
            ctx,
            param,
        )
    return value


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--document-id", required=True, callback=_document_id, help="Id of the document; segment ids are <id>:<index>."
)
@click.option("--max-chars", type=click.IntRange(20, 100_000), default=None, help="Default: SEGCITE_MAX_CHARS.")
def segments(files: tuple[Path, ...], document_id: str, max_chars: int | None) -> None:
    """Print the segments of one document (several files = its shards) as JSON lines."""
    import orjson

    from ingest import InvalidDocument, build_segments

    limit = max_chars or load_settings().segcite_max_chars
    try:
        blobs, names = _read_inputs(files)
        built = build_segments(blobs, document_id, max_chars=limit, names=names)
    except InvalidDocument as exc:
        raise UserError(str(exc)) from None
    out = sys.stdout.buffer
    for segment in built:
        out.write(orjson.dumps(segment.to_dict()) + b"\n")
    out.flush()


def _read_jsonl(path: Path) -> list[dict]:
    import orjson

    rows = []
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            raise UserError(f"{path}:{number}: not a JSON line ({exc})") from None
    return rows


@click.command()
@click.option(
    "--segments",
    "segments_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The workspace's segments as JSON lines (what `segcite segments` prints).",
)
@click.option(
    "--answer",
    "answer_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The model's raw answer.",
)
@click.option(
    "--context",
    "context_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Retrieved segment ids, one per line (default: every segment).",
)
@click.option(
    "--question",
    default=None,
    help="What was asked: each section gets its fit to it and the answer its answer_status (default: fit null).",
)
def cite(segments_file: Path, answer_file: Path, context_file: Path | None, question: str | None) -> None:
    """Resolve a model answer against segments and print the message payload (JSON)."""
    import orjson

    from ingest import Segment
    from query import SegmentIndex, build_answer

    try:
        workspace = SegmentIndex(Segment.from_dict(row) for row in _read_jsonl(segments_file))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{segments_file}: not segment JSON lines ({exc})") from None
    if context_file is None:
        context = list(workspace.values())
    else:
        ids = [line.strip() for line in context_file.read_text().splitlines() if line.strip()]
        unknown = [i for i in ids if i not in workspace]
        if unknown:
            raise UserError(f"{context_file}: {len(unknown)} id(s) not in {segments_file}, e.g. {unknown[0]}")
        context = [workspace[i] for i in ids]
    if question is not None and not question.strip():
        raise UserError("--question: empty; give the question the answer was written for, or leave the option out")
    raw = answer_file.read_text(encoding="utf-8")
    payload = build_answer(raw, context=context, workspace=workspace, question=question)
    sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")


@click.command()
def config() -> None:
    """Print the effective settings (secrets masked)."""
    settings = load_settings()
    effective = effective_urls(settings)  # what runs in place of a URL that is not set
    for name, value in settings.masked().items():
        if name in effective:
            url, note = effective[name]
            click.echo(f"{name}={url}  # {note}")
        else:
            click.echo(f"{name}={value}")


@click.command()
@click.option(
    "--document",
    "document_files",
    required=True,
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="The cited document's Document AI JSON (a folder, or the option repeated: its shards).",
)
@click.option(
    "--answer",
    "answer_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The answer's payload (what `segcite ask --json` prints).",
)
@click.option("--document-id", default=None, help="Which document of the answer (default: the first cited).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder.")
def highlight(document_files: tuple[Path, ...], answer_file: Path, document_id: str | None, out_dir: Path) -> None:
    """Draw each cited page of a document as a PNG with the highlights of its citations (the lines of each
    quote), on the page's own image where the JSON carries one (else a blank page of its shape), to see where
    they land."""
    import orjson

    from ingest import InvalidDocument, page_sizes
    from ingest.page_images import page_images
    from worker.highlight import render_highlights

    try:
        payload = orjson.loads(answer_file.read_bytes())
        citations = payload["metadata"]["citations"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        raise UserError(f"{answer_file}: not an answer payload (what `segcite ask --json` prints)") from None
    document_id = document_id or next((c["document_id"] for c in citations), None)
    if document_id is None:
        raise UserError(f"{answer_file}: the answer cites nothing")
    blobs, names = _read_inputs(document_files)
    try:
        sizes = page_sizes(blobs, names)
    except InvalidDocument as exc:
        raise UserError(str(exc)) from None
    cited = {int(c["page_idx"]) for c in citations if c.get("document_id") == document_id}
    images = {image.page_idx: image.data for image in page_images(blobs) if image.page_idx in cited}
    written = render_highlights(payload, sizes, document_id, out_dir, images, lambda line: click.echo(line, err=True))
    if not written:
        raise UserError(f"{answer_file}: no citation of document {document_id}")
    for path in written:
        click.echo(str(path))
