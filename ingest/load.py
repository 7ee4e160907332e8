"""Turning whatever the caller has (bytes, shards, dicts, a Document) into decoded shards in order.

Every way the input can be wrong ends here as one `InvalidDocument` with a message a user can act on,
naming the user's file when the caller gave names (else its position when there are several).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ingest.model import InvalidDocument
from ingest.schema import DOCUMENT, Document, DocumentLayout


@dataclass(frozen=True, slots=True)
class Shard:
    doc: Document
    text_offset: int  # global offset of this shard's text[0]
    where: str  # "report.json: ", "file 2 of 7: " or "": the prefix of this shard's error messages


@dataclass(frozen=True)
class LoadedDocument:
    shards: list[Shard]  # in shardIndex order; one for an unsharded document (global text = their texts joined)
    layout: DocumentLayout | None  # Layout Parser `documentLayout`, when that is what the input is
    where: str  # the prefix of messages about the whole document: its file's name when it is one file

    @property
    def text(self) -> str:
        """The global text, shards merged: joined on demand (segments read each shard's text in place)."""
        return "".join(shard.doc.text for shard in self.shards)


def load_document(docai: Any, names: Sequence[str] | None = None) -> LoadedDocument:
    items = _as_items(docai)
    if names is not None and len(names) != len(items):
        raise ValueError(f"{len(names)} names for {len(items)} inputs")
    wheres = [f"{name}: " for name in names] if names is not None else _positions(len(items))
    docs = [_decode_one(item, where) for item, where in zip(items, wheres, strict=True)]
    layouts = [doc.layout_tree for doc in docs if doc.layout_tree is not None]
    if layouts:
        if len(docs) > 1:
            raise InvalidDocument("Layout Parser output (documentLayout) comes as one file; got several")
        return LoadedDocument(shards=[], layout=layouts[0], where=wheres[0])
    shards = _order_shards(docs, wheres)
    return LoadedDocument(shards=shards, layout=None, where=wheres[0] if len(docs) == 1 else "")


def _positions(count: int) -> list[str]:
    return [f"file {i + 1} of {count}: " for i in range(count)] if count > 1 else [""]


def _as_items(docai: Any) -> list[Any]:
    if isinstance(docai, bytes | bytearray | memoryview | str | dict):
        return [docai]
    if hasattr(docai, "_pb"):  # a google.cloud.documentai.Document (proto-plus message)
        # Without the fields proto3 leaves unset: an absent `confidence` printed as 0.0 would read as a guess and
        # drop the entity, so a Document and its own JSON bytes would give different segments.
        as_json = type(docai).to_json(docai, always_print_fields_with_no_presence=False, indent=None)
        return [as_json.encode()]
    if isinstance(docai, Sequence):
        if not docai:
            raise InvalidDocument("no Document AI JSON given (empty list of shards)")
        return list(docai)
    raise InvalidDocument(f"cannot read a Document AI document from a {type(docai).__name__}")


def _decode_one(item: Any, where: str) -> Document:
    if isinstance(item, str):
        item = item.encode()
    if isinstance(item, dict):
        # One decoding path for every input: dicts are rare (tests, callers that parsed already).
        item = msgspec.json.encode(item)
    if isinstance(item, bytes | bytearray | memoryview):
        return _decode_bytes(item, where)
    raise InvalidDocument(f"{where}expected JSON bytes or a dict, got a {type(item).__name__}")


def _decode_bytes(data: bytes | bytearray | memoryview, where: str, wrapped: bool = False) -> Document:
    if _is_blank(data):
        raise InvalidDocument(f"{where}the file is empty; expected Document AI JSON")
    try:
        doc = DOCUMENT.decode(data)
    except msgspec.ValidationError as exc:  # a subclass of DecodeError: valid JSON, wrong shape
        raise InvalidDocument(f"{where}{_shape_message(exc)}") from None
    except msgspec.DecodeError as exc:
        raise InvalidDocument(f"{where}not valid JSON ({exc}); expected Document AI JSON") from None
    if _is_process_response(doc) and not wrapped:
        # What online processing returns ({"document": …, "humanReviewStatus": …}): read as its document.
        return _decode_bytes(memoryview(doc.document), f"{where}its `document` field: ", wrapped=True)
    _check_shape(doc, data, where)
    return doc


def _is_process_response(doc: Document) -> bool:
    return bool(len(doc.document)) and not (doc.text or doc.pages or doc.layout_tree is not None)


def _is_blank(data: bytes | bytearray | memoryview) -> bool:
    """Empty or only whitespace, without copying a file that starts with a `{` (`strip()` would copy it)."""
    head = bytes(data[:1])
    return not head or (head.isspace() and bytes(data).isspace())


def _shape_message(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if text.startswith("Expected `object`, got `array`"):
        return "the JSON is an array; expected one Document object (pass shards as separate files)"
    if text.startswith("Expected `object`"):
        return "the JSON is not an object; expected a Document AI Document"
    return f"not a Document AI Document: {text}"


_DOCUMENT_KEYS = {"text", "pages", "documentLayout", "document_layout", "shardInfo", "shard_info"}


def _check_shape(doc: Document, data: bytes | bytearray | memoryview, where: str) -> None:
    if doc.text or doc.pages or doc.layout_tree is not None:
        return
    if doc.shard is not None:
        return  # an empty shard is legal (a shard holding no text)
    keys = sorted(msgspec.json.decode(data))  # only on this error path
    if _DOCUMENT_KEYS & set(keys):
        # The keys are there but hold nothing: say that, not that they are missing.
        raise InvalidDocument(f"{where}the document holds no text: its `text` and `pages` are empty")
    found = ", ".join(keys[:8]) or "none"
    raise InvalidDocument(
        f"{where}not a Document AI Document: no `text`, `pages` or `documentLayout` (keys found: {found})"
    )


def _order_shards(docs: list[Document], wheres: list[str]) -> list[Shard]:
    counts = {doc.shard.count for doc in docs if doc.shard is not None and doc.shard.count}
    if len(counts) > 1:
        raise InvalidDocument(f"shards disagree on shardCount ({sorted(counts)}); they are not from one document")
    expected = counts.pop() if counts else 1
    if len(docs) == 1 and expected <= 1:
        return [Shard(doc=docs[0], text_offset=0, where=wheres[0])]
    by_index: dict[int, tuple[Document, str]] = {}
    for doc, where in zip(docs, wheres, strict=True):
        index = doc.shard.index if doc.shard is not None else 0
        if index in by_index:
            both = _both(by_index[index][1], where)
            raise InvalidDocument(f"{both}shard {index} appears twice; pass each shard once")
        by_index[index] = (doc, where)
    missing = sorted(set(range(expected)) - set(by_index))
    if missing:
        listed = ", ".join(str(i) for i in missing)
        raise InvalidDocument(f"shard(s) {listed} of {expected} missing; pass every shard of the document")
    extra = sorted(set(by_index) - set(range(expected)))
    if extra:
        raise InvalidDocument(f"{by_index[extra[0]][1]}shard index {extra[0]} is outside shardCount {expected}")
    shards: list[Shard] = []
    offset = 0
    for index in range(expected):
        doc, where = by_index[index]
        declared = doc.shard.offset if doc.shard is not None else 0
        if index > 0 and declared != offset:
            raise InvalidDocument(
                f"{where}shard {index} says its text starts at {declared}, but the shards before it hold {offset} "
                "characters; the shards are not from one document"
            )
        shards.append(Shard(doc=doc, text_offset=offset, where=where))
        offset += len(doc.text)
    return shards


def _both(first: str, second: str) -> str:
    """`a.json and b.json: ` from two message prefixes (either may be empty)."""
    names = [w.removesuffix(": ") for w in (first, second) if w]
    return f"{' and '.join(names)}: " if names else ""
