"""Questions from Document AI's fields (label -> value): `What is the <label>?`, with every value the document gives
that label accepted, and the document named where another document has that label too. Pure."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence

from evaluation.generation.wording import label_ok, the
from evaluation.normalize import plain
from evaluation.questions import Question, SegmentRef, Source

_ISO_SUFFIX = re.compile(r"^(?P<written>.+?) \((?P<iso>\d{4}-\d{2}-\d{2})\)$")


def field_questions(segments: Sequence[SegmentRef]) -> Iterator[Question]:
    """`What is the <label>?` for each label of each document, with every value that document gives it."""
    values: dict[tuple[str, str], dict[str, list[SegmentRef]]] = defaultdict(lambda: defaultdict(list))
    for s in segments:
        if s.kind != "field" or ": " not in s.text:
            continue
        label, value = s.text.split(": ", 1)
        if not label_ok(label) or not any(c.isalnum() for c in value) or "; " in value:
            continue  # several parts: which one is "the" value is unclear
        values[(plain(label), s.document)][value].append(s)
    documents_with: dict[str, set[str]] = defaultdict(set)
    for key, document in values:
        documents_with[key].add(document)
    for (key, document), found in sorted(values.items()):
        refs = [r for rs in found.values() for r in rs]
        label = refs[0].text.split(": ", 1)[0]  # as this document writes it
        named = len(documents_with[key]) > 1
        text = f"What is {the(label)} in {document}?" if named else f"What is {the(label)}?"
        answers: list[str] = []
        for value in found:
            iso = _ISO_SUFFIX.match(value)
            answers.extend([iso["written"], iso["iso"]] if iso else [value])
        pages = frozenset(r.page_idx for r in refs)
        origin = {
            "from": "field",
            "segment_id": refs[0].segment_id,
            "document": document,
            "page": refs[0].page_idx + 1,
            "subject": label,
            "label": label,
        }
        expected = (tuple(dict.fromkeys(answers)),)
        yield Question(f"field:{refs[0].segment_id}", text, "field", expected, (Source(document, pages),), origin)
