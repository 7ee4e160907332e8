"""Streaming's pure parts (design §6): sections complete as the model writes, and the delta throttle."""

from __future__ import annotations

import itertools

import orjson
import pytest

from worker.streaming import PartialReply, Throttle, stream_reply

SECTIONS = [
    {"text": 'The rating is "D" \\u00e9t\\u00e9.', "source_ids": ["0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0:12"]},
    {"text": "Heating is by a gas boiler from 2011.", "source_ids": ["doc:3", "doc:4"]},
    {"text": "No id here.", "source_ids": []},
]
REPLY = '{"sections": [' + ", ".join(orjson.dumps(s).decode().replace("\\\\u", "\\u") for s in SECTIONS) + "]}"


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 11, 64])
def test_each_section_completes_once_in_order_whatever_the_cuts(size: int) -> None:
    """Cuts mid-word, mid-string, mid-escape (\\u00e9) and mid-id never complete a section early."""
    reply = PartialReply()
    completed: list[list] = []
    tails: list[str] = []
    for piece in pieces(REPLY, size):
        if reply.feed(piece):
            completed.append(list(reply.complete))
        tails.append(reply.tail)
    expected = orjson.loads(REPLY)["sections"]
    assert completed[-1] == expected
    assert [len(c) for c in completed] == sorted({len(c) for c in completed})  # grows, never twice the same
    assert all(c == expected[: len(c)] for c in completed)  # a completed section never changes afterwards
    texts = [s["text"] for s in expected]
    assert all(any(text.startswith(tail) for text in texts) for tail in tails)  # the tail is a prefix
    assert reply.text == REPLY and reply.tail == ""


def test_a_wrapped_answer_and_prose_before_it() -> None:
    reply = PartialReply()
    reply.feed('Here is the answer:\n```json\n{"answer": {"sections": [{"text": "One.", "source_ids": []}, ')
    assert reply.complete == [{"text": "One.", "source_ids": []}]  # complete as soon as it is closed
    reply.feed('{"text": "Tw')
    assert (reply.complete, reply.tail) == ([{"text": "One.", "source_ids": []}], "Tw")


def test_a_section_is_complete_when_its_object_closes_not_before() -> None:
    reply = PartialReply()
    for piece, complete in [
        ('{"sections": [{"text": "A, b", "source_ids": ["d:1"', 0),
        ("]", 0),
        (", ", 0),  # a comma inside the object: another key may follow
        ('"extra": {"x": 1}', 0),
        ("}", 1),
        (", ", 1),
        ('{"text": "C"}', 2),
    ]:
        reply.feed(piece)
        assert len(reply.complete) == complete, piece


def test_prose_is_no_section() -> None:
    reply = PartialReply()
    assert reply.feed("The answer is [1] and [61, 70].") is False
    assert (reply.complete, reply.tail) == ([], "")


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_throttle_sends_at_most_ten_a_second_and_always_the_last_state() -> None:
    clock = FakeClock()
    sent: list[tuple[float, dict]] = []
    throttle = Throttle(lambda state: sent.append((clock.now, state)), clock=clock, sleep=clock.sleep)
    for n in range(50):  # 50 states over one second
        throttle.offer({"n": n})
        clock.now += 0.02
    throttle.flush()
    times = [t for t, _ in sent]
    assert [s["seq"] for _, s in sent] == list(range(len(sent)))
    assert all(b - a >= 0.1 - 1e-9 for a, b in itertools.pairwise(times))
    # Sent at n = 0, 6, 12 … 48 (every 0.12 s: the first offer at least 0.1 s after the last send), then the
    # last state on flush, once.
    assert [s["n"] for _, s in sent] == [*range(0, 49, 6), 49]
    throttle.flush()
    assert len(sent) == 10  # nothing pending: nothing sent


def test_stream_reply_resolves_each_completed_section_once_and_returns_the_whole_reply() -> None:
    resolved_calls: list[int] = []
    sent: list[dict] = []

    def resolve(sections: list) -> list[dict]:
        resolved_calls.append(len(sections))
        return [{"content": s["text"]} for s in sections]

    raw = stream_reply(pieces(REPLY, 4), resolve, sent.append)
    assert raw == REPLY
    assert resolved_calls == [1, 2, 3]
    assert sent[-1]["sections"] == [{"content": s["text"]} for s in orjson.loads(REPLY)["sections"]]
    assert sent[-1]["tail"] == "" and [d["seq"] for d in sent] == list(range(len(sent)))
