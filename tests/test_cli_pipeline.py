"""`segcite ingest` and `segcite ask` as a user runs them, against the test services and worker."""

from __future__ import annotations

import re
import uuid

import orjson
from conftest import segcite as run
from conftest import service_env
from docai_synth import PageSpec, build_document

from worker.cli.text import DEMO_ANSWERER_NOTE


def test_ingest_then_ask(services, service_home, celery_worker, tmp_path) -> None:
    env = service_env(services, service_home)
    workspace = f"cli-{uuid.uuid4().hex[:8]}"
    document, _ = build_document(
        [
            PageSpec(["The museum opened in 1932 in Lyon."]),
            PageSpec(["The building has a cafe and a shop for visitors.", "Its collection holds 4,500 paintings."]),
        ]
    )
    path = tmp_path / "museum.json"
    path.write_bytes(orjson.dumps(document))

    ingested = run(env, "ingest", str(path), "--workspace", workspace)
    assert ingested.returncode == 0, ingested.stderr
    assert "museum.json: ingested, 2 page(s), 2 segment(s), document " in ingested.stdout
    progress = re.compile(
        r"museum\.json: (waiting for a worker|reading the Document AI JSON|read 2 pages, 2 segments"
        r"|embedding 2 segments: \d+%)"
    )
    assert ingested.stderr and all(progress.fullmatch(line) for line in ingested.stderr.splitlines()), ingested.stderr

    answered = run(env, "ask", "How many paintings does the collection hold?", "--workspace", workspace)
    assert answered.returncode == 0, answered.stderr
    lines = answered.stdout.splitlines()
    assert lines[0] == "Its collection holds 4,500 paintings [1]."
    # Each citation: its page and the passage that backs it, not the segment's first words (issue 12).
    assert lines[2] == "[1] museum.json, page 2 (cited): “Its collection holds 4,500 paintings.”"

    streamed = run(env, "ask", "How many paintings does the collection hold?", "--workspace", workspace, "--stream")
    assert streamed.returncode == 0, streamed.stderr
    *shown, blank, said, follow = streamed.stdout.splitlines()
    assert shown == [
        "Its collection holds 4,500 paintings [1].",  # printed from the message.delta that brought it
        "",
        "[1] museum.json, page 2 (cited): “Its collection holds 4,500 paintings.”",
    ]
    # Its message id, for `segcite view` (issue 34), then how to continue its conversation (issue 41).
    assert blank == "" and re.fullmatch(r"message ([0-9a-f-]{36}) \(`segcite view \1` shows it with its pages\)", said)
    assert re.fullmatch(r'continue: segcite ask "…" --conversation [0-9a-f-]{36}', follow)

    as_json = run(env, "ask", "When did the museum open?", "--workspace", workspace, "--json")
    payload = orjson.loads(as_json.stdout)
    assert re.fullmatch(r"[0-9a-f-]{36}", payload["message_id"])
    assert payload["content"] == "The museum opened in 1932 in Lyon [1]."
    assert payload["metadata"]["citations"][0]["page_idx"] == 0


def test_ingest_of_a_bad_file_exits_non_zero(services, service_home, celery_worker, tmp_path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"document": {"text": ""}}')
    result = run(service_env(services, service_home), "ingest", str(path), "--workspace", "cli-bad")
    assert result.returncode == 2  # refused before upload (tests/test_cli_ingest_checks.py)
    assert result.stderr.splitlines() == [
        f"error: {path}: its `document` field: the document holds no text: its `text` and `pages` are empty"
    ]


def test_empty_question_is_refused(services, service_home) -> None:
    result = run(service_env(services, service_home), "ask", "  ")
    assert (result.returncode, result.stderr.strip()) == (2, "error: the question is empty")


def test_demo_says_where_its_answer_came_from(services, service_home, celery_worker) -> None:
    result = run(service_env(services, service_home), "demo")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Q: How much electricity did the solar farm generate in 2025?" in lines
    assert any("61.4 gigawatt hours" in line for line in lines)
    assert not any(line.startswith("Uncertain") for line in lines)  # the passage states it: a verified answer
    assert lines[-2:] == ["", DEMO_ANSWERER_NOTE]
    assert "SEGCITE_LLM_PROVIDER=openai" in DEMO_ANSWERER_NOTE and "OPENAI_API_KEY" in DEMO_ANSWERER_NOTE


def test_stream_and_json_together_are_refused(services, service_home) -> None:
    result = run(service_env(services, service_home), "ask", "Anything?", "--stream", "--json")
    assert (result.returncode, result.stderr.strip()) == (
        2,
        "error: --stream prints the answer as it comes; --json prints the payload once it is done",
    )
