"""Adapters against real servers: moto's S3 server as R2, a local HTTP server speaking the OpenAI API."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
import redis
from docai_synth import PageSpec, build_document, shard_document
from openai_stub import FakeOpenAI

from worker import answers, documents
from worker.embedded import redis_client_url
from worker.embeddings import HashEmbedder, OpenAIEmbedder
from worker.errors import MissingObject, PermanentError, TransientError, describe_transient
from worker.llm import OpenAIAnswerer
from worker.objects import LocalFolderStore, R2Store, make_object_store
from worker.rag import RagStore, context_chunks, segment_ids_of
from worker.runtime import Runtime
from worker.settings import Settings
from worker.stores.postgres import PostgresStore


@pytest.fixture(scope="module")
def migrated(database_without_worker: str) -> str:
    """The rows here are worked on by the calls under test: a database the session's worker does not serve."""
    return database_without_worker


# --- R2 (moto) ----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def r2_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def r2(r2_endpoint: str, monkeypatch) -> R2Store:
    bucket = f"docai-{uuid.uuid4().hex[:8]}"
    settings = Settings(
        r2_endpoint_url=r2_endpoint, r2_bucket=bucket, r2_access_key_id="test", r2_secret_access_key="test-secret"
    )
    store = R2Store(settings)
    # R2 buckets are made in its dashboard; moto needs the "auto" region spelled out.
    store.client.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "auto"})
    return store


def test_r2_client_is_configured_for_r2(r2: R2Store) -> None:
    config = r2.client.meta.config
    assert config.signature_version == "s3v4"
    assert config.request_checksum_calculation == "when_required"
    assert config.response_checksum_validation == "when_required"
    assert r2.client.meta.region_name == "auto"


def test_r2_single_object_and_shard_prefix(r2: R2Store) -> None:
    document, _ = build_document([PageSpec(["One."]), PageSpec(["Two."]), PageSpec(["Three."])], with_tokens=False)
    r2.put("docai/one.json", orjson.dumps(document))
    assert [orjson.loads(b)["text"] for b in r2.read_docai("docai/one.json")] == [document["text"]]
    shards = shard_document(document, 1)
    for i, shard in enumerate(shards):
        r2.put(f"docai/sharded/part-{i}.json", orjson.dumps(shard))
    r2.put("docai/sharded/notes.txt", b"not a shard")
    for key in ("docai/sharded/", "docai/sharded"):  # a prefix with or without its slash
        blobs = r2.read_docai(key)
        assert [orjson.loads(b)["text"] for b in blobs] == [s["text"] for s in shards]


@pytest.mark.parametrize("store_kind", ["r2", "local"])
def test_deleting_an_upload_removes_its_object_or_its_shards_only(r2: R2Store, tmp_path: Path, store_kind: str) -> None:
    store = r2 if store_kind == "r2" else LocalFolderStore(tmp_path / "objects")
    for key in ("docai/a.json", "docai/b/shard-0000.json", "docai/b/shard-0001.json", "docai/bb.json"):
        store.put(key, b"{}")
    store.delete("docai/a.json")
    store.delete("docai/b/")
    store.delete("docai/never-stored.json")  # nothing there is fine
    assert store.read_docai("docai/bb.json") == [b"{}"]  # a key sharing the prefix's start stays
    for gone in ("docai/a.json", "docai/b/"):
        with pytest.raises(MissingObject):
            store.read_docai(gone)


def test_r2_keeps_a_page_image_with_its_type_and_reads_it_back(r2: R2Store) -> None:
    r2.put("docai/one.pages/1-abc.png", b"\x89PNG\r\n\x1a\n-bytes", "image/png")
    assert r2.read("docai/one.pages/1-abc.png") == b"\x89PNG\r\n\x1a\n-bytes"
    head = r2.client.head_object(Bucket=r2.bucket, Key="docai/one.pages/1-abc.png")
    assert head["ContentType"] == "image/png"
    with pytest.raises(MissingObject, match=r"^no object at r2://"):
        r2.read("docai/one.pages/2-abc.png")
    r2.delete("docai/one.pages/1-abc.png")
    with pytest.raises(MissingObject):
        r2.read("docai/one.pages/1-abc.png")


