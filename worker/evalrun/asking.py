"""Asking the evaluation's questions the way an app does (worker.app_actions.ask: a question row and a pending
answer row, whose trigger records the work in the inbox), each in a conversation of its own or, for the lines of one
named conversation, in order in one (a follow-up is asked once the answer before it finished), several in flight at
once, and collecting the published answers. Ctrl-C stops asking and waiting; what finished is kept."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from evaluation import Question
from worker.app_actions import MESSAGE_DONE, ask
from worker.stores import Store
from worker.stores.rows import MessageRow

POLL = 0.1  # seconds between two reads of the answers in flight


@dataclass
class Asked:
    """One question's run: where it was asked and what came back."""

    question: Question
    conversation_id: str | None = None
    message_id: str | None = None
    message: MessageRow | None = None  # the finished answer row (done or failed); None: it did not finish
    seconds: float | None = None  # from the question's row to its answer's last write
    error: str | None = None  # why there is no answer

    @property
    def finished(self) -> bool:
        return self.message is not None or self.error is not None


@dataclass
class Run:
    asked: list[Asked]
    interrupted: bool = False  # Ctrl-C
    gave_up: str | None = None  # why asking stopped before the end, other than Ctrl-C
    seconds: float = 0.0

    @property
    def finished(self) -> list[Asked]:
        return [a for a in self.asked if a.finished]


def ask_all(
    store: Store,
    workspace_id: str,
    questions: Sequence[Question],
    *,
    scopes: Mapping[str, Sequence[str]] | None = None,
    concurrency: int,
    timeout: float,
    on_finished: Callable[[Asked], None] = lambda _: None,
    clock: Callable[[], float] = time.monotonic,
) -> Run:
    """Ask every question, at most `concurrency` in flight, each of the documents `scopes` gives for its id (their
    ids; none: the whole workspace); the questions of one conversation in order, each once the one before finished.
    An answer not finished `timeout` seconds after its question was written is given up (its error says so); when
    the first `concurrency` answers all time out, no worker is answering and asking stops (`gave_up`). Ctrl-C
    returns what finished, `interrupted` set."""
    run = Run([Asked(q) for q in questions])
    scopes = scopes or {}
    waiting = _chains(run.asked)
    in_flight: dict[str, tuple[Asked, float, _Chain]] = {}
    answered = timed_out = 0
    start = clock()
    try:
        while (waiting and not run.gave_up) or in_flight:
            # While the first answers time out and none came, no more is asked: whether a worker answers at all is
            # unknown, and the run stops after `concurrency` of them (a busy machine must not make it more).
            stalled = timed_out and not answered
            while waiting and not run.gave_up and not stalled and len(in_flight) < concurrency:
                chain = waiting.pop(0)
                item = _ask_turn(store, workspace_id, chain, scopes)
                in_flight[item.message_id] = (item, clock(), chain)
            time.sleep(POLL)
            for message_id, (item, asked_at, chain) in list(in_flight.items()):
                message = store.get_message(message_id)
                if message is not None and message.status in MESSAGE_DONE:
                    item.message, item.seconds = message, _seconds(message, clock() - asked_at)
                    answered += 1
                    if message.status == "failed":
                        item.error = f"the answer failed: {message.error}"
                elif clock() - asked_at > timeout:
                    item.error = f"no answer after {timeout:g} s (still {message.status if message else 'missing'})"
                    timed_out += 1
                    if not answered and timed_out >= concurrency:
                        run.gave_up = (
                            f"the first {timed_out} answers did not come within {timeout:g} s: is a worker running? "
                            "(`segcite status` shows the workers and the inbox)"
                        )
                else:
                    continue
                del in_flight[message_id]
                if chain.turns:  # its next turn goes first: it reads this answer as history
                    waiting.insert(0, chain)
                on_finished(item)
    except KeyboardInterrupt:
        run.interrupted = True
    run.seconds = clock() - start
    return run


def _ask_turn(store: Store, workspace_id: str, chain: _Chain, scopes: Mapping[str, Sequence[str]]) -> Asked:
    """The chain's next question asked, in its conversation (a new one for its first)."""
    item = chain.turns.pop(0)
    pending = ask(store, workspace_id, item.question.text, chain.conversation_id, scopes.get(item.question.id))
    chain.conversation_id = item.conversation_id = pending.conversation_id
    item.message_id = pending.id
    return item


@dataclass
class _Chain:
    """The questions still to ask in one conversation (its id once the first was asked)."""

    turns: list[Asked]
    conversation_id: str | None = None


def _chains(asked: Sequence[Asked]) -> list[_Chain]:
    """The questions as conversations, in the file's order: those of one `conversation` name together, in order;
    every other question in one of its own."""
    chains: list[_Chain] = []
    named: dict[str, _Chain] = {}
    for item in asked:
        name = item.question.conversation
        if name is not None and name in named:
            named[name].turns.append(item)
            continue
        chains.append(_Chain([item]))
        if name is not None:
            named[name] = chains[-1]
    return chains


def _seconds(message: MessageRow, observed: float) -> float:
    """The database's own times (the answer row written, then finished) where it has them: exact, whatever the
    polling; else what was observed here."""
    if message.created_at is not None and message.updated_at is not None:
        spent = (message.updated_at - message.created_at).total_seconds()
        if 0 <= spent <= observed + 1:
            return spent
    return observed
