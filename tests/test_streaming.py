"""Streaming's pure parts (design §6): sections complete as the model writes, and the delta throttle."""

from __future__ import annotations

import itertools
import threading
import time

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


def test_the_throttle_sends_at_most_ten_a_second_and_always_the_last_state() -> None:
    sent: list[tuple[float, dict]] = []
    throttle = Throttle(lambda state: sent.append((time.monotonic(), state)))
    started = time.monotonic()
    for n in range(50):  # 50 states over about a second
        throttle.offer({"n": n})
        time.sleep(0.02)
    throttle.finish()
    took = time.monotonic() - started
    times = [t for t, _ in sent]
    assert [s["seq"] for _, s in sent] == list(range(len(sent)))
    assert all(b - a >= 0.1 - 1e-3 for a, b in itertools.pairwise(times))  # never two within an interval
    assert len(sent) <= 10 * took + 1
    numbers = [s["n"] for _, s in sent]
    assert numbers == sorted(set(numbers)) and numbers[0] == 0 and numbers[-1] == 49  # newest first, last sent
    throttle.finish()
    assert len(sent) == len(times)  # nothing held: nothing sent


def test_a_held_state_goes_out_when_its_interval_is_up_without_another_offer() -> None:
    """Issue 24: the state held back by the throttle waited for the next offer (a model's whole pause). Two a
    second here, so the second offer is surely too soon."""
    sent: list[tuple[float, dict]] = []
    arrived = threading.Event()

    def send(state: dict) -> None:
        sent.append((time.monotonic(), state))
        if len(sent) == 2:
            arrived.set()

    throttle = Throttle(send, per_second=2)
    throttle.offer({"n": 0})  # sent at once
    throttle.offer({"n": 1})  # too soon: held
    held_at = time.monotonic()
    assert [s["n"] for _, s in sent] == [0]
    assert arrived.wait(5), "the held state never went out while nothing more was offered"
    assert [s["n"] for _, s in sent] == [0, 1]
    assert sent[1][0] - sent[0][0] >= 0.5 - 1e-3  # still throttled
    assert sent[1][0] - held_at < 1.5  # when its interval (0.5 s) is up, with slack; before the fix: never
    throttle.finish()
    assert len(sent) == 2


def test_a_failed_stream_sends_nothing_held() -> None:
    sent: list[dict] = []

    def pieces():
        yield '{"sections": [{"text": "One."}, '
        yield '{"text": "Tw'
        raise ConnectionError("the model went away")

    with pytest.raises(ConnectionError):
        stream_reply(pieces(), lambda sections: [{"content": s["text"]} for s in sections], sent.append)
    count = len(sent)
    time.sleep(0.3)  # a held state would have gone out by now
    assert len(sent) == count and count in (1, 2)  # (2 only if the machine stalled between the pieces)


def test_a_send_failing_on_the_timer_thread_is_raised_to_the_reader() -> None:
    calls: list[dict] = []

    def send(state: dict) -> None:
        calls.append(state)
        if len(calls) == 2:
            raise OSError("publish failed")

    throttle = Throttle(send)
    throttle.offer({"n": 0})
    throttle.offer({"n": 1})  # held; the timer's send fails
    wait_for(lambda: len(calls) == 2)
    with pytest.raises(OSError, match="publish failed"):
        throttle.offer({"n": 2})


def wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_section_closed_before_a_pause_is_sent_during_the_pause() -> None:
    """Issue 24's measure, on the streaming path itself: the model closes its first section, then pauses 4 s."""
    first, rest = REPLY.split("}, ", 1)
    first += "}, "
    sent: list[tuple[float, dict]] = []
    closed_at: list[float] = []

    def model():
        yield from pieces(first, 5)
        closed_at.append(time.monotonic())
        time.sleep(4)
        yield from pieces(rest, 5)

    stream_reply(
        model(),
        lambda sections: [{"content": s["text"]} for s in sections],
        lambda d: sent.append((time.monotonic(), d)),
    )
    shown_at = next(t for t, d in sent if d["sections"])
    # Throttle interval (0.1 s) + 50 ms; the bound is generous for a loaded machine, and still far below the
    # 4 s pause that held the section back before the fix.
    assert shown_at - closed_at[0] < 1.0
    assert sent[-1][1]["sections"][-1]["content"] == SECTIONS[-1]["text"]


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
