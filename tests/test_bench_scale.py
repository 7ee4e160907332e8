"""bench/bench_scale.py at a small size, as a smoke test (design §4 "Scale"): it builds its database, measures
every workspace size and ingests a batch. Its structure and its quality figures are checked, never its times
(speed is judged by the bench's own runs, on one machine)."""

from __future__ import annotations

import subprocess
import sys

import orjson
from conftest import REPO

SIZES = ["50%", "10%", "5%", "2%", "1%", "0.1%"]


def test_bench_scale_measures_every_workspace_size_and_finds_what_it_planted(fresh_database, services, tmp_path):
    out = tmp_path / "scale.json"
    small = ["--n", "2000", "--queries", "6", "--ingest-documents", "3"]
    servers = ["--database-url", fresh_database, "--redis-url", services.redis_url]
    run = subprocess.run(
        [sys.executable, "bench/bench_scale.py", *small, *servers, "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = orjson.loads(out.read_bytes())
    rows = {row["workspace"]: row for row in report["retrieval"]}
    assert list(rows) == SIZES
    assert [rows[s]["segments"] for s in SIZES] == [1000, 200, 100, 40, 20, 20]
    assert rows["0.1%"]["workspaces"] == 32  # the rest of N in workspaces of 20
    for size, row in rows.items():
        for timing in ("vector", "text", "text_005", "fused"):
            assert 0 < row[f"{timing}_p50_ms"] <= row[f"{timing}_p95_ms"], (size, timing)
        # Every filtered vector search returns the exact top 10 (ties at equal distance count as found).
        assert row["recall_at_10"] >= 0.95, (size, row)
        # Each planted fact is a unique name in one segment: the fused context always holds it.
        assert row["facts_asked"] >= 1 and row["facts_in_context"] == row["facts_asked"], (size, row)
    ingest = report["ingest"]["hash"]
    assert ingest["documents"] == 2 and ingest["segments"] > 0 and ingest["per_second"] > 0
    # The printed table names every size.
    table = run.stdout.splitlines()
    assert table[0].startswith("N = 2000 segments")
    assert [line.split()[0] for line in table[3 : 3 + len(SIZES)]] == SIZES
