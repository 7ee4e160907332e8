"""Issue 34, as a new user types it, against the test services and worker: which answer `view` shows, what a
delete leaves, a missing JSON's error, and what a page without geometry says (`view`, `highlight`)."""

from __future__ import annotations

import re
import subprocess
import uuid
from pathlib import Path

import orjson
import pytest
from conftest import segcite, service_env, wait_for
from docai_synth import PageSpec, build_document

from worker.app_actions import DOCUMENT_DONE, workspace_id

MESSAGE_LINE = re.compile(r"message (?P<id>[0-9a-f-]{36}) \(`segcite view (?P=id)` shows it with its pages\)")
INGESTED = re.compile(
    r": ingested, (?P<pages>\d+) page\(s\), (?P<segments>\d+) segment\(s\), document (?P<id>[0-9a-f-]{36})$"
)


@pytest.fixture
def env(services, service_home, celery_worker) -> dict[str, str]:
    return service_env(services, service_home)


def ingest(env: dict[str, str], path: Path, workspace: str) -> re.Match:
    result = segcite(env, "ingest", str(path), "--workspace", workspace)
    assert result.returncode == 0, result.stderr
    match = INGESTED.search(result.stdout.strip())
    assert match, result.stdout
    return match


def test_ask_prints_its_id_and_view_last_is_the_last_answer_in_any_workspace(
    env: dict[str, str], docai_real_dir: Path, tmp_path: Path
) -> None:
    museum_ws, hubble_ws = f"museum-{uuid.uuid4().hex[:8]}", f"hubble-{uuid.uuid4().hex[:8]}"
    museum = tmp_path / "museum.json"
    museum.write_bytes(orjson.dumps(build_document([PageSpec(["The museum opened in 1932 in Lyon."])])[0]))
    ingest(env, museum, museum_ws)
    hubble = docai_real_dir / "layout_parser_hubble_6p_to_json_defaults.json"  # the Layout Parser: no geometry
    ingest(env, hubble, hubble_ws)

    first = segcite(env, "ask", "When did the museum open?", "--workspace", museum_ws)
    assert first.returncode == 0, first.stderr
    *_, blank, said, _follow = first.stdout.splitlines()
    printed = MESSAGE_LINE.fullmatch(said)
    assert blank == "" and printed, first.stdout
    museum_answer = printed["id"]

    second = segcite(env, "ask", "When was it communicated?", "--workspace", hubble_ws, "--json")
    assert second.returncode == 0, second.stderr
    payload = orjson.loads(second.stdout)
    hubble_answer = payload["message_id"]  # kept in --json
    assert re.fullmatch(r"[0-9a-f-]{36}", hubble_answer) and hubble_answer != museum_answer
    [citation] = payload["metadata"]["citations"]
    assert "January 17, 1929" in payload["content"]
    assert (citation["boxes"], citation["bbox"], citation["page_image"]) == ([], None, None)

    # --last without --workspace: the last answer given, whatever its workspace.
    last = segcite(env, "view", "--last", "--out", str(tmp_path / "last.html"))
    assert last.returncode == 0, last.stderr
    assert last.stdout.strip() == str(tmp_path / "last.html")
    page = (tmp_path / "last.html").read_text(encoding="utf-8")
    assert "When was it communicated?" in page and "January 17, 1929" in page
    why = (
        f"{hubble.name}, page {citation['page_idx'] + 1}: no page image and no boxes for [1] in the Document AI JSON "
        "(its parser gave no page geometry, as the Layout Parser does): a blank page, nothing to highlight"
    )
    assert last.stderr.splitlines() == [why]  # said once on the terminal, and on the page
    assert page.count(why) == 1

    # --workspace narrows it; and the id printed by `ask` names the same answer.
    narrowed = segcite(env, "view", "--last", "--workspace", museum_ws, "--out", str(tmp_path / "museum.html"))
    assert narrowed.returncode == 0, narrowed.stderr
    # Its page has boxes but no image (the synthetic JSON carries none): said too.
    assert (
        narrowed.stderr
        == "museum.json, page 1: no page image in the Document AI JSON: the highlights are on a blank page\n"
    )
    by_id = segcite(env, "view", museum_answer, "--out", str(tmp_path / "by-id.html"))
    assert by_id.returncode == 0, by_id.stderr
    assert (tmp_path / "museum.html").read_text() == (tmp_path / "by-id.html").read_text()
    assert "The museum opened in 1932" in (tmp_path / "museum.html").read_text()
    nothing = segcite(env, "view", "--last", "--workspace", f"empty-{uuid.uuid4().hex[:8]}")
    assert nothing.returncode == 2 and nothing.stderr.startswith("error: workspace 'empty-"), nothing.stderr
    assert "' does not exist" in nothing.stderr

    # `highlight` of the same answer says why its page is blank, in one line.
    answer = tmp_path / "answer.json"
    answer.write_text(second.stdout)
    drawn = segcite(env, "highlight", "--document", str(hubble), "--answer", str(answer), "--out", str(tmp_path / "p"))
    png = tmp_path / "p" / f"page-{citation['page_idx'] + 1}.png"
    assert (drawn.returncode, drawn.stdout.splitlines()) == (0, [str(png)]), drawn.stderr
    assert drawn.stderr.splitlines() == [
        f"{png}: no page image and no boxes for [1] in the Document AI JSON (its parser gave no page geometry, "
        "as the Layout Parser does): a blank page, nothing to highlight"
    ]


