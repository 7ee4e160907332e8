"""`segcite view`: an answer as one self-contained HTML file a person can read and check (design §9, issue 27).

The answer with its markers; each citation with its document, page, quote, support and warning; a marker (a
button: mouse, touch or keyboard) shows the cited page's image with the quote's boxes highlighted and scrolled
into view. It opens on the first citation, or on the one its address names (`#c2`, issue 43), and previous /
next (buttons, arrow keys) step through them. Every page image is inlined once as a data URI and the boxes are
placed in percent of the page, so they land on the words at any width, a phone's included. No server, no network
(a Content-Security-Policy forbids it), no build step: a little inline script toggles what is shown.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from query import uncertain_note
from worker.errors import MissingObject, TransientError
from worker.highlight import missing_geometry
from worker.objects import ObjectStore
from worker.stores import Store
from worker.stores.rows import MessageRow
from worker.view_assets import HEAD, SCRIPT

LETTER = (8.5, 11.0)  # the shape of a page whose image is not stored (no size known)
_MARKER = re.compile(r"\[(\d+)\]")


@dataclass
class PageView:
    """One cited page: its image (a data URI, or None where none is stored) and the citations on it."""

    document_id: str
    page_idx: int
    width: float
    height: float
    data_uri: str | None
    citations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        """The figure's element id (escaped: it goes into attributes as is)."""
        return html.escape(f"page-{self.document_id}-{self.page_idx}")


@dataclass
class AnswerView:
    question: str | None
    content: str
    citations: list[dict[str, Any]]
    filenames: Mapping[str, str]
    pages: list[PageView]
    notes: list[str] = field(default_factory=list)  # what could not be shown, said on the page
    uncertain: str | None = None  # why the answer may not answer the question (answer_status `uncertain`)
    read_as: str | None = None  # a follow-up written out (metadata.standalone_question): what the answer read


def collect_view(store: Store, objects: ObjectStore, message: MessageRow) -> AnswerView:
    """What the page shows, read from the store (the message, its question, file names, page rows) and the
    object store (the page images). A page image that is not there is said, and the page drawn blank."""
    metadata = message.metadata or {}
    citations = list(metadata.get("citations") or [])
    question = store.get_message(message.reply_to) if message.reply_to else None
    document_ids = sorted({c["document_id"] for c in citations})
    filenames = {}
    for document_id in document_ids:
        row = store.get_document(document_id)
        filenames[document_id] = row.filename if row else document_id
    # Answers written before citations carried `page_image` still find their pages' images through the rows.
    stored = store.page_images(document_ids) if any("page_image" not in c for c in citations) else {}
    pages: dict[tuple[str, int], PageView] = {}
    notes: list[str] = []
    imaged: set[tuple[str, int]] = set()
    for citation in citations:
        where = (citation["document_id"], int(citation["page_idx"]))
        if where not in pages:
            image = citation.get("page_image")
            if image is None and where in stored:
                image = stored[where].citation_image()
            pages[where] = _page_view(objects, where, image, filenames[where[0]], notes)
            if image is not None:
                imaged.add(where)  # one that cannot be read is said by _page_view
        pages[where].citations.append(citation)
    for (document_id, page_idx), page in pages.items():  # what a page cannot show, said (issue 34)
        missing = missing_geometry(page.citations, has_image=(document_id, page_idx) in imaged)
        if missing:
            notes.append(f"{filenames[document_id]}, page {page_idx + 1}: {missing}")
    return AnswerView(
        question=question.content if question else None,
        content=message.content or "",
        citations=citations,
        filenames=filenames,
        pages=list(pages.values()),
        notes=notes,
        uncertain=uncertain_note(metadata),
        read_as=metadata.get("standalone_question") if metadata.get("rewrite") else None,
    )


def _page_view(
    objects: ObjectStore, where: tuple[str, int], image: Mapping[str, Any] | None, filename: str, notes: list[str]
) -> PageView:
    document_id, page_idx = where
    if image is None:
        return PageView(document_id, page_idx, *LETTER, None)
    try:
        data = objects.read(image["key"])
    except (MissingObject, TransientError) as exc:
        notes.append(f"{filename}, page {page_idx + 1}: its image could not be read ({exc})")
        return PageView(document_id, page_idx, image["width"], image["height"], None)
    uri = f"data:{_mime(data)};base64,{base64.b64encode(data).decode()}"
    return PageView(document_id, page_idx, image["width"], image["height"], uri)


def _mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data.startswith(b"GIF8"):
        return "image/gif"
    return "image/webp"  # the last kind ingest stores (ingest.page_images)


# rendering --------------------------------------------------------------------------------------------


