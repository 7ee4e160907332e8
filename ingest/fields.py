"""Document AI's own label -> value pairs as segments of kind `field` (design §3 "Fields").

Reading order cannot pair a label with its value (in many invoices the values come before their labels), but
Document AI already did: Form Parser's `pages[].formFields` (a name and a value, each with its layout) and the
`entities` of the Invoice, Expense, ID and other parsers (a type, the mention text, a normalized value, a box on
a page). Each pair becomes one segment, `Tax (10%): $1,767.97`, with one line per part (its
span in the segment's text and its box), after the document's other segments. Its text repeats characters other
segments hold, so it is left out of "nothing lost or duplicated".

A field is derived, never needed: one whose anchors do not fit the text, or that has no label or no value, is
left out rather than refusing the document.
"""

from __future__ import annotations

import functools

import msgspec

from ingest.geometry import box, layout_box, poly_extent, union
from ingest.load import Shard
from ingest.model import BBox, Line, Segment
from ingest.schema import Entity, FormField, Layout, Page, PageRef, TextAnchor

Run = tuple[int, int]
Part = tuple[str, BBox | None]  # a part's text in the field, and its box

MIN_CONFIDENCE = 0.5
MAX_VALUE_CHARS = 120  # a value longer than this is a passage, not a value
RAW_VALUE_BYTES = 8 * MAX_VALUE_CHARS  # a mention this long in JSON (escapes, UTF-8) is one for sure
CHECKBOX_VALUES = {"filled_checkbox": "checked", "unfilled_checkbox": "unchecked"}
ACRONYMS = frozenset({"vat", "id", "iban", "bic", "swift", "po", "dob", "ssn", "gst", "hst", "pst", "abn", "tin"})


def field_segments(shards: list[Shard], document_id: str, first_index: int, max_chars: int) -> list[Segment]:
    """The fields of a document's shards by page (on each page its form fields, then its entities), numbered
    from `first_index`; one segment per distinct text, on the first page that has it. A field longer than
    `max_chars` (a form "value" that is a whole page) is left out: segments stay within the chunk size."""
    out: list[Segment] = []
    seen: set[str] = set()

    def add(page_idx: int, label: Part, parts: list[Part], runs: list[Run], shard: Shard) -> None:
        text, lines = _join(label, parts)
        if text in seen or len(text) > max_chars:
            return  # a form repeated on every page (a 48-page invoice of one page): its fields once, where first
        seen.add(text)
        start = min((a for a, _ in runs), default=None)
        end = max((b for _, b in runs), default=None)
        offset = shard.text_offset
        out.append(
            Segment(
                document_id,
                0,  # numbered once sorted by page, below
                page_idx,
                "field",
                text,
                start + offset if start is not None else None,
                end + offset if end is not None else None,
                union([line.bbox for line in lines]),
                tuple(lines) or None,  # no part has a box: no line geometry
            )
        )

    for shard in shards:
        for number, page in enumerate(shard.doc.pages, start=1):
            page_idx = (page.pageNumber or page.page_number or number) - 1
            for form_field in page.fields:
                found = _form_field(form_field, page, shard)
                if found is not None:
                    name, value, runs = found
                    add(page_idx, name, [value], runs, shard)
    for shard in shards:
        for entity in shard.doc.entities:
            found_entity = _entity(entity, shard)
            if found_entity is not None:
                page_idx, label, parts, runs = found_entity
                add(page_idx, (label, None), parts, runs, shard)
    out.sort(key=lambda s: s.page_idx)  # stable: form fields before entities on each page
    return [msgspec.structs.replace(s, segment_index=first_index + n) for n, s in enumerate(out)]


def _join(label: Part, parts: list[Part]) -> tuple[str, list[Line]]:
    """`label: part; part`, and one line per part that has a box (the label has one when it was read from the
    page, not named after an entity's type)."""
    name, name_box = label
    lines = [Line(0, len(name), name_box)] if name_box is not None else []
    text = f"{name}: "
    for n, (part, bbox) in enumerate(parts):
        if n:
            text += "; "
        if bbox is not None:
            lines.append(Line(len(text), len(text) + len(part), bbox))
        text += part
    return text, lines


def _form_field(form_field: FormField, page: Page, shard: Shard) -> tuple[Part, Part, list[Run]] | None:
    """`(name part, value part, runs)`; None without a name or a value."""
    name_runs, value_runs = _runs(_anchor(form_field.name), shard), _runs(_anchor(form_field.value), shard)
    name = _clean(_text(name_runs, shard)).strip(": ")
    # A check box's value is its state, whatever mark was read for it ("✔", or nothing).
    checkbox = CHECKBOX_VALUES.get(form_field.valueType or form_field.value_type)
    value = checkbox or _clean(_text(value_runs, shard))
    if not any(c.isalpha() for c in name) or not value or len(value) > MAX_VALUE_CHARS:
        return None  # no label (`, 16:42`), no value, or a passage
    name_part = (name, layout_box(form_field.name, page))
    return name_part, (value, layout_box(form_field.value, page)), name_runs + value_runs


