"""Shared test doubles that are real servers: a local HTTP server speaking the OpenAI API."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    """Records every request; answers from a script (status, body) or with a default. A scripted
    `HANG_UP` closes the connection without an answer (what a crashing or restarting server does)."""

    HANG_UP: tuple[int, dict[str, Any]] = (0, {})

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []
        self.delay = 0.0  # seconds before each answer: a slow model
        self.status = 200  # the answer when nothing is scripted: 500 makes a server that is down for good
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append((self.path, body))
                time.sleep(fake.delay)
                if fake.replies:
                    status, reply = fake.replies.pop(0)
                elif fake.status != 200:
                    status, reply = fake.status, {"error": {"message": "server down", "type": "server"}}
                else:
                    status, reply = 200, fake.default(self.path, body)
                if status == 0:
                    self.close_connection = True
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
