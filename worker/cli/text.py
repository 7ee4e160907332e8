"""What the `segcite` commands print about documents, services and waits: plain functions of rows, so the
wording is tested without a terminal."""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path
from typing import Any

from worker.app_actions import Outcome, Upload
from worker.stores.rows import EMBEDDED_AT, STORED_AT, DocumentRow, DocumentStatus

PROGRESS_STEP = 10  # percent: an embedding that moves prints a line per step, not one per update

STOP_HINT = "`segcite down` stops them"

DEMO_ANSWERER_NOTE = (
    "This answer came from the offline extractive answerer, which quotes the document and runs no model. "
    "For a real model set SEGCITE_LLM_PROVIDER=openai, OPENAI_API_KEY, SEGCITE_LLM_MODEL "
    "(and OPENAI_BASE_URL for any OpenAI-compatible server)."
)


def progress_line(row: DocumentRow) -> str:
    """Where an ingest stands, in words: the status a worker wrote and, while embedding, how far it got."""
    if row.status == DocumentStatus.UPLOADED:
        return "waiting for a worker"
    if row.status == DocumentStatus.PARSING:  # progress: the share of pages parsed (worker/parsing)
        pages = row.page_count or 0
        return f"parsing page {min(pages, math.floor(row.progress * pages) + 1)} of {pages}" if pages else "parsing"
    if row.status == DocumentStatus.PARSED and row.segment_count is None:
        return f"parsed {_count(row.page_count, 'page')}"
    if row.status == DocumentStatus.PARSED:
        return f"read {_count(row.page_count, 'page')}, {_count(row.segment_count, 'segment')}"
    if row.status == DocumentStatus.INGESTING and row.progress >= STORED_AT:
        done = (row.progress - STORED_AT) / (EMBEDDED_AT - STORED_AT)
        percent = min(100, math.floor(done * 100 / PROGRESS_STEP) * PROGRESS_STEP)
        return f"embedding {_count(row.segment_count, 'segment')}: {percent}%"
    if row.status == DocumentStatus.INGESTING:
        return "reading the Document AI JSON"
    return str(row.status)


def _count(n: int | None, noun: str) -> str:
    return f"{n if n is not None else '?'} {noun}{'' if n == 1 else 's'}"


def upload_note(item: Upload) -> str | None:
    """What an upload did with content the workspace already held (None: a new document, or a replaced one)."""
    document = item.document
    same = f"same content as document {document.id} ({document.filename})"
    if item.outcome == Outcome.REUSED and document.status == DocumentStatus.INGESTED:
        return f"{same}, already ingested: reused it (--force ingests it again)"
    if item.outcome == Outcome.REUSED and document.status == DocumentStatus.UPLOADED:
        return f"{same}, waiting to be ingested: following it"
    if item.outcome == Outcome.REUSED:
        return f"{same}, being ingested: following it"
    if item.outcome == Outcome.RETRIED:
        return f"{same}, which had failed: ingesting it again"
    if item.outcome == Outcome.FORCED:
        return f"{same}: ingesting it again (--force)"
    return None


def ingested_line(name: str, row: DocumentRow) -> str:
    return f"{name}: ingested, {row.page_count} page(s), {row.segment_count} segment(s), document {row.id}"


def ingest_summary(ingested: list[Path], not_ingested: list[Path], skipped: int) -> str:
    """The last line of an ingest of several documents: which were ingested, which not (each said why above)."""
    total = len(ingested) + len(not_ingested)
    line = f"ingested {len(ingested)} of {total} document(s)"
    if ingested:
        line += ": " + ", ".join(map(str, ingested))
    if not_ingested:
        line += "; not ingested (see above): " + ", ".join(map(str, not_ingested))
    if skipped:
        line += f"; {skipped} other file(s) skipped"
    return line


