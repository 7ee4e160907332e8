"""What a file is, known by its first bytes (an upload's name or content type may lie)."""

from __future__ import annotations

# (kind, magic bytes at offset 0); WEBP is checked apart (RIFF....WEBP).
_MAGIC: tuple[tuple[str, bytes], ...] = (
    ("png", b"\x89PNG\r\n\x1a\n"),
    ("jpeg", b"\xff\xd8\xff"),
    ("tiff", b"II*\x00"),
    ("tiff", b"MM\x00*"),
    ("gif", b"GIF87a"),
    ("gif", b"GIF89a"),
)

IMAGE_KINDS = frozenset({"png", "jpeg", "tiff", "gif", "bmp", "webp"})
# Each kind's media type: what a Document AI document's `mimeType` and a request's raw document say it is.
MIME_TYPES = {
    "pdf": "application/pdf",
    "png": "image/png",
    "jpeg": "image/jpeg",
    "tiff": "image/tiff",
    "gif": "image/gif",
    "bmp": "image/bmp",
    "webp": "image/webp",
}


def detect_kind(data: bytes) -> str | None:
    """ "pdf", "png", "jpeg", "tiff", "gif", "bmp" or "webp"; None for anything else (Document AI JSON, text)."""
    head = data[:1024]
    if head.lstrip()[:1] in (b"{", b"["):  # JSON, even one whose text quotes a PDF header
        return None
    # PDF readers accept the header anywhere in the first 1024 bytes (some files start with junk or a BOM).
    if b"%PDF-" in head:
        return "pdf"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:2] == b"BM" and data[6:10] == b"\0\0\0\0":  # "BM", the file size, then 4 reserved zero bytes
        return "bmp"
    for kind, magic in _MAGIC:
        if data.startswith(magic):
            return kind
    return None
