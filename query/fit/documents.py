"""Which part of a document a segment speaks for: a segment, its neighbours and its document's head (`ScopeWords`),
and whether two segments of one file speak of one document (`same_document`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ingest import Segment, make_segment_id
from query.fit.words import names_of
from query.language.question import Words, union, words_of


class ScopeWords:
    """The words of the part of a document a segment belongs to: the segment, its neighbours and the document's head
    (its first segments, where it says what it is: "Google INVOICE … John Smith"; a field, Document AI's label and
    value, comes after the document's text). Not the whole file: one file may hold several documents (a splitter's
    output: an invoice, a receipt and a bill, which ingest puts on pages of their own), and a name spoken of in
    another of them does not make this one about it (`same_document`). Segments come from the context; with
    `workspace=True` the missing ones from `lookup` (the workspace), once each. Names need only the words
    (`stems=False`, cheap); a kind of document ("invoice") is said once for all of it, so with `stems=True` every
    known segment of the document counts."""

    HEAD, NEAR = 3, 1

    def __init__(self, context: Iterable[Segment], lookup: Callable[[list[str]], Mapping[str, Segment]] | None = None):
        self._known: dict[str, Segment | None] = {s.segment_id: s for s in context}
        self._lookup = lookup
        self._words: dict[tuple[str, bool, bool], Words] = {}

    @property
    def context(self) -> list[Segment]:
        """The segments known: the context's, and those looked up."""
        return [s for s in self._known.values() if s is not None]

    def _around(self, segment: Segment) -> list[str]:
        """The ids of the segment's neighbours and of its document's head, in order."""
        index = segment.segment_index
        indexes = set(range(max(0, index - self.NEAR), index + self.NEAR + 1)) | set(range(self.HEAD))
        return [make_segment_id(segment.document_id, i) for i in sorted(indexes) if i != index]

    def _known_around(self, segment: Segment) -> list[Segment]:
        return [s for i in self._around(segment) if (s := self._known.get(i)) is not None and same_document(s, segment)]

    def title(self, segment: Segment, lines: int | None = 5) -> str:
        """The first `lines` lines (None: all) of the segment's document: where it says what it is ("SCE&G … JWANNA
        SPANN … ACCOUNT NUMBER"). Its first segment, from the workspace where the context lacks it; in a file of
        several documents, the first known one of the segment's."""
        head = [make_segment_id(segment.document_id, i) for i in range(min(self.HEAD, segment.segment_index))]
        missing = [i for i in head if i not in self._known]
        if missing and self._lookup is not None:
            found = self._lookup(missing)
            self._known.update({i: found.get(i) for i in missing})
        first = min(
            (s for s in self.context if same_document(s, segment) and s.segment_index <= segment.segment_index),
            key=lambda s: s.segment_index,
            default=segment,
        )
        if first.segment_index >= self.HEAD and first.segment_id != segment.segment_id and not _text_alone(first):
            return ""  # (the document's head is not known: a later segment says nothing of what it is)
        return "\n".join(first.text.splitlines()[:lines])

    def texts(self, segment: Segment) -> list[str]:
        """The texts of the segment and of those known around it (its neighbours, its document's head)."""
        return [segment.text] + [s.text for s in self._known_around(segment)]

    def __call__(self, segment: Segment, *, stems: bool = False, workspace: bool = True) -> Words:
        key = (segment.segment_id, stems, workspace)
        if key not in self._words:
            missing = [i for i in self._around(segment) if i not in self._known]
            if workspace and missing and self._lookup is not None:
                found = self._lookup(missing)
                self._known.update({i: found.get(i) for i in missing})  # (None: not there, not asked again)
            if stems:  # what kind of document it is: all of it that is known
                document = [s for s in self.context if s is not segment and same_document(s, segment)]
                texts = [segment.text] + [s.text for s in document]
            else:
                texts = self.texts(segment)
            of = words_of if stems else names_of
            words = of(texts[0])
            for text in texts[1:]:
                words = union(words, of(text))
            self._words[key] = words
        return self._words[key]


def _text_alone(segment: Segment) -> bool:
    """A segment of a file of text alone, where pages are documents (`same_document`)."""
    return segment.bbox is None and segment.kind == "text"


def same_document(a: Segment, b: Segment) -> bool:
    """Whether two segments of one file speak of one document. A file of text alone (no layout: no boxes, kind
    `text`) has pages only where a splitter said which of its documents each piece of text is (ingest's
    `splitter_parts`): there, another page is another document (an invoice, then a receipt)."""
    if a.document_id != b.document_id:
        return False
    text_alone = _text_alone(a) and _text_alone(b)
    return a.page_idx == b.page_idx or not text_alone
