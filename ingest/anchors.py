"""Text read through Document AI text anchors: validated runs of the text, and table cells taken out of them."""

from __future__ import annotations

import bisect

from ingest.load import Shard
from ingest.model import InvalidDocument
from ingest.schema import Layout, TextSegment

Run = tuple[int, int]  # [start, end) in the shard's text


def anchor_runs(layout: Layout | None, shard: Shard, page_idx: int) -> list[Run]:
    """The non-empty runs of an element's text anchor; every anchor read is checked against the text."""
    # Hot path (every paragraph, line and cell): the two spellings' fields are read directly, not through
    # the schema's properties.
    anchor = (layout.textAnchor or layout.text_anchor) if layout is not None else None
    if anchor is None:
        return []
    segments = anchor.textSegments or anchor.text_segments
    if len(segments) == 1:  # the usual case
        segment = segments[0]
        start, end = segment.startIndex or segment.start_index, segment.endIndex or segment.end_index
        if 0 <= start < end <= len(shard.doc.text):
            return [(start, end)]
    return _checked_runs(segments, shard, page_idx)


def _checked_runs(segments: tuple[TextSegment, ...], shard: Shard, page_idx: int) -> list[Run]:
    length = len(shard.doc.text)
    runs: list[Run] = []
    for segment in segments:
        start, end = segment.start, segment.end
        if not 0 <= start <= end <= length:
            raise InvalidDocument(
                f"{shard.where}page {page_idx + 1}: a text anchor [{start}, {end}) lies outside the document text "
                f"({length} characters); the JSON is truncated or its shards are mixed up"
            )
        if end > start:
            runs.append((start, end))
    return runs


class Cuts:
    """Character ranges that belong to table cells, taken out of the text of paragraphs, blocks and pages, so
    that a paragraph overlapping a table keeps exactly its characters outside the cells (design §3)."""

    def __init__(self, runs: list[Run]):
        merged: list[list[int]] = []
        for start, end in sorted(runs):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [start for start, _ in merged]
        self.ends = [end for _, end in merged]

    def covers(self, start: int, end: int) -> bool:
        """Whether [start, end) lies inside one cut range (a Form Parser paragraph that is a table cell)."""
        index = bisect.bisect_right(self.starts, start) - 1
        return index >= 0 and end <= self.ends[index]

    def pieces(self, runs: list[Run]) -> list[list[Run]]:
        """The runs without the cut ranges, grouped into pieces: a run the cuts split or shortened ends its
        piece there, so the text on each side of a table stays on its side of the table's segment."""
        starts = self.starts
        if not starts:
            return [runs] if runs else []
        if len(runs) == 1:  # the usual case: a paragraph clear of every table
            index = bisect.bisect_right(starts, runs[0][0])
            clear_before = index == 0 or self.ends[index - 1] <= runs[0][0]
            if clear_before and (index == len(starts) or starts[index] >= runs[0][1]):
                return [runs]
        pieces: list[list[Run]] = []
        current: list[Run] = []
        for start, end in runs:
            kept = self._outside(start, end)
            for a, b in kept:
                if a != start and current:
                    pieces.append(current)
                    current = []
                current.append((a, b))
            if current and (not kept or kept[-1][1] != end):
                pieces.append(current)
                current = []
        if current:
            pieces.append(current)
        return pieces

    def _outside(self, start: int, end: int) -> list[Run]:
        first = bisect.bisect_right(self.ends, start)  # the first cut that ends after `start`
        if first == len(self.starts) or self.starts[first] >= end:
            return [(start, end)]
        kept: list[Run] = []
        position = start
        for index in range(first, len(self.starts)):
            cut_start, cut_end = self.starts[index], self.ends[index]
            if cut_start >= end:
                break
            if cut_start > position:
                kept.append((position, cut_start))
            position = max(position, cut_end)
        if position < end:
            kept.append((position, end))
        return kept


class AnchoredText:
    """The text of some runs of one shard: `text[lo:hi]`, with the global offset of each run.

    One run (the usual case) indexes the shard's text itself: slicing a non-ASCII string scans it, so the
    element's text is never copied out before the pieces are; several runs are joined into a new string."""

    __slots__ = ("globals_", "hi", "lengths", "lo", "shift", "starts", "text")

    def __init__(self, runs: list[Run], shard: Shard):
        if len(runs) == 1:
            self.text = shard.doc.text
            self.lo, self.hi = runs[0]
            self.shift: int | None = shard.text_offset  # global = local + shift
            self.starts = [self.lo]  # where each run starts in `text`
            self.globals_ = [shard.text_offset + self.lo]  # and in the global text
            self.lengths = [self.hi - self.lo]
            return
        self.text = "".join(shard.doc.text[start:end] for start, end in runs)
        self.lo, self.hi, self.shift = 0, len(self.text), None
        self.starts, self.globals_, self.lengths = [], [], []
        local = 0
        for start, end in runs:
            self.starts.append(local)
            self.globals_.append(shard.text_offset + start)
            self.lengths.append(end - start)
            local += end - start

    def to_global(self, local: int) -> int:
        if self.shift is not None:
            return local + self.shift
        run = bisect.bisect_right(self.starts, local) - 1
        return self.globals_[run] + (local - self.starts[run])

    def global_span(self, start: int, end: int) -> tuple[int, int]:
        if self.shift is not None:
            return start + self.shift, end + self.shift
        return self.to_global(start), self.to_global(end - 1) + 1
