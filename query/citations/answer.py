"""`build_answer`: the raw model output -> the message payload of design §5.8.

The payload is assembled section by section (`AnswerBuilder`): citation numbers are given by first
appearance and never change as sections are appended, so a caller that resolves sections while a model
streams them shows the same numbers as the final payload, which equals `build_answer` on the whole output.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from ingest import Segment
from query.citations.defuse import defused
from query.citations.markers import sentence_markers
from query.citations.match import SegmentSource
from query.citations.model import ResolvedSection, SectionCitation, as_segments
from query.citations.parse import parse_answer, without_surrogates
from query.citations.quote import Quote, find_quotes, quotes_boxes, snippet_preview
from query.citations.resolve import SectionResolver, as_source, mentioned_ids
from query.citations.verify import Verifier
from query.fit.check import FitCheck
from query.fit.documents import ScopeWords
from query.fit.not_found import says_not_found
from query.fit.relation import Verification
from query.fit.verdict import FITS, Answered, Fit, answer_status
from query.language.question import Words, union, words_of

# (document_id, page_idx) -> that page's stored image `{"key", "width", "height"}`: what the caller knows of the
# pages (the worker reads it from `document_pages`); a page it does not hold has no image.
PageImages = Mapping[tuple[str, int], Mapping[str, Any]]
NO_PAGE_IMAGES: PageImages = {}

RAW_OUTPUT_BYTES = 65_536  # metadata.raw_output keeps at most this much of the model's reply
STATUSES = ("cited", "matched", "invalid", "uncited")
# A sentence's final punctuation (with closing quotes/brackets, then maybe spaces): markers go just before it.
_FINAL_PUNCTUATION = ".!?…:;。"
_CLOSING = "\"'”’)]"


def with_markers(text: str, numbers: list[int]) -> str:
    """`… capital.` + [1, 2] -> `… capital [1][2].`"""
    if not numbers:
        return text
    cluster = "[" + "][".join(map(str, numbers)) + "]"
    # The final punctuation is what `[.!?…:;。]+["'”’)\]]*\s*$` would find, read from the end (strips, no scan).
    stripped = text.rstrip()
    closed = stripped.rstrip(_CLOSING)
    before = len(closed.rstrip(_FINAL_PUNCTUATION))
    if before == len(closed):
        return f"{text} {cluster}"
    return f"{text[:before].rstrip()} {cluster}{stripped[before:]}"


class AnswerBuilder:
    """The payload of design §5.8, built one resolved section at a time."""

    def __init__(self, page_images: PageImages = NO_PAGE_IMAGES, fit_check: FitCheck | None = None) -> None:
        self._page_images = page_images
        self._fit_check = fit_check  # None: no question to check against (fit null)
        self._answered: list[Answered] = []  # what the answer's status reads of each section
        self._numbers: dict[str, int] = {}  # segment_id -> citation number, by first appearance
        self._citations: list[dict[str, Any]] = []
        self._sections: list[dict[str, Any]] = []
        self._texts: list[str] = []
        self._stats = dict.fromkeys(STATUSES, 0)

    def add(self, section: ResolvedSection) -> dict[str, Any]:
        """Numbers the section's citations and places its markers; returns the section with its marked text."""
        entry, text = self._add(section)
        return {**entry, "marked_text": text}

    def _add(self, section: ResolvedSection) -> tuple[dict[str, Any], str]:
        pieces: list[str] = []
        numbers: list[int] = []
        position = 0
        for index, (start, end) in enumerate(section.sentences):
            here: list[int] = []
            for citation in section.citations:
                if index in citation.sentences and (number := self._number(citation, section)) not in here:
                    here.append(number)
            if not here:
                continue
            pieces.append(section.text[position:start] + with_markers(section.text[start:end], here))
            numbers += [n for n in here if n not in numbers]
            position = end
        pieces.append(section.text[position:])
        text = "".join(pieces)
        self._texts.append(text)
        self._stats[section.status] += 1
        fit, verification = self._check(section)
        if fit.of_another_document:  # its citations back nothing the question asks: flagged, not evidence
            self._discredit(numbers, fit.warning or "")
        entry = {
            "text": section.text,
            "source_ids": section.source_ids,
            "citations": numbers,
            "citation_status": section.status,
            "citation_score": section.score,
            "citation_error": section.error,
            "fit": round(fit.score, 3) if self._fit_check is not None else None,
            "fit_warning": fit.warning,
            "verified_as": verification.how if verification else None,
            "verification_warning": verification.why if verification else None,
        }
        self._sections.append(entry)
        return entry, text

    def _check(self, section: ResolvedSection) -> tuple[Fit, Verification | None]:
        """The section's fit to the question and, where it fits and cites a passage, its verification (None: no
        question to check against, or nothing to verify)."""
        cited = bool(section.citations)
        if self._fit_check is None:
            fit = Fit(0.0, "the answer says it was not found", not_found=True) if says_not_found(section.text) else FITS
            self._answered.append(Answered(fit, cited, {0: None}))  # (no question: nothing to verify it against)
            return fit, None
        segments = [c.segment for c in section.citations]
        fit = self._fit_check.check(section.text, segments)
        if fit.fails or fit.not_found or not cited:
            self._answered.append(Answered(fit, cited))
            return fit, None
        # each part of the question the section verifiably answers ("the balance due and the due date" in one)
        found = [self._fit_check.verify(section.text, segments, part) for part in self._fit_check.asked.parts]
        verified = {i: v.value for i, v in enumerate(found) if v.verified}
        self._answered.append(Answered(fit, cited, verified))
        return fit, next((v for v in found if v.verified), found[0] if found else Verification(None))

    def _discredit(self, numbers: list[int], why: str) -> None:
        """The citations `numbers` are of another document than the one asked about: support 0, and why. (Each entry
        is replaced, not changed in place: a delta already sent keeps what it said.)"""
        for number in numbers:
            entry = self._citations[number - 1]
            self._citations[number - 1] = {**entry, "support": 0.0, "warning": why}

    @property
    def answer_status(self) -> str:
        parts = len(self._fit_check.asked.parts) if self._fit_check is not None else 1
        return answer_status(self._answered, max(parts, 1))

    def _number(self, citation: SectionCitation, section: ResolvedSection) -> int:
        segment_id = citation.segment.segment_id
        if segment_id not in self._numbers:
            self._numbers[segment_id] = len(self._numbers) + 1
            entry = citation_payload(citation, self._numbers[segment_id], section, segment_id)
            image = self._page_images.get((entry["document_id"], entry["page_idx"]))
            entry["page_image"] = dict(image) if image is not None else None
            self._citations.append(entry)
        else:
            # Another claim backed by the same segment: its passage is quoted too (design §5.8). The entry is
            # replaced, never changed in place: a delta already sent keeps what it said.
            index = self._numbers[segment_id] - 1
            self._citations[index] = with_claim(self._citations[index], citation)
        return self._numbers[segment_id]

    @property
    def citations(self) -> list[dict[str, Any]]:
        return list(self._citations)

    def payload(self, *, raw_output: str, extra_text: str | None, context_ids: list[str]) -> dict[str, Any]:
        content = defused("\n\n".join(self._texts))  # sections joined could form a tag: `…S\n\nEG=`
        count = len(self._numbers)
        sentences: list[dict[str, Any]] = []
        backed_by: dict[int, list[int]] = {}  # citation number -> indexes of the sentences it backs
        for index, (start, end, numbers) in enumerate(sentence_markers(content)):
            # `[2023]` the model wrote stays text, not a citation
            if len(numbers) > 1:
                ids = sorted({n for n in numbers if 1 <= n <= count})
            else:  # (most sentences: no marker or one)
                ids = numbers if numbers and 1 <= numbers[0] <= count else []
            for number in ids:
                backed_by.setdefault(number, []).append(index)
            sentences.append({"text": content[start:end], "start": start, "end": end, "citation_ids": ids})
        citation_map = {
            str(number): [{"sentence_index": i, "sentence_text": sentences[i]["text"]} for i in backed_by[number]]
            for number in sorted(backed_by)
        }
        return {
            "content": content,
            "metadata": {
                "sections": list(self._sections),
                "citations": self.citations,
                "sentences": sentences,
                "citation_map": citation_map,
                "stats": dict(self._stats),
                "answer_status": self.answer_status,
                "extra_text": extra_text,
                "raw_output": _raw_output(raw_output),
                "context_ids": context_ids,
            },
        }