def test_r2_settings_must_be_whole(monkeypatch) -> None:
    r2_variables = ("R2_BUCKET", "R2_ENDPOINT_URL", "R2_ACCOUNT_ID", "R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY")
    for variable in (*r2_variables, "SEGCITE_OBJECT_STORE"):
        monkeypatch.delenv(variable, raising=False)
    assert isinstance(make_object_store(Settings(_env_file=None)), LocalFolderStore)
    with pytest.raises(PermanentError) as partial:
        make_object_store(Settings(_env_file=None, r2_bucket="docs"))
    assert str(partial.value) == (
        "R2 is not fully configured: R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY, R2_ENDPOINT_URL or R2_ACCOUNT_ID not set"
    )
    with pytest.raises(PermanentError, match=r"^R2 is not fully configured: R2_BUCKET, "):
        make_object_store(Settings(_env_file=None, segcite_object_store="r2"))
    whole = Settings(
        _env_file=None, r2_bucket="docs", r2_account_id="acct", r2_access_key_id="k", r2_secret_access_key="s"
    )
    assert isinstance(make_object_store(whole), R2Store)
    assert isinstance(make_object_store(whole.model_copy(update={"segcite_object_store": "local"})), LocalFolderStore)


def test_r2_missing_object_message(r2: R2Store) -> None:
    with pytest.raises(MissingObject) as info:
        r2.read_docai("docai/nope.json")
    assert str(info.value) == f"nothing at r2://{r2.bucket}/docai/nope.json"


def test_r2_unreachable_is_transient() -> None:
    settings = Settings(
        r2_endpoint_url=f"http://127.0.0.1:{free_port()}", r2_bucket="b", r2_access_key_id="k", r2_secret_access_key="s"
    )
    with pytest.raises(TransientError, match="R2 unreachable"):
        R2Store(settings).read_docai("docai/x.json")


# --- a local OpenAI-compatible server -------------------------------------------------------------------


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    yield fake
    fake.server.shutdown()


def openai_settings(fake: FakeOpenAI, **extra: Any) -> Settings:
    return Settings(
        segcite_llm_provider="openai",
        openai_base_url=fake.url,
        openai_api_key="sk-test-key-123456",
        segcite_llm_model="test-model",
        segcite_llm_timeout=5,
        **extra,
    )


