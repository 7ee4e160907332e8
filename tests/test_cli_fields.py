"""Issue 25 points 1-2 through the CLI pipeline: ingest a real invoice, ask for values, read their quotes."""

from __future__ import annotations

import uuid
from pathlib import Path

import orjson
from conftest import segcite as run
from conftest import service_env


def test_values_of_a_real_invoice_are_answered_and_quoted(
    services, service_home, celery_worker, docai_real_dir: Path
) -> None:
    env = service_env(services, service_home)
    workspace = f"fields-{uuid.uuid4().hex[:8]}"
    ingested = run(env, "ingest", str(docai_real_dir / "invoice_parser_1p.json"), "--workspace", workspace)
    assert ingested.returncode == 0, ingested.stderr
    assert "invoice_parser_1p.json: ingested, 1 page(s), 10 segment(s)" in ingested.stdout  # 9 of them fields

    # The text lists "Tax (10%):" and its value apart; the answer is the value, from the parser's pair or from the
    # page's layout (the value printed right of its label), and its quote holds it.
    tax = orjson.loads(run(env, "ask", "Tax", "--workspace", workspace, "--json").stdout)
    assert "$1,767.97" in tax["content"] and not tax["content"].split("[")[0].rstrip().endswith(":")
    [citation] = tax["metadata"]["citations"]
    assert "$1,767.97" in citation["quote"]["text"] and citation["page_idx"] == 0
    assert citation["boxes"] and all(b["page_idx"] == 0 for b in citation["boxes"])

    # Two claims, one segment: the passage of each is quoted, and printed.
    question = "What is the balance due and the due date?"
    both = orjson.loads(run(env, "ask", question, "--workspace", workspace, "--json").stdout)
    assert "$4,647.68" in both["content"] and "Sep 30, 2019" in both["content"]
    quoted = " ".join(q["text"] for c in both["metadata"]["citations"] for q in c["quotes"])
    assert "$4,647.68" in quoted and "Sep 30, 2019" in quoted
    printed = run(env, "ask", question, "--workspace", workspace)
    assert printed.returncode == 0, printed.stderr
    citation_lines = [line for line in printed.stdout.splitlines() if line.startswith("[")]
    assert "$4,647.68" in " ".join(citation_lines) and "Sep 30, 2019" in " ".join(citation_lines)