def citation_payload(
    citation: SectionCitation, number: int, section: ResolvedSection, segment_id: str | None = None
) -> dict[str, Any]:
    """One entry of `metadata.citations`: where the segment is, and the passage of it that backs the claim.
    (`segment_id`: the segment's, when the caller has it: `Segment.segment_id` is made anew at each call.)
    `quote` is the passage of the first claim it backs; `quotes` one passage per claim (`with_claim` adds the
    next ones), `boxes` the lines of them all."""
    segment = citation.segment
    quotes = find_quotes(segment, citation.claim)
    quote = quotes[0]
    return {
        "number": number,
        "segment_id": segment.segment_id if segment_id is None else segment_id,
        "document_id": segment.document_id,
        "segment_index": segment.segment_index,
        "page_idx": segment.page_idx,
        "snippet_preview": snippet_preview(segment.text, quote.start, quote.end),
        "bbox": _box(segment.bbox) if segment.bbox else None,
        "quote": quote.to_dict(),
        "quotes": [q.to_dict() for q in quotes],
        "boxes": quotes_boxes(segment, quotes),
        "method": citation.method,
        "citation_status": section.status,
        "citation_score": citation.score,
        "support": citation.support,
        "warning": citation.warning,
        "page_image": None,  # `AnswerBuilder` fills it in from what it was told of the pages
    }