def test_openai_answerer_sends_the_prompt_in_json_mode(fake_openai: FakeOpenAI) -> None:
    from ingest import Segment

    fake_openai.replies.append((200, FakeOpenAI.completion('{"sections": [{"text": "Hi.", "source_ids": ["d:0"]}]}')))
    context = [Segment("d", 0, 2, "paragraph", "Paris is the capital.", None, None, None)]
    raw = "".join(
        OpenAIAnswerer(openai_settings(fake_openai)).stream(
            "What is the capital?", context, [{"role": "user", "content": "earlier question"}]
        )
    )
    assert orjson.loads(raw)["sections"][0]["source_ids"] == ["d:0"]
    [(path, body)] = fake_openai.requests
    assert path == "/v1/chat/completions"
    assert body["model"] == "test-model" and body["temperature"] == 0
    assert body["stream"] is True and body["max_tokens"] == 1024  # streamed, and capped (design §6)
    assert body["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in body["messages"]] == ["system", "user", "user"]
    assert body["messages"][1]["content"] == "earlier question"
    assert "[SEG=d:0] (page 3) Paris is the capital." in body["messages"][-1]["content"]


def test_openai_answerer_falls_back_when_json_mode_is_unsupported(fake_openai: FakeOpenAI) -> None:
    fake_openai.replies.append((400, {"error": {"message": "response_format is not supported", "type": "x"}}))
    fake_openai.replies.append((200, FakeOpenAI.completion("plain text answer")))
    assert "".join(OpenAIAnswerer(openai_settings(fake_openai)).stream("q", [], [])) == "plain text answer"
    assert "response_format" in fake_openai.requests[0][1]
    assert "response_format" not in fake_openai.requests[1][1]


@pytest.mark.parametrize(
    ("second", "error"),
    [
        (FakeOpenAI.HANG_UP, "LLM unavailable (APIConnectionError)"),
        ((500, {"error": {"message": "boom", "type": "server"}}), "LLM unavailable (InternalServerError)"),
    ],
)
def test_errors_of_the_retry_without_json_mode_are_classified(fake_openai: FakeOpenAI, second, error: str) -> None:
    """The retry without JSON mode goes through the same checks as the first request: a dropped connection is
    transient, not an internal error. (An empty answer after it: tests/test_llm_worker.py.)"""
    fake_openai.replies.append((400, {"error": {"message": "response_format is not supported", "type": "x"}}))
    fake_openai.replies.append(second)
    with pytest.raises(TransientError) as raised:
        "".join(OpenAIAnswerer(openai_settings(fake_openai)).stream("q", [], []))
    assert str(raised.value).startswith(error)
    assert "response_format" in fake_openai.requests[0][1]
    assert all("response_format" not in body for _, body in fake_openai.requests[1:])


@pytest.mark.parametrize(
    ("status", "error"),
    [(500, TransientError), (503, TransientError), (429, TransientError), (401, PermanentError), (404, PermanentError)],
)
def test_openai_errors_are_classified(fake_openai: FakeOpenAI, status: int, error: type) -> None:
    fake_openai.replies.extend([(status, {"error": {"message": "nope", "type": "x"}})] * 3)
    with pytest.raises(error):
        "".join(OpenAIAnswerer(openai_settings(fake_openai)).stream("q", [], []))


def test_openai_timeout_is_transient(fake_openai: FakeOpenAI) -> None:
    settings = openai_settings(fake_openai)
    settings.openai_base_url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with pytest.raises(TransientError, match="LLM unavailable"):
        "".join(OpenAIAnswerer(settings).stream("q", [], []))


def test_openai_embedder(fake_openai: FakeOpenAI) -> None:
    import asyncio

    embedder = OpenAIEmbedder(
        openai_settings(fake_openai, segcite_embedding_dim=16, segcite_embedding_model="embed-model")
    )
    vectors = asyncio.run(embedder(["a", "b"]))
    assert vectors.shape == (2, 16)
    assert fake_openai.requests[0][0] == "/v1/embeddings"
    assert fake_openai.requests[0][1]["model"] == "embed-model" and fake_openai.requests[0][1]["input"] == ["a", "b"]


# --- the pipeline in-process with R2 and the openai provider --------------------------------------------


@pytest.fixture(scope="module")
def rag_and_store(migrated: str, services, service_home: Path):
    settings = Settings(segcite_home=service_home)
    store = PostgresStore(migrated, max_size=2)
    rag = RagStore(settings, migrated, HashEmbedder(settings.segcite_embedding_dim))
    yield rag, store
    rag.close()
    store.close()


def test_pipeline_with_r2_and_openai_uses_history_and_delivers_bad_json_uncited(
    rag_and_store, services, r2: R2Store, fake_openai: FakeOpenAI
) -> None:
    rag, store = rag_and_store
    settings = openai_settings(fake_openai)
    rt = Runtime(
        settings=settings,
        store=store,
        objects=r2,
        rag=rag,
        answerer=OpenAIAnswerer(settings),
        redis=redis.Redis.from_url(redis_client_url(services.redis_url)),
    )
    workspace = str(uuid.uuid4())
    document, _ = build_document(
        [PageSpec(["The reactor was commissioned in 1998."]), PageSpec(["It produces 1,200 megawatts at full load."])]
    )
    document_id = str(uuid.uuid4())
    r2.put(f"docai/{document_id}/", b"")  # an empty marker object must not confuse the prefix read
    for i, shard in enumerate(shard_document(document, 1)):
        r2.put(f"docai/{document_id}/shard-{i}.json", orjson.dumps(shard))
    store.create_document(workspace, "reactor", f"docai/{document_id}/", document_id)
    ingested = documents.ingest_document(rt, document_id)
    assert ingested == {"document_id": document_id, "segments": 2, "pages": 2, "page_images": 0}  # none in the JSON

    conversation = store.create_conversation(workspace)
    first = store.create_message(conversation, "user", "When was it commissioned?")
    store.update_message(
        store.create_message(conversation, "assistant", "", first.id).id, status="done", content="In 1998 [1]."
    )
    question = store.create_message(conversation, "user", "And its output?")
    answer = store.create_message(conversation, "assistant", "", reply_to=question.id)
    fake_openai.replies.append((200, FakeOpenAI.completion("It makes 1,200 megawatts. {not json")))
    result = answers.answer_message(rt, answer.id)
    assert result["message_id"] == answer.id

    body = fake_openai.requests[-1][1]
    assert [m["content"] for m in body["messages"][1:3]] == ["When was it commissioned?", "In 1998 [1]."]
    assert "Question: And its output?" in body["messages"][-1]["content"]
    message = store.get_message(answer.id)
    assert message.status == "done"
    assert message.content.startswith("It makes 1,200 megawatts")
    sections = message.metadata["sections"]
    assert sections[0]["citation_status"] == "matched"  # no ids, but the text matches a segment
    assert message.metadata["citations"][0]["segment_id"] == f"{document_id}:1"
    assert message.metadata["citations"][0]["page_idx"] == 1


def test_local_folder_store_refuses_keys_outside_its_folder(tmp_path: Path) -> None:
    store = LocalFolderStore(tmp_path / "objects")
    with pytest.raises(PermanentError, match="outside"):
        store.read_docai("../../etc/passwd")


class FlakyS3(BaseHTTPRequestHandler):
    """An S3 endpoint that answers 503 to the first `failures` GETs, then serves one object."""

    failures = 0
    calls = 0

    def do_GET(self) -> None:
        type(self).calls += 1
        if type(self).calls <= type(self).failures:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"text": "Served after a hiccup.\\n"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize(("failures", "outcome"), [(2, "served"), (100, "transient")])
def test_r2_server_errors_are_retried_then_transient(failures: int, outcome: str) -> None:
    FlakyS3.failures, FlakyS3.calls = failures, 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), FlakyS3)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings = Settings(
            r2_endpoint_url=f"http://127.0.0.1:{server.server_address[1]}",
            r2_bucket="b",
            r2_access_key_id="k",
            r2_secret_access_key="s",
        )
        store = R2Store(settings)
        if outcome == "served":
            assert store.read_docai("docai/x.json") == [b'{"text": "Served after a hiccup.\\n"}']
            assert FlakyS3.calls == 3  # boto3's own retries absorbed two 503s
        else:
            with pytest.raises(TransientError, match=r"R2 error reading r2://b/docai/x\.json: 503"):
                store.read_docai("docai/x.json")
            assert FlakyS3.calls == 4  # bounded: the first try and 3 retries, then the task's retry policy
    finally:
        server.shutdown()