def render_view(view: AnswerView) -> str:
    numbers = {int(c["number"]) for c in view.citations}
    page_of = {int(c["number"]): page.anchor for page in view.pages for c in page.citations}
    parts = [HEAD]
    parts.append('<main class="layout"><div class="reading">')
    if view.question:
        parts.append(f'<p class="question"><span class="label">Question</span> {html.escape(view.question)}</p>')
    if view.read_as and view.read_as != view.question:
        parts.append(f'<p class="question"><span class="label">Read as</span> {html.escape(view.read_as)}</p>')
    if view.uncertain:
        parts.append(f'<p class="uncertain" role="alert">⚠ {html.escape(view.uncertain)}</p>')
    parts.append('<section class="answer" aria-label="Answer">')
    for paragraph in view.content.split("\n\n"):
        parts.append(f"<p>{_with_markers(paragraph, numbers, page_of)}</p>")
    parts.append("</section>")
    for note in view.notes:
        parts.append(f'<p class="note">{html.escape(note)}</p>')
    if view.citations:
        parts.append('<section class="citations" aria-label="Citations"><h2>Citations</h2><ol>')
        parts.extend(_citation_item(c, view.filenames, page_of) for c in view.citations)
        parts.append("</ol></section>")
    parts.append('</div><div class="viewer" id="viewer" aria-live="polite">')
    parts.append(_stepper(len(view.citations)) if view.citations else '<p class="hint">This answer cites no page.</p>')
    parts.extend(page_figure(page, view.filenames) for page in view.pages)
    parts.append("</div></main>")
    parts.append(SCRIPT)
    parts.append("</body></html>\n")
    return "".join(parts)


def _stepper(count: int) -> str:
    """Previous / next between the citations (arrow keys too), and where the shown one is: a link to it (#cN)."""
    return (
        '<nav class="stepper" aria-label="Citations">'
        '<button type="button" class="step" data-step="-1" aria-keyshortcuts="ArrowLeft" '
        'title="Previous citation (left arrow key)">← Previous</button>'
        f'<a class="position" id="position" href="#c1">Citation 1 of {count}</a>'
        '<button type="button" class="step" data-step="1" aria-keyshortcuts="ArrowRight" '
        'title="Next citation (right arrow key)">Next →</button></nav>'
    )


def _with_markers(text: str, numbers: set[int], page_of: Mapping[int, str]) -> str:
    out, position = [], 0
    for found in _MARKER.finditer(text):
        number = int(found.group(1))
        if number not in numbers:  # `[2023]` the model wrote is text
            continue
        out.append(html.escape(text[position : found.start()]))
        out.append(_marker_button(number, page_of[number], f"[{number}]", "marker"))
        position = found.end()
    out.append(html.escape(text[position:]))
    return "".join(out).replace("\n", "<br>")


def _marker_button(number: int, page: str, label: str, css: str) -> str:
    return (
        f'<button type="button" class="{css}" data-citation="{number}" aria-controls="{page}" '
        f'aria-label="Show citation {number} on its page">{html.escape(label)}</button>'
    )


def _citation_item(citation: Mapping[str, Any], filenames: Mapping[str, str], page_of: Mapping[int, str]) -> str:
    number = int(citation["number"])
    quote = (citation.get("quote") or {}).get("text") or citation.get("snippet_preview") or ""
    support = citation.get("support")
    warning = citation.get("warning")
    meta = [
        f'<span class="document">{html.escape(filenames.get(citation["document_id"], citation["document_id"]))}</span>',
        f'<span class="page">page {int(citation["page_idx"]) + 1}</span>',
        f'<span class="status">{html.escape(str(citation.get("citation_status") or ""))}</span>',
    ]
    if support is not None:
        meta.append(f'<span class="support">support {round(float(support) * 100)}%</span>')
    return (
        f'<li id="cite-{number}" class="citation" value="{number}">'
        f'<div class="meta">{" · ".join(meta)}</div>'
        f"<blockquote>{html.escape(quote)}</blockquote>"
        + (f'<p class="warning" role="note">⚠ {html.escape(str(warning))}</p>' if warning else "")
        + _marker_button(number, page_of[number], "Show on the page", "show")
        + "</li>"
    )


def page_figure(page: PageView, filenames: Mapping[str, str]) -> str:
    ratio = page.height / page.width if page.width else LETTER[1] / LETTER[0]
    title = f"{filenames.get(page.document_id, page.document_id)}, page {page.page_idx + 1}"
    if page.data_uri:
        # Its size given, the page is laid out (and a box scrolled to) before the image is decoded.
        picture = (
            f'<img class="page-image" src="{page.data_uri}" width="{page.width:g}" height="{page.height:g}" '
            f'alt="{html.escape(title)}">'
        )
    else:
        picture = f'<div class="page-image blank" style="padding-top:{ratio * 100:.4f}%"></div>'
    boxes = []
    for citation in page.citations:
        for box in citation.get("boxes") or ([citation["bbox"]] if citation.get("bbox") else []):
            if int(box.get("page_idx", page.page_idx)) != page.page_idx:
                continue
            left, top = _percent(box["x0"]), _percent(box["y0"])
            width, height = _percent(box["x1"] - box["x0"]), _percent(box["y1"] - box["y0"])
            boxes.append(
                f'<div class="highlight" data-citation="{int(citation["number"])}" '
                f'data-box="{box["x0"]},{box["y0"]},{box["x1"]},{box["y1"]}" '
                f'style="left:{left};top:{top};width:{width};height:{height}"></div>'
            )
    return (
        f'<figure class="page-view" id="{page.anchor}" data-document="{html.escape(page.document_id)}" '
        f'data-page="{page.page_idx}" tabindex="-1" hidden>'
        f"<figcaption>{html.escape(title)}</figcaption>"
        f'<div class="page-frame">{picture}{"".join(boxes)}</div></figure>'
    )


def _percent(value: float) -> str:
    return f"{min(max(float(value), 0.0), 1.0) * 100:.4f}%"
