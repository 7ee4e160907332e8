"""Turning whatever the caller has (bytes, shards, dicts, a Document) into decoded shards in order.

Every way the input can be wrong ends here as one `InvalidDocument` with a message a user can act on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ingest.model import InvalidDocument
from ingest.schema import Schema, schema_for_bytes


@dataclass(frozen=True)
class Shard:
    doc: Any  # a schema.Document struct
    text_offset: int  # global offset of this shard's text[0]
    schema: Schema  # the spelling it was decoded with, for its lazily decoded parts


@dataclass(frozen=True)
class LoadedDocument:
    shards: list[Shard]  # in shardIndex order; one for an unsharded document
    text: str  # the global text, shards merged
    layout: dict[str, Any] | None  # Layout Parser `documentLayout`, when that is what the input is


def load_document(docai: Any) -> LoadedDocument:
    items = _as_items(docai)
    decoded = [_decode_one(item, position, len(items)) for position, item in enumerate(items)]
    layouts = [layout for _, _, layout in decoded if layout is not None]
    if layouts:
        if len(decoded) > 1:
            raise InvalidDocument("Layout Parser output (documentLayout) comes as one file; got several")
        return LoadedDocument(shards=[], text="", layout=layouts[0])
    shards = _order_shards([(doc, schema) for doc, schema, _ in decoded])
    return LoadedDocument(shards=shards, text="".join(s.doc.text for s in shards), layout=None)


def _as_items(docai: Any) -> list[Any]:
    if isinstance(docai, bytes | bytearray | memoryview | str | dict):
        return [docai]
    if hasattr(docai, "_pb"):  # a google.cloud.documentai.Document (proto-plus message)
        return [type(docai).to_json(docai).encode()]
    if isinstance(docai, Sequence):
        if not docai:
            raise InvalidDocument("no Document AI JSON given (empty list of shards)")
        return list(docai)
    raise InvalidDocument(f"cannot read a Document AI document from a {type(docai).__name__}")


def _where(position: int, count: int) -> str:
    return f"file {position + 1} of {count}: " if count > 1 else ""


def _decode_one(item: Any, position: int, count: int) -> tuple[Any, Schema, dict[str, Any] | None]:
    where = _where(position, count)
    if isinstance(item, str):
        item = item.encode()
    if isinstance(item, bytes | bytearray | memoryview):
        return _decode_bytes(bytes(item), where)
    if isinstance(item, dict):
        # One decoding path for every input: dicts are rare (tests, callers that parsed already).
        return _decode_bytes(msgspec.json.encode(item), where)
    raise InvalidDocument(f"{where}expected JSON bytes or a dict, got a {type(item).__name__}")


def _decode_bytes(data: bytes, where: str) -> tuple[Any, Schema, dict[str, Any] | None]:
    if not data.strip():
        raise InvalidDocument(f"{where}the file is empty; expected Document AI JSON")
    schema = schema_for_bytes(data)
    try:
        doc = msgspec.json.decode(data, type=schema.document, strict=False)
    except msgspec.ValidationError as exc:  # a subclass of DecodeError: valid JSON, wrong shape
        raise InvalidDocument(f"{where}{_shape_message(exc)}") from None
    except msgspec.DecodeError as exc:
        raise InvalidDocument(f"{where}not valid JSON ({exc}); expected Document AI JSON") from None
    layout = msgspec.json.decode(doc.document_layout) if len(doc.document_layout) else None
    _check_shape(doc, layout, where, lambda: sorted(msgspec.json.decode(data)))
    return doc, schema, layout


def _shape_message(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if text.startswith("Expected `object`, got `array`"):
        return "the JSON is an array; expected one Document object (pass shards as separate files)"
    if text.startswith("Expected `object`"):
        return "the JSON is not an object; expected a Document AI Document"
    return f"not a Document AI Document: {text}"


def _check_shape(doc: Any, layout: dict[str, Any] | None, where: str, keys) -> None:
    if doc.text or doc.pages or layout is not None:
        return
    if len(doc.document):
        raise InvalidDocument(
            f'{where}this is a ProcessResponse wrapper ({{"document": …}}); pass its `document` field instead'
        )
    if doc.shard_info is not None:
        return  # an empty shard is legal (a shard holding no text)
    found = ", ".join(keys()[:8]) or "none"
    raise InvalidDocument(
        f"{where}not a Document AI Document: no `text`, `pages` or `documentLayout` (keys found: {found})"
    )


def _order_shards(decoded: list[tuple[Any, Schema]]) -> list[Shard]:
    docs = [doc for doc, _ in decoded]
    schemas = {id(doc): schema for doc, schema in decoded}
    counts = {d.shard_info.shard_count for d in docs if d.shard_info and d.shard_info.shard_count}
    if len(counts) > 1:
        raise InvalidDocument(f"shards disagree on shardCount ({sorted(counts)}); they are not from one document")
    expected = counts.pop() if counts else 1
    if len(docs) == 1 and expected <= 1:
        return [Shard(doc=docs[0], text_offset=0, schema=decoded[0][1])]
    by_index: dict[int, Any] = {}
    for doc in docs:
        index = doc.shard_info.shard_index if doc.shard_info else 0
        if index in by_index:
            raise InvalidDocument(f"shard {index} appears twice; pass each shard once")
        by_index[index] = doc
    missing = sorted(set(range(expected)) - set(by_index))
    if missing:
        names = ", ".join(str(i) for i in missing)
        raise InvalidDocument(f"shard(s) {names} of {expected} missing; pass every shard of the document")
    extra = sorted(set(by_index) - set(range(expected)))
    if extra:
        raise InvalidDocument(f"shard index {extra[0]} is outside shardCount {expected}")
    shards: list[Shard] = []
    offset = 0
    for index in range(expected):
        doc = by_index[index]
        declared = doc.shard_info.text_offset if doc.shard_info else 0
        if index > 0 and declared != offset:
            raise InvalidDocument(
                f"shard {index} says its text starts at {declared}, but the shards before it hold {offset} "
                "characters; the shards are not from one document"
            )
        shards.append(Shard(doc=doc, text_offset=offset, schema=schemas[id(doc)]))
        offset += len(doc.text)
    return shards
