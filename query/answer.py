"""`build_answer`: the raw model output -> the message payload of design §5.8."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any

from ingest import Segment
from query.markers import parse_markers
from query.match import SegmentSource
from query.model import ResolvedSection
from query.parse import parse_sections
from query.resolve import resolve_sections

SNIPPET_CHARS = 200
# The section's final punctuation (with closing quotes/brackets): markers go just before it.
_FINAL_PUNCTUATION = re.compile(r"([.!?…:;。]+[\"'”’)\]]*)\s*$")


def snippet_preview(text: str, limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters, cut at a word boundary with `…`."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


def with_markers(text: str, numbers: list[int]) -> str:
    """`… capital.` + [1, 2] -> `… capital [1][2].`"""
    if not numbers:
        return text
    cluster = "".join(f"[{n}]" for n in numbers)
    match = _FINAL_PUNCTUATION.search(text)
    if match is None:
        return f"{text} {cluster}"
    return f"{text[: match.start()].rstrip()} {cluster}{match.group(1)}"


def number_citations(resolved: list[ResolvedSection]) -> tuple[dict[str, int], list[list[int]]]:
    """Numbers 1..n by first appearance, one per segment; and each section's numbers."""
    numbering: dict[str, int] = {}
    per_section: list[list[int]] = []
    for section in resolved:
        numbers: list[int] = []
        for citation in section.citations:
            number = numbering.setdefault(citation.segment.segment_id, len(numbering) + 1)
            if number not in numbers:
                numbers.append(number)
        per_section.append(numbers)
    return numbering, per_section


def build_answer(
    raw_llm_output: str | None,
    *,
    context: Iterable[Segment | Mapping[str, Any]],
    workspace: SegmentSource | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The payload of design §5.8. `context`: the segments retrieved for this question; `workspace`: every
    segment of the workspace (a mapping segment_id -> segment, or a SegmentSource), for existence checks and
    the second tier of the fallback; without it the context is the whole world."""
    resolved = resolve_sections(parse_sections(raw_llm_output), context=context, workspace=workspace)
    numbering, per_section = number_citations(resolved)
    content = "\n\n".join(with_markers(s.text, numbers) for s, numbers in zip(resolved, per_section, strict=True))
    parsed = parse_markers(content, len(numbering))

    citations: dict[str, dict[str, Any]] = {}
    for section in resolved:
        for citation in section.citations:
            segment = citation.segment
            if segment.segment_id in citations:
                continue
            citations[segment.segment_id] = {
                "number": numbering[segment.segment_id],
                "segment_id": segment.segment_id,
                "document_id": segment.document_id,
                "segment_index": segment.segment_index,
                "page_idx": segment.page_idx,
                "snippet_preview": snippet_preview(segment.text),
                "bbox": asdict(segment.bbox) if segment.bbox else None,
                "method": citation.method,
                "citation_status": section.status,
                "citation_score": citation.score,
                "support": citation.support,
            }
    stats = {status: 0 for status in ("cited", "matched", "invalid", "uncited")}
    for section in resolved:
        stats[section.status] += 1
    return {
        "content": content,
        "metadata": {
            "sections": [
                {
                    "text": s.text,
                    "source_ids": s.source_ids,
                    "citations": numbers,
                    "citation_status": s.status,
                    "citation_score": s.score,
                    "citation_error": s.error,
                }
                for s, numbers in zip(resolved, per_section, strict=True)
            ],
            "citations": sorted(citations.values(), key=lambda c: c["number"]),
            "sentences": [
                {"text": s.text, "start": s.start, "end": s.end, "citation_ids": s.citation_ids}
                for s in parsed.sentences
            ],
            "citation_map": {
                str(number): [
                    {"sentence_index": i, "sentence_text": parsed.sentences[i].text} for i in sentence_indexes
                ]
                for number, sentence_indexes in sorted(parsed.citation_to_sentences.items())
            },
            "stats": stats,
        },
    }
