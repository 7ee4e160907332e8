"""SEG tags: how a segment enters the RAG store, how tags are read back, and why a document cannot forge one.

The one family of SEG-tag patterns of the project lives here (design §3); everyone else calls these functions.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

from ingest.ids import make_segment_id, parse_segment_id
from ingest.model import Segment

DEFUSED = "S-E-G="  # what a SEG-like sequence inside text becomes: readable, never a tag
# What LightRAG deletes on insert (C0/C1 controls but tab/newline/CR, surrogates, non-characters). Removed
# before neutralizing, so `SE\x00G=` cannot turn into `SEG=` after we looked.
_STRIPPED_BY_STORE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# "Could be read as a tag" (§3), on text folded by `_fold_table`: letters and `=` with only whitespace (format
# characters fold to a space) between them, in any case.
_SEG_LIKE = re.compile(r"S\s*E\s*G\s*=", re.IGNORECASE)
# Characters that are or fold to `=`: without one of them nothing can be read as a tag (a cheap first test).
_EQUALS_LIKE = re.compile("[=\u207c\u208c\ufe66\uff1d\ua78a]")
# Look-alikes NFKC keeps apart (Cyrillic, Greek, small capitals, Cherokee), folded to the Latin letter.
_LOOKALIKES = {
    "s": "\u0405\u0455\ua731\u13da",
    "e": "\u0415\u0435\u0395\u03b5\u1d07\u13ac",
    "g": "\u050c\u050d\u0262\u0261\u13c0\u13f3",
    "=": "\ua78a",
}
_FOLD_PLANES = 0x20000  # the BMP and the SMP: every NFKC form of a letter or `=` lives there

# Tags as a model writes them in its answer: `[SEG=a:1]`, `[SEG=a:1, b:2]`, a bare `SEG=a:1`, or an unclosed
# `[SEG=a:1` (which ends with its id: a further id must look like one, so prose is never swallowed).
_ID_TOKEN = r"[^\s,;\[\]()]+"
_MORE_ID = r"(?:SEG[ \t]*=[ \t]*)?[^\s,;\[\]()]*:[0-9][^\s,;\[\]()]*"
_TAG_IN_TEXT = re.compile(
    rf"\[[ \t]*SEG[ \t]*=[ \t]*(?P<ids>{_ID_TOKEN}(?:(?:[ \t]*[,;][ \t]*|[ \t]+){_MORE_ID})*)(?P<close>[ \t]*\])?"
    rf"|\bSEG[ \t]*=[ \t]*(?P<bare>{_ID_TOKEN})"
)  # upper case, as the prompt writes them: `seg = x` in a document's text is defused, never read as an id
_TAG_PREFIX = re.compile(r"SEG\s*=\s*")
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


def take_seg_tags(text: str) -> tuple[str, list[str]]:
    """The text with every SEG tag a model wrote removed, and the ids those tags held (raw, in order)."""
    if "SEG" not in text:
        return text, []
    ids: list[str] = []

    def take(match: re.Match[str]) -> str:
        found = [_TAG_PREFIX.sub("", part) for part in _ID_SEPARATOR.split(match.group("ids") or match["bare"])]
        found = [part for part in found if part]
        kept = ""
        if match.group("close") is None and found:  # unclosed or bare: a sentence's period stays in the text
            last = found[-1].rstrip(_SENTENCE_END)
            kept = found[-1][len(last) :]
            found[-1] = last
        ids.extend(part for part in found if part)
        return kept

    return _TAG_IN_TEXT.sub(take, text), ids


def split_ids(text: str) -> list[str]:
    """`a:1, b:2; c:3` -> the ids, in order (how a list of ids in one string is cut)."""
    return [part for part in _ID_SEPARATOR.split(text) if part]


def neutralize_seg_tags(text: str) -> str:
    """The text with everything that could be read as a SEG tag (design §3) defused to `S-E-G=`.

    "Could be read as": after NFKC, with format characters (zero-width space and joiners, soft hyphen, word
    joiner, BOM) removed, Cyrillic/Greek look-alikes of S, E, G and full-width or small-form `=` folded, in any
    case, with whitespace or line breaks between the letters. Controls the RAG store would strip go first.
    Idempotent; text without such a sequence comes back unchanged (but for those controls).
    """
    text = _STRIPPED_BY_STORE.sub("", text)
    if not _EQUALS_LIKE.search(text):
        return text
    folded = text if text.isascii() else text.translate(_fold_table())
    spans = [m.span() for m in _SEG_LIKE.finditer(folded)]
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
    if not _EQUALS_LIKE.search(text):
        return False
    return _SEG_LIKE.search(text if text.isascii() else text.translate(_fold_table())) is not None


@functools.cache
def _fold_table() -> dict[int, str]:
    """A length-preserving `str.translate` table: each character whose NFKC form is s, e, g or `=` (any case)
    maps to it, look-alikes to their letter, format characters (category Cf) to a space. Built once (~0.1 s)."""
    table: dict[int, str] = {}
    for code in range(0x80, min(sys.maxunicode + 1, _FOLD_PLANES)):
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            table[code] = " "
            continue
        folded = unicodedata.normalize("NFKC", char).casefold()
        if folded in ("s", "e", "g", "="):
            table[code] = folded
    for target, chars in _LOOKALIKES.items():
        table.update({ord(c): target for c in chars})
    table.update({code: " " for code in range(0xE0000, 0xE0080) if unicodedata.category(chr(code)) == "Cf"})
    return table
