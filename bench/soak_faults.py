"""Run the fault scenarios (tests marked `faults`) many times and count how each one fared.

A single run of the suite is one trial of most scenarios; this gives the trial counts the reliability report
needs (issue 6). Each run is a fresh pytest process with its own Redis, PostgreSQL and workers.

    python bench/soak_faults.py --runs 10 [--keep-going]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_once(report: Path) -> dict[str, str]:
    """One pytest run of the fault suite; returns {test name: passed|failed|error|skipped}."""
    subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "faults", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
        outcomes[case.get("name", "?")] = {"failure": "failed"}.get(outcome, outcome)
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep-going", action="store_true", help="do not stop at the first failed run")
    args = parser.parse_args()
    tally: dict[str, Counter[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(1, args.runs + 1):
            started = time.monotonic()
            outcomes = run_once(Path(tmp) / f"run{n}.xml")
            for name, outcome in outcomes.items():
                tally.setdefault(name, Counter())[outcome] += 1
            bad = sorted(name for name, outcome in outcomes.items() if outcome in ("failed", "error"))
            took = time.monotonic() - started
            print(f"run {n}: {len(outcomes)} scenarios, {len(bad)} failed, {took:.0f} s", flush=True)
            for name in bad:
                print(f"  failed: {name}", flush=True)
            if bad and not args.keep_going:
                break
    print("\n| scenario test | runs | passed | failed |\n|---|---|---|---|")
    for name, counts in tally.items():
        runs = sum(counts.values())
        print(f"| {name} | {runs} | {counts['passed']} | {counts['failed'] + counts['error']} |")
    if any(counts["failed"] + counts["error"] for counts in tally.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
