"""bench/bench_scale.py at a small size, as a smoke test (design §4 "Scale"): it builds its database, measures
every workspace size and ingests a batch. Its structure and its quality figures are checked, never its times
(speed is judged by the bench's own runs, on one machine)."""

from __future__ import annotations

import subprocess
import sys

import orjson
from conftest import REPO

SIZES = ["60%", "5%", "2%", "1%", "small"]
PATHS = ["openai", "hash"]


def test_bench_scale_measures_every_workspace_size_and_finds_what_it_planted(fresh_database, services, tmp_path):
    out = tmp_path / "scale.json"
    small = ["--n", "2000", "--queries", "6", "--ingest-documents", "3", "--dim", "64"]
    servers = ["--database-url", fresh_database, "--redis-url", services.redis_url, "--home", str(tmp_path / "home")]
    run = subprocess.run(
        [sys.executable, "bench/bench_scale.py", *small, *servers, "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = orjson.loads(out.read_bytes())
    rows = {(row["path"], row["workspace"]): row for row in report["retrieval"]}
    assert list(rows) == [(path, size) for path in PATHS for size in SIZES]
    assert [rows["hash", s]["segments"] for s in SIZES] == [1200, 100, 40, 20, 20]
    assert rows["hash", "small"]["workspaces"] == 32  # the rest of N in workspaces of 20
    for (path, size), row in rows.items():
        timings = ["text", "vector", "fused", "scoped_fused", "scoped_text", "scoped_vector", "half_fused"]
        for timing in timings + (["ask"] if path == "hash" else []):
            assert 0 < row[f"{timing}_p50_ms"] <= row[f"{timing}_p95_ms"], (path, size, timing)
        # Every vector search returns the exact top 10 (ties at equal distance count as found).
        assert row["recall_at_10"] >= 0.95, (path, size, row)
        # Each planted fact is a unique name in one segment: the fused context always holds it, scoped or not, and
        # a scoped context holds nothing outside its scope.
        assert row["facts_asked"] >= 1 and row["facts_in_context"] == row["facts_asked"], (path, size, row)
        assert row["scoped_facts_in_context"] == row["facts_asked"] and row["scoped_outside_scope"] == 0, row
    ingest = report["ingest"]
    assert ingest["hash"]["documents"] == 2 and ingest["hash"]["segments"] > 0 and ingest["hash"]["per_second"] > 0
    assert ingest["hash, segcite ingest"]["documents"] == 3 and ingest["hash, segcite ingest"]["segments"] > 0
    assert report["server"]["sizes"]["document_segments"] > 0
    # The printed table names every size of each path.
    table = run.stdout.splitlines()
    assert table[0].startswith("N = 2000 segments")
    assert [line.split()[0] for line in table[3 : 3 + 2 * len(SIZES)]] == SIZES * 2
