"""A document's text as generation reads it: its pages' lines without page furniture (running heads, page
numbers), paragraphs unwrapped into sentences, and which words are on which pages (how specific a subject is).
Pure: plain data in and out."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from evaluation.normalize import holds, plain, tokens
from evaluation.questions import SegmentRef
from query import split_sentences

TEXT_KINDS = frozenset({"paragraph", "text", "list", "heading"})  # what prose, lines and text tables come from
# A line repeated on this many pages of a document of at least FURNITURE_PAGES pages is page furniture.
FURNITURE_REPEATS, FURNITURE_PAGES = 3, 6
FURNITURE_SHARE = 0.2  # ... and a line of one or two words on this share of the pages
# A subject on more pages than this (and than VAGUE_SHARE of the pages) is too common to name one thing.
VAGUE_PAGES, VAGUE_SHARE = 3, 0.02
# ... and one of its words (or its section's heading) on less than this share of the pages.
COMMON_SHARE, LONG_DOCUMENT = 0.25, 20  # in a document of LONG_DOCUMENT pages or more
COMMON_IN_SUBJECTS = frozenset("default value setting size number name type mode".split())
STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from as is are was were be been being it its
    this that these those there here which who whom whose what when where why how not no nor so than too very can
    could may might must shall should will would do does did done has have had having i you he she we they them
    his her our their your my me us him also any all each every some such only own same other into onto over under
    about above below between through during before after again further once up down out off just more most one
    used use using see""".split()
)
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,6})(?:\s+of\s+\d{1,4})?$", re.IGNORECASE)
_BROKEN_WORD = re.compile(r"(?<=[a-z])-\n(?=[a-z])")  # `infor-\nmation`: one word cut at a line's end
_WORD = re.compile(r"[^\W\d_]{2,}")


def content_words(text: str) -> list[str]:
    """The words of a phrase that say something (not `the`, `of`, `is` ...), case folded, in order."""
    return [w for w in (m.group().casefold() for m in _WORD.finditer(text)) if w not in STOPWORDS]


def unwrap(lines: Sequence[str]) -> str:
    """Lines as one paragraph: a word cut by a hyphen at a line's end joined again, lines joined by spaces."""
    return _BROKEN_WORD.sub("", "\n".join(lines)).replace("\n", " ")


def sentences(lines: Sequence[str]) -> list[str]:
    """The sentences of a paragraph's lines (abbreviations, initials and decimals kept inside theirs)."""
    text = unwrap(lines)
    return [text[start:end] for start, end in split_sentences(text)]


@dataclass
class Page:
    document: str
    page_idx: int
    segments: list[SegmentRef] = field(default_factory=list)

    @cached_property
    def text(self) -> str:
        """The page's text as read: its segments joined, words cut at a line's end joined again."""
        return _BROKEN_WORD.sub("", "\n".join(s.text for s in self.segments))


@dataclass
class Document:
    """One document's pages, the lines of each text segment without furniture, and a word -> pages index."""

    name: str
    pages: dict[int, Page]
    lines: dict[str, list[str]]  # segment id -> its lines, furniture left out
    word_pages: dict[str, set[int]]

    def holds(self, page_idx: int, phrase: str) -> bool:
        return holds(self.pages[page_idx].text, phrase)

    def phrase_pages(self, phrase: str) -> set[int]:
        """The pages whose text holds the phrase (as a whole run of words)."""
        words = content_words(phrase) or [w.casefold() for w in _WORD.findall(phrase)]
        if not words:
            return set()
        candidates = set.intersection(*(self.word_pages.get(w, set()) for w in words))
        return {p for p in candidates if holds(self.pages[p].text, phrase)}

    def specific(self, subject: str, within: str | None = None) -> bool:
        """The subject names one thing: it is on few pages (of those that hold `within` too, where given: the
        section's heading), and, in a long document and no section given, a word of it is not on a quarter of
        the pages or more (`the default font size` is on four pages of a manual, but `font` and `size` are
        everywhere: which font size is meant is unclear)."""
        words = content_words(subject)
        if not words:
            return False
        limit = max(VAGUE_PAGES, VAGUE_SHARE * len(self.pages))
        pages = self.phrase_pages(subject)
        if within is not None:
            pages &= self.phrase_pages(within)
        if len(pages) > limit:
            return False
        if len(self.pages) < LONG_DOCUMENT or within is not None:
            return True  # a form's `Date` is one thing on its few pages; so is a subject within its section
        named = [w for w in words if w not in COMMON_IN_SUBJECTS]
        return any(len(self.phrase_pages(w)) < COMMON_SHARE * len(self.pages) for w in named)


def documents(segments: Iterable[SegmentRef]) -> list[Document]:
    """Each document of the segments, in order of its name."""
    by_document: dict[str, dict[int, Page]] = defaultdict(dict)
    for s in segments:
        pages = by_document[s.document]
        pages.setdefault(s.page_idx, Page(s.document, s.page_idx)).segments.append(s)
    return [_document(name, pages) for name, pages in sorted(by_document.items())]


def _document(name: str, pages: dict[int, Page]) -> Document:
    furniture = _furniture(pages) if len(pages) >= FURNITURE_PAGES else set()
    lines: dict[str, list[str]] = {}
    word_pages: dict[str, set[int]] = defaultdict(set)
    for page in pages.values():
        for word in {t for t in tokens(page.text) if isinstance(t, str)}:
            word_pages[word].add(page.page_idx)
        for s in page.segments:
            if s.kind in TEXT_KINDS:
                kept = [line.strip() for line in s.text.split("\n") if line.strip()]
                lines[s.segment_id] = [x for x in kept if _key(x) not in furniture and not _PAGE_NUMBER.match(x)]
    return Document(name, pages, lines, dict(word_pages))


def _key(line: str) -> str:
    return _DIGITS.sub("#", plain(line))


def _furniture(pages: dict[int, Page]) -> set[str]:
    """Lines (numbers aside) that repeat on FURNITURE_REPEATS pages or more: running heads and feet."""
    seen: dict[str, set[int]] = defaultdict(set)
    for page in pages.values():
        for s in page.segments:
            for line in s.text.split("\n"):
                if line.strip():
                    seen[_key(line)].add(page.page_idx)
    often = FURNITURE_SHARE * len(pages)  # a word or two repeated on a few pages is a heading (`Format`)
    return {
        key for key, on in seen.items() if len(on) >= FURNITURE_REPEATS and (len(key.split()) > 2 or len(on) >= often)
    }
