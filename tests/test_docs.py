"""docs/ says what the code does (issue 25, point 8): its links lead somewhere, and the fields it lists are the
ones the migrations create, the payload `build_answer` returns and the events the stores send."""

from __future__ import annotations

import re

import psycopg
import pytest
from conftest import REPO
from docai_synth import PageSpec, build_document

from ingest import build_segments
from query import build_answer
from worker.answers import StreamedSections
from worker.stores.rows import DocumentRow, DocumentStatus, MessageRow, MessageStatus, Role

DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Added to each citation by the page-image work; absent from payloads made before it.
NOT_YET_IN_EVERY_PAYLOAD: set[str] = set()


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes."""
    headings = re.findall(r"^#+ (.+)$", markdown, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def first_column(page: str, heading: str) -> set[str]:
    """The names in backticks in the first cell of each row of the first table under `heading`."""
    text = (DOCS / page).read_text()
    section = text[text.index(heading) :]
    rows = re.search(r"\n(\|.*\n)+", section).group(0).strip().splitlines()[2:]
    return {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}


def block_keys(page: str, heading: str) -> set[str]:
    """The quoted keys of the first code block under `heading`."""
    text = (DOCS / page).read_text()
    section = text[text.index(heading) :]
    block = section.split("```")[1]
    return set(re.findall(r'"(\w+)"', block))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_of_the_docs_leads_somewhere(page) -> None:
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_file(), f"{page.name}: {target}"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file.read_text()), f"{page.name}: {target}"


def test_the_readme_points_at_the_docs_not_at_a_file_it_lacks() -> None:
    readme = (REPO / "README.md").read_text()
    assert "design.md" not in readme
    for page in ("data-model.md", "answer-payload.md", "events.md", "settings.md"):
        assert f"(docs/{page})" in readme


def test_the_data_model_lists_every_column_the_migrations_create(migrated) -> None:
    with psycopg.connect(migrated) as conn:
        for table, heading in (
            ("documents", "### `documents`"),
            ("document_segments", "### `document_segments`"),
            ("messages", "`messages`:"),
            ("segcite_inbox", "### `segcite_inbox`"),
        ):
            columns = conn.execute(
                "select column_name from information_schema.columns where table_schema = 'public' and table_name = %s",
                (table,),
            ).fetchall()
            assert first_column("data-model.md", heading) == {c for (c,) in columns}, table
        [check] = conn.execute(
            "select pg_get_constraintdef(oid) from pg_constraint where conname = 'documents_status_check'"
        ).fetchone()
    statuses = set(re.findall(r"'(\w+)'", check))
    assert "deleting" in statuses
    assert first_column("data-model.md", "Statuses (") == statuses


def test_the_answer_payload_lists_every_field_build_answer_returns() -> None:
    document, _ = build_document([PageSpec(["The farm produced 61.4 GWh in 2025."])])
    context = build_segments(document, "farm")
    raw = '{"sections": [{"text": "The farm produced 61.4 GWh in 2025.", "source_ids": ["farm:0"]}]}'
    payload = build_answer(raw, context=context)
    metadata = payload["metadata"]
    [section], [citation], [sentence] = metadata["sections"], metadata["citations"], metadata["sentences"]
    assert set(payload) == {"content", "metadata"}
    assert block_keys("answer-payload.md", "```") >= set(metadata) | set(section) | set(sentence)
    assert first_column("answer-payload.md", "## `sections`") == set(section)
    documented = first_column("answer-payload.md", "## `citations`")
    assert set(citation) <= documented and documented - set(citation) <= NOT_YET_IN_EVERY_PAYLOAD
    text = (DOCS / "answer-payload.md").read_text()
    for key in [*citation["quote"], *citation["boxes"][0], *metadata["citation_map"]["1"][0]]:
        assert f'"{key}"' in text, key


def test_the_events_page_shows_the_payloads_the_stores_send() -> None:
    document = DocumentRow("d", "w", "a.json", DocumentStatus.INGESTED, "docai/d.json", 1, 2, None, 1.0)
    message = MessageRow("m", "c", "w", Role.ASSISTANT, "u", "text", MessageStatus.DONE)
    assert block_keys("events.md", "## `document.status_updated`") == set(document.event())
    assert block_keys("events.md", "## `message.status_updated`") == set(message.event())
    assert (document.topic, message.topic) == ("workspace:w", "conversation:c")
    document_, _ = build_document([PageSpec(["The farm produced 61.4 GWh in 2025."])])
    streamed = StreamedSections(build_segments(document_, "farm"), workspace=None)
    [section] = streamed.resolve([{"text": "The farm produced 61.4 GWh in 2025.", "source_ids": ["farm:0"]}])
    # The delta's own keys (`worker.answers._delta_sender`, `worker.streaming`) and its sections' keys.
    delta = {"message_id", "seq", "restart", "sections", "tail"}
    assert block_keys("events.md", "## `message.delta`") == delta | set(section)