class SlowS3(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        time.sleep(3)
        with contextlib.suppress(OSError):
            self.send_response(200)
            self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_r2_slow_server_times_out_as_transient() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowS3)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings = Settings(
            r2_endpoint_url=f"http://127.0.0.1:{server.server_address[1]}",
            r2_bucket="b",
            r2_access_key_id="k",
            r2_secret_access_key="s",
        )
        started = time.monotonic()
        with pytest.raises(TransientError, match="R2 unreachable"):
            R2Store(settings, read_timeout=0.5).read_docai("docai/x.json")
        assert time.monotonic() - started < 10  # bounded: four attempts of half a second, not a hang
    finally:
        server.shutdown()


# --- LightRAG's storages on a new database -------------------------------------------------------------

_FIRST_USE = """
import sys
from pathlib import Path
from worker.embeddings import HashEmbedder
from worker.rag import RagStore
from worker.settings import Settings

database_url, home = sys.argv[1], sys.argv[2]
rag = RagStore(Settings(segcite_home=Path(home)), database_url, HashEmbedder(64))
print("ready", flush=True)
sys.stdin.readline()  # all processes go at once
print("found", rag.retrieve(sys.argv[3], "anything", 3), flush=True)
rag.close()
"""


def test_workers_creating_lightrags_tables_at_once_on_a_new_database_all_succeed(
    fresh_database: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from worker.migrate import apply_migrations

    apply_migrations(fresh_database)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _FIRST_USE, fresh_database, str(tmp_path), str(uuid.uuid4())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    for process in processes:
        process.stdin.write("\n")
        process.stdin.flush()
    results = [process.communicate(timeout=120) for process in processes]
    for process, (out, err) in zip(processes, results, strict=True):
        assert process.returncode == 0, err[-2000:]
        assert out.strip().endswith("found []")  # each workspace is new and empty
        # LightRAG's table probes ("relation ... does not exist") and INFO lines are kept out of the logs.
        assert "does not exist" not in err and "INFO" not in err, err[-2000:]


# --- retrieval: "nothing found" is decided by the response's structure ------------------------------------


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        ((404, {"error": {"message": "no model named m found", "type": "x"}}), PermanentError, "configuration error"),
        ((503, {"error": {"message": "busy", "type": "x"}}), TransientError, "unavailable"),
    ],
)
def test_embedding_errors_are_classified(fake_openai: FakeOpenAI, reply, error: type, message: str) -> None:
    """LightRAG lets the embedder's errors through to the task: the embedder makes them ours first."""
    import asyncio

    fake_openai.replies.extend([reply] * 3)
    embedder = OpenAIEmbedder(openai_settings(fake_openai, segcite_embedding_dim=16))
    with pytest.raises(error, match=f"embedding model {message}"):
        asyncio.run(embedder(["a"]))


