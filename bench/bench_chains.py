"""Follow-ups in a conversation (issue 41), through the `segcite` CLI as a user would run it.

    python bench/bench_chains.py [--chains FILE [FILE ...]] [--out results.json] [--verbose]

Ingests the shared Document AI fixtures into one workspace as bench/bench_answers.py does (its helpers), then asks
each chain of each chain file (bench/chains_tuning.json, tuned on; bench/chains_heldout.json, measured twice, then
tuned on; bench/chains_heldout2.json, written after that, measured once, then tuned on; their format is in their
`about`) three ways:
- in its conversation: the turns in order, the first with `segcite ask --json` (with `--document` for a chain that
  chooses its documents), the others with `--conversation` (follow-ups that leave their document out);
- alone: each later turn's question in a new conversation of its own (of the same documents);
- standalone: each later turn's `standalone` text (the question written out), in a new conversation.
Each answer is scored by the project's one scorer (evaluation.scoring.score_answer). Per file, for the follow-ups
(later turns that neither change the topic nor lie outside the chosen documents): right and cited on the turn's
document (right, with at least one good citation) alone / in the conversation / standalone; the topic changes
(right and cited on their new document, in the conversation: the earlier subject is not carried into them); the
turns whose answer lies outside the chain's documents (`not_found` with no citation, in the conversation).

Speed (issue 41): the offline rewrite's own time per follow-up (`query.standalone_question`, in this process, with its
conversation's earlier questions and without any: the path of a first question), and the median `ask` of a
follow-up in its conversation (rewritten) against the same turn's standalone text asked in a new conversation (no
earlier turns, nothing to rewrite); one command each, a process start included.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]
from bench_answers import (  # noqa: E402
    FIXTURES,
    REPO,
    Workspace,
    fixture_inputs,
    ingest_all,
    percent,
    segcite,
    stop_services,
)

from evaluation import Question, Source, score_answer  # noqa: E402
from evaluation.scoring import DECLINED, RIGHT  # noqa: E402
from query import standalone_question  # noqa: E402
from query.conversation.subject import read  # noqa: E402

WORKSPACE = "bench-chains"
WAYS = ("alone", "conversation", "standalone")


@dataclass
class Turn:
    chain: str
    index: int
    question: Question  # as asked in the conversation
    standalone: str
    documents: list[str]  # the chain's chosen documents (file names), [] for all
    topic_change: bool
    outside_scope: bool
    history: list[str]  # the chain's earlier questions

    @property
    def kind(self) -> str:
        if self.index == 0:
            return "first"
        if self.outside_scope:
            return "outside"
        return "topic" if self.topic_change else "follow-up"


@dataclass
class Outcome:
    turn: Turn
    way: str
    verdict: str
    good: bool  # right and cited on its document, or (outside the scope) not found with no citation
    seconds: float
    content: str = ""
    read_as: str | None = None
    citations: list[str] = field(default_factory=list)
    error: str = ""


def load_chains(path: Path) -> list[Turn]:
    data = orjson.loads(path.read_bytes())
    groups = data.get("groups", {})
    turns = []
    for chain in data["chains"]:
        asked: list[str] = []
        for index, raw in enumerate(chain["turns"]):
            given = groups[raw["sources"]] if isinstance(raw["sources"], str) else raw["sources"]
            sources = tuple(Source(s["document"], _pages(s["pages"])) for s in given)
            expected = tuple(tuple(v) if isinstance(v, list) else (v,) for v in raw["values"])
            question = Question(f"{chain['id']}#{index}", raw["question"], "bench", expected, sources)
            turns.append(
                Turn(
                    chain["id"],
                    index,
                    question,
                    raw["standalone"],
                    list(chain.get("documents", [])),
                    bool(raw.get("topic_change")),
                    bool(raw.get("outside_scope")),
                    list(asked),
                )
            )
            asked.append(raw["question"])
    return turns


def _pages(pages: Any) -> frozenset[int] | None:
    return None if pages == "all" else frozenset(pages)


def ask(text: str, turn: Turn, home: Path, conversation: str | None) -> tuple[dict[str, Any] | None, float, str]:
    """One `segcite ask --json`: in `conversation`, else in a new one of the turn's chosen documents."""
    argv = ["ask", text, "--json"]
    if conversation is not None:
        argv += ["--conversation", conversation]
    else:
        argv += ["--workspace", WORKSPACE] + [a for d in turn.documents for a in ("--document", d)]
    start = time.perf_counter()
    done = segcite(argv, home, timeout=600)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        return None, elapsed, done.stderr.decode().strip()
    return orjson.loads(done.stdout), elapsed, ""


