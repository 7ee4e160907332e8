"""A ProcessResponse (what Document AI's online `process` returns: `{"document": {…}}`) is Document AI JSON
wherever a Document is (design §3): the CLI and the worker read it as its document."""

from __future__ import annotations

import msgspec


class _Envelope(msgspec.Struct):
    """The top-level keys that tell a wrapper from a Document; values are kept raw (never decoded)."""

    document: msgspec.Raw = msgspec.Raw(b"")
    text: msgspec.Raw = msgspec.Raw(b"")
    pages: msgspec.Raw = msgspec.Raw(b"")
    documentLayout: msgspec.Raw = msgspec.Raw(b"")
    shardInfo: msgspec.Raw = msgspec.Raw(b"")


_DECODER = msgspec.json.Decoder(_Envelope)


def unwrap(data: bytes) -> bytes:
    """The Document inside a ProcessResponse, as bytes (a slice: nothing is decoded); anything else as it is.
    Bytes that are not a JSON object are returned unchanged, for ingest to say what is wrong with them."""
    try:
        envelope = _DECODER.decode(data)
    except msgspec.DecodeError:
        return data
    document = bytes(envelope.document)
    if not document.lstrip().startswith(b"{"):
        return data
    if any(len(raw) for raw in (envelope.text, envelope.pages, envelope.documentLayout, envelope.shardInfo)):
        return data  # a Document that happens to carry a `document` field
    return document
