"""`segcite ask --stream`: an answer followed live, the way a chat client follows it (design §6).

It listens on the conversation's topic, prints each section as a `message.delta` brings it (with its
markers, numbered as in the final answer), and stops at the final `message.status_updated`. The events come
through PostgreSQL's NOTIFY, which the `postgres` store sends where Supabase's `realtime` schema does not
exist (the embedded default); elsewhere they go to Supabase Realtime, which a command line cannot join, and
`can_follow` says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import psycopg

from worker.stores.rows import DELTA_EVENT, MESSAGE_EVENT, MESSAGE_FINISHED


def can_follow(database_url: str) -> bool:
    """Whether this database carries the events as NOTIFY (no `realtime.send` to take them instead)."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute("select to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null").fetchone()
    return bool(row and row[0])


class Topic:
    """LISTEN on one topic; the events as they come, until a deadline."""

    def __init__(self, database_url: str, topic: str):
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.conn.execute(f'listen "{topic}"')

    def events(self, deadline: float) -> Iterator[dict[str, Any]]:
        while time.monotonic() < deadline:
            for note in self.conn.notifies(timeout=min(0.5, max(0.0, deadline - time.monotonic()))):
                yield orjson.loads(note.payload)

    def close(self) -> None:
        self.conn.close()


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