def test_a_deleted_document_shows_no_segments_leaves_no_folder_and_logs_no_warning(
    env: dict[str, str], service_home: Path, docai_real_dir: Path
) -> None:
    workspace = f"delete-{uuid.uuid4().hex[:8]}"
    ingested = ingest(env, docai_real_dir / "invoice_parser_1p.json", workspace)  # it carries its page's image
    document = ingested["id"]
    objects = service_home / "objects"
    [pages_folder] = objects.glob(f"**/{document}.pages")
    assert [p.suffix for p in pages_folder.iterdir()] == [".png"]
    log = service_home / "worker.log"
    log_before = log.stat().st_size

    deleted = segcite(env, "delete", document)
    assert (deleted.returncode, deleted.stdout) == (0, f"invoice_parser_1p.json: deleted (document {document})\n")
    listed = segcite(env, "documents", "--workspace", workspace, "--all", "--json")
    [row] = orjson.loads(listed.stdout)
    assert (row["status"], row["segment_count"], row["page_count"]) == ("deleted", 0, int(ingested["pages"]))
    table = segcite(env, "documents", "--workspace", workspace, "--all")
    assert table.stdout.splitlines()[1].split()[:5] == [document, "invoice_parser_1p.json", "deleted", "1", "0"]
    assert not pages_folder.exists() and not list(objects.glob(f"**/{document}*"))  # nothing of it is left
    with log.open("rb") as handle:
        handle.seek(log_before)
        logged = handle.read().decode(errors="replace")
    assert "delete_document" in logged and "succeeded" in logged  # the delete ran in this worker
    assert f"[purge] {document}" not in logged and "recovery anchor" not in logged, logged
    assert not [line for line in logged.splitlines() if "WARNING" in line and document in line], logged


def test_a_row_whose_json_is_missing_fails_naming_the_key(celery_worker, store) -> None:
    """The app's path with SQL alone: a row naming a key nothing was put at."""
    workspace = workspace_id(f"missing-{uuid.uuid4().hex[:8]}")
    key = f"{workspace}/docai/report.json"
    document = store.create_document(workspace, "report.pdf", key)
    row = wait_for(
        lambda: (found := store.get_document(document.id)).status in DOCUMENT_DONE and found,
        timeout=60,
        what="the failed ingest",
    )
    assert row.status == "failed"
    assert row.error == (
        "report.pdf: its Document AI JSON is not in the object store: "
        f"nothing at key '{key}' in the local object folder"
    )
    assert "/tmp/" not in row.error and "file://" not in row.error  # no path of ours


def test_documents_finds_the_schema_current_without_meeting_an_ingests_lock(env: dict[str, str], migrated: str) -> None:
    """An ingest's first use of a workspace closes LightRAG's tables under segcite_secure_internal_tables()'s
    advisory lock; a command that ran that function too would wait on it (or deadlock with it). Held here."""
    import psycopg

    with psycopg.connect(migrated) as conn:
        conn.execute("select pg_advisory_xact_lock(hashtext('segcite_secure_internal_tables'))")
        try:
            listed = segcite(env, "documents", "--workspace", f"lock-{uuid.uuid4().hex[:8]}", timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("`segcite documents` waited on the lock an ingest holds")
        conn.rollback()
    assert listed.returncode == 2 and "does not exist" in listed.stderr, listed.stderr  # but it answered at once


def test_a_command_migrates_a_database_that_misses_a_migration(services, service_home, fresh_database: str) -> None:
    import psycopg

    from worker.migrate import migration_files, missing_migrations

    shipped = [path.name for path in migration_files()]
    assert missing_migrations(fresh_database) == shipped
    env = service_env(services, service_home, DATABASE_URL=fresh_database)
    first = segcite(env, "documents")
    assert first.returncode == 0, first.stderr
    assert missing_migrations(fresh_database) == []
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute("delete from segcite_migrations where name = %s", (shipped[-1],))
        assert missing_migrations(fresh_database) == [shipped[-1]]
        again = segcite(env, "documents")
        assert again.returncode == 0, again.stderr
        logged = [name for (name,) in conn.execute("select name from segcite_migrations order by name")]
    assert logged == shipped


def test_context_ids_are_the_first_k_then_the_fields_that_ride_along(env, docai_real_dir: Path, migrated: str) -> None:
    """README "How retrieval works" and docs/answer-payload.md: at most K segments that are not fields, then at
    most K // 2 fields of their documents (K = SEGCITE_TOP_K, 12 for the test worker), on top of them."""
    import psycopg

    top_k = 12
    workspace = f"fields-{uuid.uuid4().hex[:8]}"
    ingest(env, docai_real_dir / "utility_parser_1p_4tables.json", workspace)  # 8 texts and tables, 38 fields
    asked = segcite(env, "ask", "What is the amount due on the bill?", "--workspace", workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    context = orjson.loads(asked.stdout)["metadata"]["context_ids"]
    with psycopg.connect(migrated) as conn:
        kinds = dict(
            conn.execute(
                "select document_id::text || ':' || segment_index, kind from document_segments where workspace_id = %s",
                (workspace_id(workspace),),
            ).fetchall()
        )
    is_field = [kinds[i] == "field" for i in context]
    texts = is_field.index(True)
    assert is_field == [False] * texts + [True] * (len(context) - texts)  # the first K, then the fields
    assert 0 < texts <= top_k and len(context) - texts == top_k // 2  # the fields come on top of the K
