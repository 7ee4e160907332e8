"""SEG tags: how a segment enters the RAG store, how tags are read back, and why a document cannot forge one.

The one family of SEG-tag patterns of the project lives here (design §3); everyone else calls these functions.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from html.entities import html5

from ingest.ids import make_segment_id, parse_segment_id
from ingest.model import Segment

DEFUSED = "S-E-G="  # what a SEG-like sequence inside text becomes: readable, never a tag
# What LightRAG deletes on insert (C0/C1 controls but tab/newline/CR, surrogates, non-characters). Removed
# before neutralizing, so `SE\x00G=` cannot turn into `SEG=` after we looked.
_STRIPPED_BY_STORE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# What a character nobody sees reads as in `_as_read`'s text: a format character, or the rest of a character
# reference after its first position. Skipped wherever a tag may hold whitespace, kept inside ids (so an id
# holding one is malformed, never silently mended).
_UNSEEN = "\x00"
_GAP = r"[\s\x00]*"  # between the letters: any whitespace, line breaks included (design §3)
_LINE_GAP = r"[ \t\x00]*"  # around ids: a tag's ids never run past the end of its line
_LETTERS = rf"S{_GAP}E{_GAP}G{_GAP}="
# "Could be read as a tag" (§3), on text as `_as_read` gives it: the letters and `=` in any case, with only
# whitespace or unseen characters between them (the unseen ones after `=` belong to it: `&#61;`).
_SEG_LIKE = re.compile(rf"{_LETTERS}\x00*", re.IGNORECASE)
# Characters that are or fold to `=`, and the start of a character reference that may be one: without one of
# them nothing can be read as a tag (`_may_hold_tag`).
_EQUALS_LIKE = re.compile("[=\u207c\u208c\ufe66\uff1d\ua78a]|&#|&equals;")
# HTML character references (`&#91;`, `&#x5B;`, `&lbrack;`): a browser shows the character they name.
_CHARACTER_REFERENCE = re.compile(r"&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,7};?|[A-Za-z][A-Za-z0-9]{1,31};)")
# Look-alikes NFKC keeps apart (Cyrillic, Greek, small capitals, Cherokee), folded to the Latin letter.
_LOOKALIKES = {
    "s": "\u0405\u0455\ua731\u13da",
    "e": "\u0415\u0435\u0395\u03b5\u1d07\u13ac",
    "g": "\u050c\u050d\u0262\u0261\u13c0\u13f3",
    "=": "\ua78a",
}
_FOLDED = ("s", "e", "g", "=", "[", "]")  # what `_fold_table` folds to: a tag's characters
_FOLD_PLANES = 0x20000  # the BMP and the SMP: every NFKC form of a letter, `=` or a bracket lives there

# Tags as a model writes them in its answer, in any of the forms that could be read as one (on `_as_read`'s
# text): `[SEG=a:1]`, `[SEG=a:1, b:2]`, a bare `SEG=a:1`, or an unclosed `[SEG=a:1` (which ends with its id: a
# further id must look like one, so prose is never swallowed).
_ID_TOKEN = r"[^\s,;\[\]()]+"
_MORE_ID = rf"(?:{_LETTERS}{_LINE_GAP})?[^\s,;\[\]()]*:[0-9][^\s,;\[\]()]*"
_TAG_IN_TEXT = re.compile(
    rf"\[{_GAP}{_LETTERS}{_LINE_GAP}(?P<ids>{_ID_TOKEN}(?:(?:{_LINE_GAP}[,;]{_LINE_GAP}|[ \t]+){_MORE_ID})*)"
    rf"(?P<close>{_LINE_GAP}\]\x00*)?"
    rf"|\b{_LETTERS}{_LINE_GAP}(?P<bare>{_ID_TOKEN})",
    re.IGNORECASE,
)
# Inside a tag's ids: a further `SEG=` (skipped) or one id.
_ID_PART = re.compile(rf"{_LETTERS}\x00*|[^\s,;]+", re.IGNORECASE)
_ID_SEPARATOR = re.compile(r"[\s,;]+")
_SENTENCE_END = ".!?:"  # `… SEG=d:2.` or `[SEG=d:2.` ends a sentence: the period is not part of the id
# What `tagged_text` writes at the start of a RAG chunk.
_LEADING_TAG = re.compile(r"\s*\[SEG=([^\]\s]+)\]")


def seg_tag(segment_id: str) -> str:
    return f"[SEG={segment_id}]"


def tagged_text(segment: Segment) -> str:
    """`[SEG=<segment_id>] <text>`: what the RAG store receives for one segment.

    LightRAG html-unescapes what it stores, so `&` is escaped once here: the store then holds exactly the
    neutralized text, and `SEG&#61;x:1` cannot become a tag after our check.
    """
    body = neutralize_seg_tags(segment.text).replace("&", "&amp;")
    return f"{seg_tag(segment.segment_id)} {body}"


def leading_tag_id(chunk_content: str) -> str | None:
    """The canonical id of the tag a RAG chunk starts with (None if it starts with none, or a malformed one)."""
    match = _LEADING_TAG.match(chunk_content)
    parsed = parse_segment_id(match.group(1)) if match else None
    return make_segment_id(*parsed) if parsed else None


def without_leading_tag(chunk_content: str) -> str:
    """A RAG chunk's text without the tag it starts with (`tagged_text`'s body): what an embedding should read. The
    tag's id is a random UUID: hashed with the text, its pieces were most of a short segment's features."""
    match = _LEADING_TAG.match(chunk_content)
    return chunk_content[match.end() :].lstrip() if match else chunk_content


def take_seg_tags(text: str) -> tuple[str, list[str]]:
    """The text with every SEG tag a model wrote removed, and the ids those tags held (raw, in order).

    A tag is anything of a tag's shape that could be read as one (design §3): `[seg=a:1]`, `[S E G=a:1]`,
    format characters between the letters, look-alike letters, full-width brackets and `=`, and HTML character
    references (`&#91;SEG=a:1&#93;`). Its ids are taken as written, so they are checked as strictly as any.
    """
    if not _may_hold_tag(text):
        return text, []
    read = _as_read(text)  # position for position, so its spans are the text's
    ids: list[str] = []
    pieces: list[str] = []
    position = 0
    for match in _TAG_IN_TEXT.finditer(read):
        group = "ids" if match.start("ids") >= 0 else "bare"
        found = [
            text[part.start() : part.end()]
            for part in _ID_PART.finditer(read, match.start(group), match.end(group))
            if not _SEG_LIKE.fullmatch(part.group())
        ]
        pieces.append(text[position : match.start()])
        if match.group("close") is None and found:  # unclosed or bare: a sentence's period stays in the text
            last = found[-1].rstrip(_SENTENCE_END)
            pieces.append(found[-1][len(last) :])
            found[-1] = last
        ids.extend(part for part in found if part)
        position = match.end()
    if not pieces:
        return text, []
    pieces.append(text[position:])
    return "".join(pieces), ids


def split_ids(text: str) -> list[str]:
    """`a:1, b:2; c:3` -> the ids, in order (how a list of ids in one string is cut)."""
    return [part for part in _ID_SEPARATOR.split(text) if part]


def neutralize_seg_tags(text: str) -> str:
    """The text with everything that could be read as a SEG tag (design §3) defused to `S-E-G=`.

    "Could be read as": after NFKC, with format characters (zero-width space and joiners, soft hyphen, word
    joiner, BOM) removed, Cyrillic/Greek look-alikes of S, E, G and full-width or small-form `=` folded, HTML
    character references read as the character a browser shows (`SEG&#61;`), in any case, with whitespace or
    line breaks between the letters. Controls the RAG store would strip go first. Idempotent; text without such
    a sequence comes back unchanged (but for those controls).
    """
    text = _STRIPPED_BY_STORE.sub("", text)
    if not _may_hold_tag(text):
        return text
    spans = [m.span() for m in _SEG_LIKE.finditer(_as_read(text))]
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        pieces.append(DEFUSED)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def contains_seg_tag(text: str) -> bool:
    """Whether anything in the text could be read as a SEG tag under the rule of `neutralize_seg_tags`."""
    text = _STRIPPED_BY_STORE.sub("", text)
    if not _may_hold_tag(text):
        return False
    return _SEG_LIKE.search(_as_read(text)) is not None


def _may_hold_tag(text: str) -> bool:
    """A cheap first test: without an `=`, a character folding to one or a reference that may name one, nothing
    in the text can be read as a tag. (ASCII text, the usual case, is tested with substring searches.)"""
    if text.isascii():
        return "=" in text or ("&" in text and ("&#" in text or "&equals;" in text))
    return _EQUALS_LIKE.search(text) is not None


def _as_read(text: str) -> str:
    """What a reader sees at each position of the text, as far as a SEG tag goes, of the same length: each
    character whose NFKC form is s, e, g, `=`, `[` or `]` (any case), and each look-alike, as that character;
    an HTML character reference as the character it names followed by `_UNSEEN`s; a format character as
    `_UNSEEN`. Everything else as it is."""
    read = text if text.isascii() else text.translate(_fold_table())
    return _CHARACTER_REFERENCE.sub(_as_shown, read) if "&" in read else read


def _as_shown(reference: re.Match[str]) -> str:
    written = reference.group()
    if written[1] != "#":
        shown = html5.get(written[1:], "")  # `&lbrack;` (a named reference always ends with `;` here)
    else:
        number = written[2:].rstrip(";")
        code = int(number[1:], 16) if number[0] in "xX" else int(number)
        shown = chr(code) if code <= sys.maxunicode else ""
    if len(shown) != 1:
        return written  # not a reference to one character (`&nosuch;`, `&#9999999;`)
    return _fold_table().get(ord(shown), shown) + _UNSEEN * (len(written) - 1)


@functools.cache
def _fold_table() -> dict[int, str]:
    """A length-preserving `str.translate` table: each character whose NFKC form is s, e, g, `=`, `[` or `]`
    (any case) maps to it, look-alikes to their letter, format characters (category Cf) to `_UNSEEN`. Built once
    (~0.1 s)."""
    table: dict[int, str] = {}
    for code in range(0x80, min(sys.maxunicode + 1, _FOLD_PLANES)):
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            table[code] = _UNSEEN
            continue
        folded = unicodedata.normalize("NFKC", char).casefold()
        if folded in _FOLDED:
            table[code] = folded
    for target, chars in _LOOKALIKES.items():
        table.update({ord(c): target for c in chars})
    table.update({code: _UNSEEN for code in range(0xE0000, 0xE0080) if unicodedata.category(chr(code)) == "Cf"})
    return table