# Shapes of LightRAG 1.5.7's `aquery_data` results (lightrag.py, operate.py): found, nothing found (two ways).
FOUND = {"status": "success", "message": "ok", "data": {"chunks": [{"content": "[SEG=d:1] text"}]}, "metadata": {}}
NO_RESULTS = {
    "status": "failure",
    "message": "No relevant document chunks found.",
    "data": {},
    "metadata": {"failure_reason": "no_results", "mode": "naive"},
}
EMPTY_DATASET = {
    "status": "failure",
    "message": "Query returned empty dataset.",
    "data": {"entities": [], "relationships": [], "chunks": [], "references": []},
    "metadata": {},
}


def test_nothing_found_is_decided_by_the_structure_not_the_words() -> None:
    assert segment_ids_of(context_chunks(FOUND)) == ["d:1"]
    assert context_chunks(NO_RESULTS) == []
    assert context_chunks(EMPTY_DATASET) == []
    # A failure without LightRAG's "nothing found" structure is raised, whatever its words say.
    for message in ("No relevant document chunks found.", "storage not found: no table"):
        with pytest.raises(TransientError, match="retrieval failed"):
            context_chunks({"status": "failure", "message": message, "data": {}, "metadata": {}})


def test_an_empty_workspace_retrieves_no_context(rag_and_store) -> None:
    rag, _ = rag_and_store
    assert rag.retrieve(str(uuid.uuid4()), "What is the budget?", 3) == []


@pytest.mark.parametrize(
    ("error", "described"),
    [
        (
            TransientError("LLM unavailable (APITimeoutError): Request timed out."),
            "LLM unavailable (APITimeoutError): Request timed out.",
        ),
        (
            psycopg.OperationalError("connection refused"),
            "the database did not answer (OperationalError: connection refused)",
        ),
        (redis.ConnectionError("Error 111"), "Redis did not answer (ConnectionError: Error 111)"),
        (TimeoutError("timed out"), "a service did not answer (TimeoutError: timed out)"),
    ],
)
def test_a_transient_error_is_described_by_the_service_that_failed(error: BaseException, described: str) -> None:
    # What a row's `error` says after the retries are spent: what failed first, the library's words after.
    assert describe_transient(error) == described
