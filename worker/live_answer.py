"""`segcite ask --stream`: an answer followed live, the way a chat client follows it (design §6).

It listens on the conversation's topic, prints each section as a `message.delta` brings it (with its
markers, numbered as in the final answer), and stops at the final `message.status_updated`. The events come
through PostgreSQL's NOTIFY, which the `postgres` store sends where Supabase's `realtime` schema does not
exist (the embedded default); elsewhere they go to Supabase Realtime, which a command line cannot join, and
`listening` says so. Plain `ask` listens too, to read the answer's row again the moment its event comes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import psycopg

from worker.stores.rows import DELTA_EVENT, MESSAGE_EVENT, MESSAGE_FINISHED


@contextlib.contextmanager
def listening(database_url: str, topic: str) -> Iterator[Topic | None]:
    """LISTEN on `topic` for the block where this database carries the events as NOTIFY; None where
    `realtime.send` takes them instead (Supabase Realtime, which a command line cannot join)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("select to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null").fetchone()
        followable = bool(row and row[0])
        if followable:
            conn.execute(f'listen "{topic}"')
        else:
            conn.close()  # nothing will come on it
        yield Topic(conn) if followable else None


class Topic:
    """The events of one topic (a connection LISTENing on it, from `listening`), as they come."""

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn

    def events(self, deadline: float) -> Iterator[dict[str, Any]]:
        while time.monotonic() < deadline:
            for note in self.conn.notifies(timeout=min(0.5, max(0.0, deadline - time.monotonic()))):
                yield orjson.loads(note.payload)

    def pause(self, seconds: float) -> None:
        """Sleep `seconds`, or until the next event if one comes sooner: a waiter that reads the row again then
        sees a change as soon as it is made."""
        for _ in self.conn.notifies(timeout=seconds, stop_after=1):
            pass


def follow(topic: Topic, message_id: str, deadline: float, show: Callable[[str], None]) -> str | None:
    """Show each section of the answer as it arrives; returns the final status (None: the deadline came).
    A delta too large for NOTIFY comes as `{message_id, seq}` only: its sections wait for the next one."""
    shown = 0
    for event in topic.events(deadline):
        payload = event.get("payload") or {}
        if payload.get("message_id") != message_id:
            continue
        if event.get("event") == DELTA_EVENT and "sections" in payload:
            if payload.get("restart") and payload.get("seq") == 0 and shown:
                show("(the worker writing this answer stopped; another one starts it over)")
                shown = 0
            for section in payload["sections"][shown:]:
                show(section["content"])
            shown = max(shown, len(payload["sections"]))
        elif event.get("event") == MESSAGE_EVENT and payload.get("status") in MESSAGE_FINISHED:
            return str(payload["status"])
    return None
