"""What the offline answerer may copy from a segment: a table's rows, `label: value` pairs (a label line and the
value line under it count as one), lines that hold a value in their label, and the sentences of prose, each with
the text that labels it without being copied (a table's header row, the short line above a line of its own)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest import Segment
from ingest.tables import EMPTY_CELL
from query.citations.markers import split_sentences
from query.language.layout import layout_pairs

SHORT_LINE = 60  # characters: a line this short, with no label of its own, is labelled by the line above it

# "AMOUNT DUE", "CUSTOMER SERVICE 24 HOURS A DAY": a label, no value (CJK text ends sentences with "。", writes "：")
_LABEL_LINE = re.compile(r"^[^|:.!?。！？：]{2,60}$")
_LABELLED = re.compile(r"^[^:：]{1,40}(?::(?:\s|$)|：)")  # "Phone #: (906) …", "Marital Status:": a line with its label
_MONTH_START = re.compile(r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.IGNORECASE)
_FUNCTION_ENDS = frozenset("a an the and or of to in on at by for with from that which who as".split())


@dataclass(frozen=True)
class Candidate:
    text: str
    segment: Segment
    order: int  # the segment's place in the context
    row: bool = False  # a table's row: copied whole, labelled by its first cell
    header: str = ""  # text that labels it without being copied: a table's header row


def candidates_of(segment: Segment, order: int) -> list[Candidate]:
    lines = [" ".join(line.split()) for line in segment.text.splitlines()]
    lines = [line for line in lines if line]
    if segment.kind == "table" or (lines and all(" | " in line or line.endswith("|") for line in lines)):
        header = lines[0] if segment.kind == "table" else ""
        return [Candidate(row, segment, order, True, header) for row in filter(None, map(_row, lines))]
    read = [Candidate(text, segment, order, False, header) for text, header in candidate_texts(lines)]
    seen = {c.text for c in read}
    # where the boxes show a value beside its label that reading order put apart (query.language.layout)
    shown = [Candidate(p.text, segment, order, p.row, p.header) for p in layout_pairs(segment) if p.text not in seen]
    return read + shown


def candidate_texts(lines: list[str]) -> list[tuple[str, str]]:
    """What could be copied from a segment's lines, each with the text that labels it without being copied:
    `label: value` pairs (a label line and the value under it), lines that hold a value in their label
    ("Tax (10%):"), and the sentences of prose (lines broken by the layout joined first); a short line of its own
    ("user@companyabc.com") is labelled by the line above it ("FROM: Company ABC")."""
    texts: list[tuple[str, str]] = []
    width = max(map(len, lines), default=0)
    after = [*lines[2:], "", ""][: len(lines)]
    for previous, line, below, next_ in zip(["", *lines[:-1]], lines, [*lines[1:], ""], after, strict=True):
        if _runs_on(previous, line, width):
            continue  # the end of a sentence, not a label
        in_step = _in_step(previous, next_)
        if _labels(line, below) and in_step:
            texts.append((f"{line} {below}", ""))
        elif _is_value(below) and _names_a_value(line) and in_step:
            texts.append((f"{line}: {below}", ""))
        elif line.endswith(":") and any(c.isdigit() for c in line):
            texts.append((line, ""))
    for block, above in _prose_blocks(lines):
        if len(block) > 160:
            texts.extend((block[s:e], "") for s, e in split_sentences(block))
        elif not block.endswith(":"):
            texts.append((block, above if len(block) <= SHORT_LINE and ":" not in block else ""))
    return texts


def _labels(line: str, below: str) -> bool:
    """`line` is a label ("Due Date:") and `below` its value: not a label, not labelled itself, short."""
    if not line.endswith(":") or not below or len(below) > 80:
        return False
    return not _LABELLED.match(below) and not below.endswith(":")


def _names_a_value(line: str) -> bool:
    """A short line of words, no value of its own: "AMOUNT DUE", "CUSTOMER SERVICE 24 HOURS A DAY"."""
    if not _LABEL_LINE.match(line) or len(line.split()) > 8:
        return False
    return sum(map(str.isalpha, line)) >= 2 * sum(map(str.isdigit, line))


def _is_value(line: str) -> bool:
    """A short line that starts with a value and has no label of its own: "$148.89", "May 17 2018",
    "1-800-251-7234, toll-free" (not "Facture du 11/12/2022" or "Page 1/1")."""
    if not (0 < len(line) <= 40 and ":" not in line and any(c.isdigit() for c in line)):
        return False
    first = line.split()[0]
    return any(c.isdigit() for c in first) or first[0] in "$€£¥(+-" or _MONTH_START.match(first) is not None


def _row(line: str) -> str:
    """A table row with its empty cells (blank, or ingest's `—` placeholder) dropped: "Sales Tax: | 45.00"."""
    cells = (cell.strip() for cell in line.split("|"))
    return " | ".join(cell for cell in cells if cell and cell != EMPTY_CELL)


def _prose_blocks(lines: list[str]) -> list[tuple[str, str]]:
    """Lines joined where one runs on into the next (prose wrapped by the page's layout), each with the block above
    it when that is one short line in step with it (a label, not the end of a sentence)."""
    width = max(map(len, lines), default=0)
    blocks: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        previous = lines[i - 1] if i else ""
        if blocks and _runs_on(previous, line, width):
            blocks[-1] = (f"{blocks[-1][0]} {line}", blocks[-1][1])
            continue
        # (a label ending in a colon was paired with its value above, unless it stands in a run of labels)
        labels = blocks and blocks[-1][0] == previous and len(previous) <= SHORT_LINE and previous[-1:] != ":"
        before, below = lines[i - 2] if i > 1 else "", lines[i + 1] if i + 1 < len(lines) else ""
        blocks.append((line, previous if labels and _in_step(before, below) else ""))
    return blocks


def _in_step(before: str, after: str) -> bool:
    """A label and the value under it, with `before` the line above the label and `after` the line under the
    value: not in step when labels run over values (a table read column by column: "Payé / Total / 6,00€ /
    3,50€" pairs nothing)."""
    return not (_is_value(after) and (before.endswith(":") or _names_a_value(before)))


def _runs_on(previous: str, line: str, width: int) -> bool:
    """`previous` goes on in `line`: it ends on a word that cannot end a sentence ("…, Licensee and"), or it is
    about as wide as the widest line and ends neither a sentence nor a label, and `line` is not a `label: value`."""
    last = previous.rsplit(" ", 1)[-1].casefold()
    if len(previous) >= 40 and last in _FUNCTION_ENDS:
        return True
    return (
        len(previous) >= max(40, 0.6 * width)
        and not previous.endswith((".", ":", ";", "!", "?"))
        and not _LABELLED.match(previous)
        and not _LABELLED.match(line)
    )