def _entity(entity: Entity, shard: Shard) -> tuple[int, str, list[Part], list[Run]] | None:
    """`(page_idx, label, parts, runs)` of a top-level entity that is one value the parser is fairly sure of.

    Left out: a classifier's or splitter's label (a type, no value or the whole document's text); an entity made
    of properties (a line item, a VAT group),
    whose values the page's table rows or lines hold with their context, where a field would hold them without
    (`quantity: 500` of which item?); and a guess (confidence below MIN_CONFIDENCE: the Invoice Parser fills every
    type it knows, `Supplier IBAN: 50` at 0.0)."""
    mention = entity.mention
    if entity.properties or entity.confidence < MIN_CONFIDENCE or not (mention or entity.anchor):
        return None
    if len(mention) > RAW_VALUE_BYTES or _anchored_length(entity.anchor) > 2 * MAX_VALUE_CHARS:
        return None  # a passage (a splitter's document class mentions the whole document): never decoded
    label = _label(entity.kind)
    value = _mention(entity, shard)
    if not label or not any(c.isalnum() for c in value) or len(value) > MAX_VALUE_CHARS:
        return None  # no value (`Currency: $`), or a whole document (a splitter's `Payslip: <its text>`)
    normalized = entity.normalized
    if normalized is not None and normalized.is_date and normalized.text and normalized.text not in value:
        value = f"{value} ({normalized.text})"  # a date as written and as ISO: either spelling finds it
    page_idx, page = _entity_page(entity, shard)
    return page_idx, label, [(value, _refs_box(entity.refs, page, shard))], _runs(entity.anchor, shard)


def _entity_page(entity: Entity, shard: Shard) -> tuple[int, Page | None]:
    """The entity's page (its first page reference, an index into the shard's pages) as `page_idx`."""
    pages = shard.doc.pages
    index = entity.refs[0].page if entity.refs else 0
    if not 0 <= index < len(pages):
        return index, None
    page = pages[index]
    return (page.pageNumber or page.page_number or index + 1) - 1, page


def _refs_box(refs: tuple[PageRef, ...], page: Page | None, shard: Shard) -> BBox | None:
    """The union of an entity's boxes on its page (the page of its first reference)."""
    if page is None or not refs:
        return None
    boxes: list[BBox | None] = []
    for ref in refs:
        if ref.page != refs[0].page:
            continue
        poly = ref.poly
        extent = poly_extent(poly, page) if poly is not None else None
        boxes.append(box(*extent) if extent is not None else None)
    return union(boxes)


def _mention(entity: Entity, shard: Shard) -> str:
    raw = entity.mention
    mention = msgspec.json.decode(raw, type=str) if raw else ""
    return _clean(mention) or _clean(_text(_runs(entity.anchor, shard), shard))


def _anchored_length(anchor: TextAnchor | None) -> int:
    if anchor is None:
        return 0
    return sum(s.end - s.start for s in (anchor.textSegments or anchor.text_segments))


def _anchor(layout: Layout | None) -> TextAnchor | None:
    return (layout.textAnchor or layout.text_anchor) if layout is not None else None


def _runs(anchor: TextAnchor | None, shard: Shard) -> list[Run]:
    """The anchor's runs that lie inside the shard's text (a field never refuses a document)."""
    if anchor is None:
        return []
    length = len(shard.doc.text)
    return [(s.start, s.end) for s in (anchor.textSegments or anchor.text_segments) if 0 <= s.start < s.end <= length]


def _text(runs: list[Run], shard: Shard) -> str:
    return " ".join(shard.doc.text[a:b] for a, b in runs)


def _clean(text: str) -> str:
    return " ".join(text.split())


@functools.lru_cache(maxsize=1024)  # a few dozen entity types, met again in every document
def _label(kind: str) -> str:
    """`total_amount` -> `Total amount`, `vat` -> `VAT`: an entity type as a reader would write its label."""
    words = [w for w in kind.replace("/", " ").replace("_", " ").replace("-", " ").split() if w]
    if not words:
        return ""
    words = [w.upper() if w.casefold() in ACRONYMS else w for w in words]
    first = words[0]
    words[0] = first if first.isupper() else first[:1].upper() + first[1:]
    return " ".join(words)
