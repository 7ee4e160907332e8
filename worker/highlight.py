"""`segcite highlight`: where an answer's highlights land, drawn for a person to look at (issue 12).

Each cited page becomes a PNG: the page's own image where the Document AI JSON carries one (issue 27), else a
blank page of the document's aspect ratio; every citation's `boxes` (the lines of its quote, design §5.8) filled
in translucent yellow with the citation's number beside them, and the segment's own box outlined in grey, so a
reader sees at once whether the highlight sits on the words it quotes. No PDF is needed: the boxes are normalized
(0..1) on the page, and Document AI gives them relative to that image (deskewed and turned upright).
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

PAGE_WIDTH = 1000  # pixels; the height follows the page's aspect ratio
LETTER = (8.5, 11.0)  # the aspect ratio of a page whose size the document does not give
HIGHLIGHT = (255, 214, 0, 110)
OUTLINE = (200, 150, 0, 255)
SEGMENT = (150, 150, 150, 255)


def missing_geometry(citations: Sequence[Mapping[str, Any]], has_image: bool) -> str | None:
    """Why a cited page shows less than it should, in one line (None: it shows everything): a citation with no
    box (no `boxes`, no `bbox`) has nothing to highlight, and a page with no image is drawn blank. The Layout
    Parser's output has neither: its text comes without any geometry, and its JSON carries no page image."""
    unboxed = ", ".join(f"[{c['number']}]" for c in citations if not (c.get("boxes") or c.get("bbox")))
    if not unboxed:
        return None if has_image else "no page image in the Document AI JSON: the highlights are on a blank page"
    if has_image:
        return f"{unboxed}: no boxes in the Document AI JSON for the quoted text: nothing to highlight"
    return (
        f"no page image and no boxes for {unboxed} in the Document AI JSON (its parser gave no page geometry, "
        "as the Layout Parser does): a blank page, nothing to highlight"
    )


def render_highlights(
    payload: Mapping[str, Any],
    page_sizes: Mapping[int, tuple[float, float]],
    document_id: str,
    out: Path,
    page_images: Mapping[int, bytes] | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> list[Path]:
    """One PNG per page of `document_id` that a citation of `payload` points at; returns their paths.
    `page_images`: the pages' images by page_idx (PNG/JPEG bytes), drawn on where given. `say` is told, in one
    line per page, what a page cannot show (`missing_geometry`)."""
    by_page: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for citation in payload.get("metadata", {}).get("citations", []):
        if citation.get("document_id") == document_id:
            by_page[int(citation["page_idx"])].append(citation)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page_idx, citations in sorted(by_page.items()):
        path = out / f"page-{page_idx + 1}.png"
        image = (page_images or {}).get(page_idx)
        draw_page(citations, page_sizes.get(page_idx, LETTER), image).save(path)
        written.append(path)
        note = missing_geometry(citations, image is not None)
        if note:
            say(f"{path}: {note}")
    return written


def draw_page(citations: list[Mapping[str, Any]], size: tuple[float, float], image: bytes | None = None) -> Image.Image:
    from PIL import Image, ImageDraw  # here: `missing_geometry` (which `segcite view` uses) needs no PIL

    if image is not None:
        with Image.open(io.BytesIO(image)) as picture:
            size = picture.size
            width, height = PAGE_WIDTH, max(1, round(PAGE_WIDTH * size[1] / size[0]))
            page = picture.convert("RGBA").resize((width, height), Image.Resampling.LANCZOS)
    else:
        width, height = PAGE_WIDTH, max(1, round(PAGE_WIDTH * size[1] / size[0])) if size[0] else PAGE_WIDTH
        page = Image.new("RGBA", (width, height), (255, 255, 255, 255))
    layer = Image.new("RGBA", page.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)

    def pixels(box: Mapping[str, float]) -> tuple[int, int, int, int]:
        return (
            round(box["x0"] * width),
            round(box["y0"] * height),
            round(box["x1"] * width),
            round(box["y1"] * height),
        )

    for citation in citations:
        if citation.get("bbox"):
            draw.rectangle(pixels(citation["bbox"]), outline=SEGMENT, width=1)
        boxes = citation.get("boxes") or []
        for box in boxes:
            draw.rectangle(pixels(box), fill=HIGHLIGHT, outline=OUTLINE, width=1)
        if boxes:
            x0, y0, _, _ = pixels(boxes[0])
            draw.text((max(0, x0 - 28), y0), f"[{citation['number']}]", fill=OUTLINE)
    return Image.alpha_composite(page, layer).convert("RGB")