def with_claim(payload: dict[str, Any], citation: SectionCitation) -> dict[str, Any]:
    """The citation `payload` also backing `citation.claim`: its passage added to `quotes` (in the order of the
    claims, once each), its lines to `boxes`. `quote`, the number and the rest never change."""
    segment = citation.segment
    held = {(q["start"], q["end"]) for q in payload["quotes"]}
    added = [q.to_dict() for q in find_quotes(segment, citation.claim) if (q.start, q.end) not in held]
    if not added:
        return payload
    quotes = [*payload["quotes"], *added]
    return {**payload, "quotes": quotes, "boxes": quotes_boxes(segment, [Quote(**q) for q in quotes])}


def build_answer(
    raw_llm_output: str | None,
    *,
    context: Iterable[Segment | Mapping[str, Any]],
    workspace: SegmentSource | Mapping[str, Any] | None = None,
    verifier: Verifier | None = None,
    page_images: PageImages = NO_PAGE_IMAGES,
    question: str | None = None,
    filenames: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The payload of design §5.8. `context`: the segments retrieved for this question; `workspace`: every
    segment of the workspace (a mapping segment_id -> segment, or a SegmentSource), for existence checks and
    the second tier of the fallback; without it the context is the whole world. `verifier`: how support is
    judged (default: `LexicalVerifier`). `page_images`: each cited page's stored image, for `page_image`.
    `question`: what was asked, for each section's `fit` (design §5.9); without it `fit` is null. `filenames`:
    document id -> its file's name, so that a question naming a file ("the total in invoice.pdf") is answered from
    that file (unknown: a file the question names is not checked)."""
    segments = as_segments(context)
    parsed = parse_answer(raw_llm_output, max_marker=len(segments))
    resolver = SectionResolver(
        context=segments, workspace=workspace, verifier=verifier, prefetch=mentioned_ids(parsed.sections)
    )
    fit_check = None
    if question is not None:

        def context_words() -> Words:  # only asked for when the question names a kind of document
            return functools.reduce(
                union, (words_of(s.text) for s in segments), Words(frozenset(), frozenset(), frozenset())
            )

        source = as_source(workspace)
        scope = ScopeWords(segments, source.lookup if source else None)
        fit_check = FitCheck(question, scope, context_words, filenames=filenames)
    builder = AnswerBuilder(page_images, fit_check)
    for section in parsed.sections:
        builder._add(resolver.resolve(section))  # (`add` but for the copy it returns, which is not needed here)
    return builder.payload(
        raw_output=raw_llm_output or "", extra_text=parsed.extra_text, context_ids=resolver.context_ids
    )


def _box(bbox: Any) -> dict[str, float]:
    return {"x0": bbox.x0, "y0": bbox.y0, "x1": bbox.x1, "y1": bbox.y1}


def _raw_output(raw: str) -> str:
    data = without_surrogates(str(raw)).encode("utf-8")
    return data[:RAW_OUTPUT_BYTES].decode("utf-8", "ignore")