def scored(turn: Turn, way: str, answer: tuple[dict[str, Any] | None, float, str], ws: Workspace) -> Outcome:
    payload, seconds, error = answer
    score = score_answer(turn.question, payload, ws.names, seconds=seconds, error=error, page_text=ws.page_text)
    if turn.outside_scope:
        good = score.outcome == DECLINED and not score.citations
    else:
        good = score.outcome == RIGHT and score.good_citations > 0
    metadata = (payload or {}).get("metadata") or {}
    cited = [f"{c.document}#p{c.page_idx}{'' if c.good else '(bad)'}" for c in score.citations]
    return Outcome(
        turn,
        way,
        score.outcome,
        good,
        seconds,
        (payload or {}).get("content", ""),
        metadata.get("standalone_question") if metadata.get("rewrite") else None,
        cited,
        error,
    )


def run_chains(turns: list[Turn], ws: Workspace, home: Path) -> list[Outcome]:
    outcomes = []
    conversation: dict[str, str] = {}
    for turn in turns:
        answer = ask(turn.question.text, turn, home, conversation.get(turn.chain))
        if turn.index == 0 and answer[0] is not None:
            conversation[turn.chain] = answer[0]["conversation_id"]
        outcomes.append(scored(turn, "conversation", answer, ws))
        if turn.index > 0:
            outcomes.append(scored(turn, "alone", ask(turn.question.text, turn, home, None), ws))
            outcomes.append(scored(turn, "standalone", ask(turn.standalone, turn, home, None), ws))
    return outcomes


def rewrite_times(turns: list[Turn], rounds: int = 20) -> dict[str, float]:
    """The offline rewrite's time per follow-up, ms: with its conversation's earlier questions, and without (a first
    question's path); each round reads every question anew (its reading's cache emptied: as for a conversation a
    worker has not seen), the answerer's word caches warm as in a running worker; the best of `rounds` per question,
    then the median and max over the questions."""
    later = [t for t in turns if t.index > 0]

    def best(turn: Turn, with_history: bool) -> float:
        history = [{"role": "user", "content": q} for q in turn.history] if with_history else []
        times = []
        for _ in range(rounds):
            read.cache_clear()
            start = time.perf_counter()
            standalone_question(turn.question.text, history)
            times.append(time.perf_counter() - start)
        return 1000 * min(times)

    with_turns = sorted(best(t, True) for t in later)
    without = sorted(best(t, False) for t in later)
    return {
        "with_earlier_turns_median_ms": round(statistics.median(with_turns), 3),
        "with_earlier_turns_max_ms": round(with_turns[-1], 3),
        "without_median_ms": round(statistics.median(without), 3),
        "without_max_ms": round(without[-1], 3),
    }


def summary(outcomes: list[Outcome], turns: list[Turn]) -> dict[str, Any]:
    def count(kind: str, way: str) -> list[int]:
        chosen = [o for o in outcomes if o.turn.kind == kind and o.way == way]
        return [sum(o.good for o in chosen), len(chosen)]

    followups = [o for o in outcomes if o.turn.kind == "follow-up"]
    in_conversation = [o.seconds for o in followups if o.way == "conversation"]
    written_out = [o.seconds for o in followups if o.way == "standalone"]
    return {
        "follow_ups": {way: count("follow-up", way) for way in WAYS},
        "topic_changes": {way: count("topic", way) for way in WAYS},
        "outside_scope": {way: count("outside", way) for way in WAYS},
        "first_turns": count("first", "conversation"),
        "errors": sum(bool(o.error) for o in outcomes),
        "ask_median_s": {
            "follow_up_in_conversation": round(statistics.median(in_conversation), 3) if in_conversation else None,
            "standalone_alone": round(statistics.median(written_out), 3) if written_out else None,
        },
        "rewrite": rewrite_times(turns),
    }


