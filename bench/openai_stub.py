"""A local HTTP server speaking the OpenAI API, streaming included: the model the tests and benches talk to."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Streamed:
    """A scripted streamed reply: these pieces of content as server-sent events, `gap` seconds apart. With
    `cut`, the connection drops after that many pieces (a server that died mid-answer). `pauses` maps a piece's
    index to seconds waited before it is sent (a model thinking, or a slow server)."""

    pieces: list[str]
    gap: float = 0.0
    cut: int | None = None
    pauses: dict[int, float] = field(default_factory=dict)


class FakeOpenAI:
    """Records every request; answers from a script (status, body) or with a default. A request with
    `"stream": true` gets its answer as server-sent events, split into `stream_piece` characters, unless the
    script gives a `Streamed` reply. A scripted `HANG_UP` closes the connection without an answer (what a
    crashing or restarting server does)."""

    HANG_UP: tuple[int, dict[str, Any]] = (0, {})

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.replies: list[tuple[int, dict[str, Any] | Streamed]] = []
        self.delay = 0.0  # seconds before each answer: a slow model
        self.status = 200  # the answer when nothing is scripted: 500 makes a server that is down for good
        self.stream_piece = 7  # characters per streamed chunk: cuts words, JSON strings, escapes and ids
        self.disconnects = 0  # streams whose reader went away before the end (a request given up is closed)
        self.sent: list[tuple[float, str]] = []  # (time.monotonic(), piece) of each streamed piece, for benches
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle(self) -> None:
                with contextlib.suppress(ConnectionResetError, BrokenPipeError):  # a client that went away
                    super().handle()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append((self.path, body))
                time.sleep(fake.delay)
                status, reply = fake.next_reply(self.path, body)
                if status == 0:
                    self.close_connection = True
                    return
                if status == 200 and body.get("stream"):
                    fake.send_stream(self, reply, usage=fake.usage_of(body, reply))
                    return
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next_reply(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if self.replies:
            return self.replies.pop(0)
        if self.status != 200:
            return self.status, {"error": {"message": "server down", "type": "server"}}
        return 200, self.default(path, body)

    @staticmethod
    def usage_of(body: dict[str, Any], reply: Any) -> dict[str, int] | None:
        """What a server reports when asked (`stream_options.include_usage`): a word counts as a token here."""
        if not (body.get("stream_options") or {}).get("include_usage"):
            return None
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        written = "".join(reply.pieces) if isinstance(reply, Streamed) else reply["choices"][0]["message"]["content"]
        completion = len((written or "").split())
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def send_stream(
        self, handler: BaseHTTPRequestHandler, reply: dict[str, Any] | Streamed, usage: dict[str, int] | None = None
    ) -> None:
        if isinstance(reply, Streamed):
            script = reply
        else:
            content = reply["choices"][0]["message"]["content"] or ""
            size = self.stream_piece
            script = Streamed([content[i : i + size] for i in range(0, len(content), size)])
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        events = [self.chunk({"role": "assistant", "content": ""})]
        events += [self.chunk({"content": piece}) for piece in script.pieces]
        events += [self.chunk({}, finish="stop")]
        if usage is not None:  # the last chunk before [DONE]: no choices, the counts of the whole reply
            events.append({**self.chunk({}), "choices": [], "usage": usage})
        events.append("[DONE]")
        try:
            for number, event in enumerate(events):
                if script.cut is not None and number > script.cut:
                    handler.close_connection = True
                    return  # no terminating chunk: the client sees the connection end mid-stream
                if number and script.gap:
                    time.sleep(script.gap)
                if number and (pause := script.pauses.get(number - 1)):
                    time.sleep(pause)
                data = f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n".encode()
                handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                handler.wfile.flush()
                if 0 < number <= len(script.pieces):
                    self.sent.append((time.monotonic(), script.pieces[number - 1]))
            handler.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.disconnects += 1

    @staticmethod
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    @staticmethod
    def completion(content: str) -> dict[str, Any]:
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        }

    def default(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if path.endswith("/embeddings"):
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            return {
                "object": "list",
                "model": body["model"],
                "data": [{"object": "embedding", "index": i, "embedding": [0.25] * 16} for i in range(len(inputs))],
            }
        return self.completion('{"sections": []}')