def timeout_line(name: str, where: str, seconds: float, workspace: str) -> str:
    """An ingest not done in time; `where` is where it stands (worker.cli.status.waiting_line)."""
    return (
        f"{name}: not ingested after {seconds:g} s ({where}); it goes on in the background: "
        f"`segcite documents --workspace {workspace}` shows where it stands"
    )


def answer_timeout_line(status: str, seconds: float, where: str) -> str:
    """Why `ask` stopped waiting, from the message's last status; `where` is where a pending question stands
    (worker.cli.status.waiting_line)."""
    if status != "pending":
        return f"no answer after {seconds:g} s: a worker is still writing it"
    return f"no answer after {seconds:g} s: the question is {where}"


def started_line(started: list[str], home: Path, worker_pid: int | None) -> str:
    """The services a command started for itself, and how to stop them (they keep running)."""
    embedded = [name for name in started if name != "a worker"]
    parts = ([f"the embedded {' and '.join(embedded)}"] if embedded else []) + (["a worker"] if worker_pid else [])
    log = f" (log: {home / 'worker.log'})" if worker_pid else ""
    running, them = ("they keep running", "them") if len(started) > 1 else ("it keeps running", "it")
    joined = (", and " if len(embedded) > 1 else " and ").join(parts)  # "Redis and PostgreSQL, and a worker"
    return f"started {joined}{log}; {running}: `segcite down` stops {them}"


def documents_table(rows: list[DocumentRow]) -> list[str]:
    """`segcite documents`: a header and a line per document, aligned; a failed one's error on the next line."""
    header = ("ID", "FILE", "STATUS", "PAGES", "SEGMENTS", "UPDATED")
    cells = [
        (
            row.id,
            row.filename,
            _status(row),
            _number(row.page_count),
            _number(row.segment_count),
            _when(row.updated_at),
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    right = {3, 4}  # numbers align right
    lines = []
    for row, line in zip([None, *rows], [header, *cells], strict=True):
        padded = (v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths, strict=True)))
        lines.append("  ".join(padded).rstrip())
        if row is not None and row.status == DocumentStatus.FAILED and row.error:
            lines.append(f"  error: {row.error.splitlines()[0]}")
    return lines


def _status(row: DocumentRow) -> str:
    if row.status in (DocumentStatus.UPLOADED, DocumentStatus.PARSING, DocumentStatus.PARSED, DocumentStatus.INGESTING):
        return f"{row.status} {math.floor(row.progress * 100)}%"
    return str(row.status)


def _number(value: int | None) -> str:
    return "-" if value is None else str(value)


def _when(value: datetime | None) -> str:
    return "-" if value is None else value.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def document_json(row: DocumentRow) -> dict[str, Any]:
    """`segcite documents --json`: one document as the app would see its row."""
    return {
        "id": row.id,
        "workspace_id": row.workspace_id,
        "filename": row.filename,
        "status": str(row.status),
        "progress": row.progress,
        "page_count": row.page_count,
        "segment_count": row.segment_count,
        "error": row.error,
        "content_hash": row.content_hash,
        "updated_at": row.updated_at.isoformat() if row.updated_at else None,
    }


QUOTE_CHARS = 200


def citation_line(citation: dict[str, Any], filename: str) -> str:
    """`[1] report.json, page 2 (cited): “the passage that backs it”`, with the citation's warning if any; a
    citation backing several claims shows the passage of each (`quotes`), joined by ` … `."""
    quotes = citation.get("quotes") or [citation.get("quote") or {}]
    passages = [" ".join((q.get("text") or "").split()) for q in quotes]
    quote = " … ".join(p for p in passages if p) or " ".join((citation.get("snippet_preview") or "").split())
    if len(quote) > QUOTE_CHARS:
        quote = quote[: QUOTE_CHARS - 1].rsplit(" ", 1)[0] + "…"
    warning = f" [warning: {citation['warning']}]" if citation.get("warning") else ""
    where = f"{filename}, page {citation['page_idx'] + 1} ({citation['citation_status']})"
    return f"[{citation['number']}] {where}: “{quote}”{warning}"
