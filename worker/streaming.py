"""Streaming an answer while the model writes it (design §6): `message.delta` events on the conversation's
topic, each with the sections completed so far (already resolved, numbered as in the final answer) and the
text of the section being written.

The model's reply is read with jiter's partial mode (no JSON tokenizer of our own): a section is complete
once its object is closed (another array element could follow it), or the reply parses whole. Deltas are
throttled to at most 10 a second per message; a state held back by the throttle goes out when its interval is
up, even while the model pauses, and the last state is always sent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import jiter

MAX_DELTAS_PER_SECOND = 10
WRAPPER_KEYS = ("answer", "response", "data", "result", "output")


@dataclass
class PartialReply:
    """The reply so far: its complete section objects, and the text of the section being written."""

    text: str = ""
    complete: list[Any] = field(default_factory=list)
    tail: str = ""

    def feed(self, piece: str) -> bool:
        """Add a piece of the reply; True if a section was completed by it."""
        self.text += piece
        items, finished = self._sections()
        done = items if finished else items[:-1]
        self.tail = "" if finished or not items else _text_of(items[-1])
        if len(done) <= len(self.complete):
            return False
        self.complete = done
        return True

    def _sections(self) -> tuple[list[Any], bool]:
        """The section objects so far, and whether the last of them is complete."""
        start = self.text.find("{")
        if start < 0:
            return [], False
        body = self.text[start:].encode()
        whole = _parse(body, "off")
        if whole is not None:
            return _section_list(whole), True
        items = _section_list(_parse(body, "trailing-strings"))
        return items, bool(items) and _last_is_closed(body, len(items))


def _parse(body: bytes, partial_mode: str) -> Any:
    try:
        return jiter.from_json(body, partial_mode=partial_mode)
    except ValueError:  # not JSON (yet): prose, or what precedes a fenced block
        return None


def _last_is_closed(body: bytes, count: int) -> bool:
    """Whether the last section object is closed: then one more array element can follow it. Probed by
    parsing the text with a `0` element appended (after a comma unless one is there), so a section is complete
    the moment its `}` arrives, not when the next one starts."""
    trimmed = body.rstrip()
    probe = trimmed + (b"0" if trimmed.endswith(b",") else b",0")
    items = _section_list(_parse(probe, "trailing-strings"))
    return len(items) == count + 1 and items[-1] == 0


def _section_list(value: Any) -> list[Any]:
    if not isinstance(value, dict):
        return []
    for key in WRAPPER_KEYS:  # `{"answer": {"sections": …}}` and the like (design §5.3)
        if isinstance(value.get(key), dict):
            value = value[key]
            break
    sections = value.get("sections")
    return sections if isinstance(sections, list) else []


def _text_of(item: Any) -> str:
    if isinstance(item, dict):
        text = item.get("text")
        return text if isinstance(text, str) else ""
    return item if isinstance(item, str) else ""


class Throttle:
    """Sends at most `per_second` states a second. A state offered too soon is held and goes out when its
    interval is up, from a timer thread, whether or not anything more is offered: a model that closes a section
    and then pauses (thinking, a slow server) must not keep that section off the wire for the whole pause. A
    newer state replaces a held one; `finish` sends the last state. Sends never overlap (one lock), so `seq`
    is the order states went out in. A send that fails on the timer thread is raised to the reader at its next
    `offer` or `finish`."""

    def __init__(self, send: Callable[[dict[str, Any]], None], per_second: int = MAX_DELTAS_PER_SECOND):
        self.send = send
        self.interval = 1.0 / per_second
        self.last_sent = float("-inf")
        self.pending: dict[str, Any] | None = None
        self.sent = 0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._failure: Exception | None = None

    def offer(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._raise_failure()
            self.pending = state
            if self._timer is None:  # an armed timer sends the newest state when it fires
                self._send_or_hold()

    def finish(self) -> None:
        """The end of the stream: the held state, if any, goes out once its interval is up."""
        with self._lock:
            self._stop_timer()
            self._raise_failure()
            if self.pending is not None:
                time.sleep(max(0.0, self.last_sent + self.interval - time.monotonic()))
                self._send_pending()

    def cancel(self) -> None:
        """The stream failed: nothing held goes out after it."""
        with self._lock:
            self._stop_timer()
            self.pending = None

    def _send_or_hold(self) -> None:
        wait = self.last_sent + self.interval - time.monotonic()
        if wait <= 0:
            self._send_pending()
            return
        self._timer = threading.Timer(wait, self._on_time)
        self._timer.daemon = True
        self._timer.start()

    def _on_time(self) -> None:
        with self._lock:
            if self._timer is not threading.current_thread():
                return  # stopped, or replaced, while this one waited for the lock
            self._timer = None
            if self.pending is None:
                return
            try:
                self._send_or_hold()
            except Exception as exc:  # handed to the reader's thread, which raises it
                self._failure = exc
                self.pending = None

    def _send_pending(self) -> None:
        state, self.pending = self.pending or {}, None
        self.send({**state, "seq": self.sent})
        self.sent += 1
        self.last_sent = time.monotonic()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _raise_failure(self) -> None:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure


def stream_reply(
    pieces: Iterable[str],
    resolve: Callable[[list[Any]], list[dict[str, Any]]],
    send: Callable[[dict[str, Any]], None],
) -> str:
    """Read the reply piece by piece, sending a delta `{sections, tail}` (plus `seq`) as it grows: `resolve`
    turns the complete section objects into the delta's resolved sections. Returns the whole reply."""
    reply = PartialReply()
    throttle = Throttle(send)
    resolved: list[dict[str, Any]] = []
    try:
        for piece in pieces:
            if reply.feed(piece):
                resolved = resolve(reply.complete)
            throttle.offer({"sections": resolved, "tail": reply.tail})
        throttle.finish()
    finally:
        throttle.cancel()  # a failed stream sends nothing more (after `finish`, nothing is held)
    return reply.text
