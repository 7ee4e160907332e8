"""A page's words, lines, paragraphs and blocks in reading order, with normalized boxes: what both readers of a
page (the PDF text layer and OCR) produce, and what `parse.docai` writes as Document AI JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

# Normalized to the page (0..1), origin at the top left as Document AI's normalizedVertices: x0, y0, x1, y1.
Box = tuple[float, float, float, float]


def union(boxes: list[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


@dataclass(slots=True)
class Word:
    text: str
    box: Box
    confidence: float = 1.0


@dataclass(slots=True)
class Line:
    words: list[Word]

    @property
    def box(self) -> Box:
        return union([w.box for w in self.words])


@dataclass(slots=True)
class Paragraph:
    lines: list[Line]

    @property
    def box(self) -> Box:
        return union([line.box for line in self.lines])


@dataclass(slots=True)
class Block:
    paragraphs: list[Paragraph]

    @property
    def box(self) -> Box:
        return union([p.box for p in self.paragraphs])


@dataclass(slots=True)
class PageLayout:
    """One page: its blocks in reading order; `ocr` says whether its words came from OCR."""

    blocks: list[Block] = field(default_factory=list)
    ocr: bool = False

    @property
    def words(self) -> list[Word]:
        return [word for line in self.lines for word in line.words]

    @property
    def lines(self) -> list[Line]:
        return [line for block in self.blocks for paragraph in block.paragraphs for line in paragraph.lines]

    @property
    def has_text(self) -> bool:
        """Whether any word holds a letter or a digit (OCR of a blank photo may read a rule as "—")."""
        return any(c.isalnum() for word in self.words for c in word.text)


def group_paragraphs(lines: list[Line]) -> list[Block]:
    """Lines in reading order -> one block per paragraph. A line continues the paragraph above it when it sits
    just below it (a gap under ~0.7 of a line), overlaps it horizontally and has about the same height (so a
    heading, a table row beside another or a new column starts a paragraph of its own)."""
    blocks: list[Block] = []
    current: list[Line] = []
    previous: Box | None = None
    for line in lines:
        box = line.box
        if previous is not None and _continues(previous, box):
            current.append(line)
        else:
            if current:
                blocks.append(Block([Paragraph(current)]))
            current = [line]
        previous = box
    if current:
        blocks.append(Block([Paragraph(current)]))
    return blocks


def _continues(above: Box, box: Box) -> bool:
    height_above, height = above[3] - above[1], box[3] - box[1]
    if height <= 0 or height_above <= 0:
        return False
    if not 0.8 <= height / height_above <= 1.25:
        return False
    gap = box[1] - above[3]
    if gap < -0.5 * height or gap > 0.7 * height:
        return False
    return min(above[2], box[2]) > max(above[0], box[0])  # overlap horizontally