def print_table(summaries: dict[str, dict[str, Any]]) -> None:
    print(
        f"\n{'set':18}{'follow-ups':>11}{'alone':>12}{'in conv.':>12}{'standalone':>12}"
        f"{'topic chg (conv.)':>19}{'outside not_found':>19}{'first turns':>13}"
    )
    for name, s in summaries.items():
        f = s["follow_ups"]
        cells = [f"{f[w][0]}/{f[w][1]}" for w in WAYS]
        topic, outside = s["topic_changes"]["conversation"], s["outside_scope"]["conversation"]
        print(
            f"{name.removesuffix('.json'):18}{f['conversation'][1]:>11}"
            + "".join(f"{c:>12}" for c in cells)
            + f"{f'{topic[0]}/{topic[1]}':>19}{f'{outside[0]}/{outside[1]}':>19}"
            + f"{'{}/{}'.format(*s['first_turns']):>13}"
        )


def report(name: str, outcomes: list[Outcome], turns: list[Turn], verbose: bool) -> dict[str, Any]:
    s = summary(outcomes, turns)
    print(f"\n== {name}: {len(turns)} turns in {len({t.chain for t in turns})} chains")
    for label, key in (("follow-ups", "follow_ups"), ("topic changes", "topic_changes"), ("outside", "outside_scope")):
        print(f"{label:14} " + ", ".join(f"{w} {percent(*s[key][w])}" for w in WAYS))
    print(f"first turns (in conversation): {percent(*s['first_turns'])}; asks that failed: {s['errors']}")
    r, a = s["rewrite"], s["ask_median_s"]
    print(
        f"offline rewrite per follow-up: median {r['with_earlier_turns_median_ms']} ms, max "
        f"{r['with_earlier_turns_max_ms']} ms with its earlier turns; median {r['without_median_ms']} ms, max "
        f"{r['without_max_ms']} ms without any"
    )
    print(
        f"ask (one command): median {a['follow_up_in_conversation']} s a follow-up in its conversation, "
        f"{a['standalone_alone']} s its standalone text alone"
    )
    if verbose:
        for o in outcomes:
            mark = "ok " if o.good else "BAD"
            print(f"{mark} {o.turn.question.id:44} {o.way:12} {o.verdict:9} {', '.join(o.citations) or '-'}")
            if o.read_as:
                print(f"    read as: {o.read_as}")
            print(f"    {o.content[:160]!r}" + (f" error: {o.error}" if o.error else ""))
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = [REPO / "bench" / "chains_tuning.json"]
    parser.add_argument("--chains", type=Path, nargs="+", default=default, help="chain files (default: the tuning one)")
    parser.add_argument("--out", type=Path, help="write each set's summary and per-turn outcomes as JSON here")
    parser.add_argument("--verbose", action="store_true", help="one line per answer")
    parser.add_argument("--keep", action="store_true", help="leave the services running and the home in place")
    args = parser.parse_args()
    if not (FIXTURES / "docai-real" / "manifest.json").is_file():
        print(f"skipped: the Document AI fixtures are not at {FIXTURES} (they live in ../shared, outside the repo)")
        return
    chain_sets = {path.name: load_chains(path) for path in args.chains}
    home = Path(tempfile.mkdtemp(prefix="sc-chains-", dir="/tmp"))  # short: unix socket paths are limited
    staging = home / "inputs"
    staging.mkdir()
    try:
        start = time.perf_counter()
        ws = ingest_all(fixture_inputs(staging), home, WORKSPACE)
        print(f"ingest: {len(ws.names)} documents, {len(ws.pages)} segments, {time.perf_counter() - start:.0f} s")
        summaries, results = {}, {}
        for name, turns in chain_sets.items():
            outcomes = run_chains(turns, ws, home)
            summaries[name] = report(name, outcomes, turns, args.verbose)
            results[name] = {
                "summary": summaries[name],
                "turns": [
                    {
                        "id": o.turn.question.id,
                        "way": o.way,
                        "kind": o.turn.kind,
                        "good": o.good,
                        "verdict": o.verdict,
                        "read_as": o.read_as,
                        "citations": o.citations,
                        "content": o.content,
                        "seconds": round(o.seconds, 3),
                        "error": o.error,
                    }
                    for o in outcomes
                ],
            }
        print_table(summaries)
        if args.out:
            args.out.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))
    finally:
        if not args.keep:
            stop_services(home)


if __name__ == "__main__":
    main()
