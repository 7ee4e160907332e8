"""`segcite workspaces` and unknown workspace names (issue 43, point 7), as a user runs them: real PostgreSQL, Redis
and worker. Before, no command listed workspaces, and a mistyped name read as "holds no documents"."""

from __future__ import annotations

import uuid
from datetime import datetime

import orjson
import pytest
from conftest import segcite, service_env
from docai_synth import PageSpec, build_document


@pytest.fixture
def env(services, service_home, celery_worker) -> dict[str, str]:
    return service_env(services, service_home)


def ingest_memo(env: dict[str, str], tmp_path, workspace: str) -> None:
    memo = tmp_path / "memo.json"
    memo.write_bytes(orjson.dumps(build_document([PageSpec(["The pier reopens in May.", "Tolls rise in June."])])[0]))
    result = segcite(env, "ingest", str(memo), "--workspace", workspace, "--timeout", "120")
    assert result.returncode == 0, result.stderr


def test_workspaces_lists_each_by_name_with_its_documents_segments_and_last_activity(env, tmp_path) -> None:
    name = f"Harbor-{uuid.uuid4().hex[:8]}"
    ingest_memo(env, tmp_path, name)  # `ingest --workspace NEW` makes the workspace

    listed = segcite(env, "workspaces", "--json")
    assert listed.returncode == 0, listed.stderr
    [mine] = [w for w in orjson.loads(listed.stdout) if w["name"] == name]
    assert (mine["documents"], mine["segments"]) == (1, 1)
    assert datetime.fromisoformat(mine["last_activity"]).date() == datetime.now().astimezone().date()

    table = segcite(env, "workspaces")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["WORKSPACE", "DOCUMENTS", "SEGMENTS", "LAST", "ACTIVITY"]
    [row] = [line.split() for line in lines if line.startswith(name + " ")]
    assert row[:3] == [name, "1", "1"] and row[3] == datetime.now().strftime("%Y-%m-%d")


@pytest.mark.parametrize(
    "command",
    [
        ["ask", "When does the pier reopen?"],
        ["documents"],
        ["view", "--last"],
        ["eval", "--generate", "2"],
    ],
    ids=["ask", "documents", "view", "eval"],
)
def test_an_unknown_workspace_is_said_not_to_exist_with_the_nearest_names(env, tmp_path, command) -> None:
    name = f"ledger-{uuid.uuid4().hex[:8]}"
    ingest_memo(env, tmp_path, name)
    typo = name[:-1]  # one character short
    result = segcite(
        env, *command, "--workspace", typo, *(["--out", str(tmp_path / "ev")] if "eval" in command else [])
    )
    assert result.returncode == 2, result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert line.startswith(f"error: workspace {typo!r} does not exist; nearest: {name}"), line
    assert line.endswith("(`segcite workspaces` lists them all)")
    assert not (tmp_path / "ev").exists()  # nothing was asked, nothing written

    same = segcite(env, "documents", "--workspace", name.upper())  # a name's case does not matter
    assert same.returncode == 0 and "memo.json" in same.stdout, same.stderr
