"""A local server speaking Document AI's online REST API (`POST /v1/projects/*/locations/*/processors/*:process`),
for the tests and the bench: the real google-cloud-documentai client (REST transport, anonymous credentials)
talks to it. It answers a ProcessResponse built for the pages it is sent (each page's text layer, read with
pypdfium2, one paragraph a line), or a canned one (`canned`: e.g. a real Document AI output for an image), and
records each request: the processor, the pages' first lines (which pages were asked for), imageless mode.

Scripted faults, in order, one per request: `failures` ([(429, "RESOURCE_EXHAUSTED"), (503, "UNAVAILABLE")]).
`refuse_marker`: a request whose text holds it is refused with 400 INVALID_ARGUMENT (a permanent error).
`delay`: seconds each request takes. Also: `make_pdf` prints HTML pages to a PDF with Debian's Chromium, and
`encrypted_pdf` writes a real password-protected one.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson

PATH = re.compile(r"^/v1/projects/([^/]+)/locations/([^/]+)/processors/([^/:]+)(?:/processorVersions/[^/:]+)?:process$")
CHROMIUM = "/usr/bin/chromium"


def make_pdf(pages: list[str], path: Path) -> Path:
    """A PDF of one page per entry (each entry's lines as paragraphs), printed by Chromium."""
    body = "".join(
        '<section style="page-break-after: always">'
        + "".join(f"<p>{html.escape(line)}</p>" for line in page.splitlines())
        + "</section>"
        for page in pages
    )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "pages.html"
        source.write_text(f"<!doctype html><meta charset=utf-8><body style='font: 14px sans-serif'>{body}")
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer"]
        subprocess.run(
            [CHROMIUM, *flags, f"--print-to-pdf={path}", source.as_uri()],
            check=True,
            capture_output=True,
            timeout=120,
        )
    return path


def page_texts(pdf: bytes) -> list[str]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    try:
        texts = []
        for page in document:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n"))
            textpage.close()
            page.close()
        return texts
    finally:
        document.close()


def build_document(texts: list[str]) -> dict[str, Any]:
    """A Document AI Document for these pages: `text`, and per page its layout and one paragraph a line (with
    normalized boxes: a band per line), numbered from 1 as Document AI numbers a request's pages."""
    text = ""
    pages = []
    for number, page_text in enumerate(texts, start=1):
        lines = [line.strip() for line in page_text.splitlines() if line.strip()]
        page_start = len(text)
        paragraphs = []
        for row, line in enumerate(lines):
            start = len(text)
            text += line + "\n"
            top, bottom = 0.05 + row * 0.04, 0.05 + row * 0.04 + 0.03
            paragraphs.append(_element(start, len(text), 0.1, top, 0.9, bottom))
        layout = _element(page_start, len(text), 0, 0, 1, 1)
        pages.append(
            {
                "pageNumber": number,
                "dimension": {"width": 612, "height": 792, "unit": "points"},
                "layout": layout["layout"],
                "paragraphs": paragraphs,
            }
        )
    return {"mimeType": "application/pdf", "text": text, "pages": pages}


def _element(start: int, end: int, x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    vertices = [{"x": x0, "y": y0}, {"x": x1, "y": y0}, {"x": x1, "y": y1}, {"x": x0, "y": y1}]
    return {
        "layout": {
            "textAnchor": {"textSegments": [{"startIndex": str(start), "endIndex": str(end)}]},
            "boundingPoly": {"normalizedVertices": vertices},
        }
    }


class FakeDocumentAI:
    def __init__(self, *, delay: float = 0.0, canned: bytes | None = None):
        self.delay = delay
        self.canned = canned
        self.failures: list[tuple[int, str]] = []
        self.refuse_marker: str | None = None
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, body: dict[str, Any], path: re.Match) -> tuple[int, dict[str, Any]]:
        raw = body.get("rawDocument") or {}
        content = base64.b64decode(raw.get("content", ""))
        mime = raw.get("mimeType", "")
        imageless = bool(body.get("imagelessMode"))
        texts = page_texts(content) if mime == "application/pdf" else []
        record = {
            "processor": path.group(3),
            "location": path.group(2),
            "mime": mime,
            "pages": len(texts) if texts else 1,
            "first_lines": [next((ln.strip() for ln in t.splitlines() if ln.strip()), "") for t in texts],
            "imageless": imageless,
            "at": time.monotonic(),
        }
        with self.lock:
            self.requests.append(record)
            failure = self.failures.pop(0) if self.failures else None
        time.sleep(self.delay)
        record["took"] = time.monotonic() - record["at"]
        if failure is not None:
            code, status = failure
            return code, _error(code, status, f"fake: {status}")
        limit = 30 if imageless else 15
        if record["pages"] > limit:
            message = f"Document pages exceed the limit: {limit} got {record['pages']}"
            return 400, _error(400, "INVALID_ARGUMENT", message)
        if self.refuse_marker and any(self.refuse_marker in t for t in texts):
            return 400, _error(400, "INVALID_ARGUMENT", "Unsupported input file format.")
        if mime != "application/pdf" and self.canned is not None:
            return 200, orjson.loads(self.canned)
        return 200, {"document": build_document(texts or ["image"])}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                path = PATH.match(self.path.split("?")[0])
                body = orjson.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if path is None:
                    code, payload = 404, _error(404, "NOT_FOUND", f"no such method {self.path}")
                else:
                    with fake.lock:
                        fake.in_flight += 1
                        fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                    try:
                        code, payload = fake.answer(body, path)
                    finally:
                        with fake.lock:
                            fake.in_flight -= 1
                data = orjson.dumps(payload)
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _error(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


def _rc4(key: bytes, data: bytes) -> bytes:
    state, j = list(range(256)), 0
    for i in range(256):
        j = (j + state[i] + key[i % len(key)]) % 256
        state[i], state[j] = state[j], state[i]
    out, i, j = bytearray(), 0, 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + state[i]) % 256
        state[i], state[j] = state[j], state[i]
        out.append(byte ^ state[(state[i] + state[j]) % 256])
    return bytes(out)


def encrypted_pdf(user_password: bytes, owner_password: bytes) -> bytes:
    """A one-page PDF under the standard security handler (RC4, 40 bits, PDF 1.4's algorithms 2 to 4): a real
    encrypted file, made here because neither qpdf nor pikepdf is a dependency."""
    pad = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
    padded = lambda password: (password + pad)[:32]  # noqa: E731
    owner = _rc4(hashlib.md5(padded(owner_password)).digest()[:5], padded(user_password))
    permissions, file_id = -44, hashlib.md5(b"segcite").digest()
    key = hashlib.md5(
        padded(user_password) + owner + permissions.to_bytes(4, "little", signed=True) + file_id
    ).digest()[:5]
    user = _rc4(key, pad)
    content = b"BT /F1 24 Tf 72 700 Td (Secret harvest figures) Tj ET"
    stream = _rc4(hashlib.md5(key + (4).to_bytes(3, "little") + b"\0\0").digest()[:10], content)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >>"
        % (owner.hex().encode(), user.hex().encode(), permissions),
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Encrypt 6 0 R /ID [<%s> <%s>] >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, file_id.hex().encode(), file_id.hex().encode(), xref,
    )  # fmt: skip
    return bytes(out)
