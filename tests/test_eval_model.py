"""`segcite eval --generate-with-model` (issue 32): the configured model, here a local server speaking the OpenAI
API (bench/openai_stub.py), writes questions over sampled passages; one whose answer is not in its passage is
dropped; the tokens the provider reports are counted."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import orjson
import pytest
from conftest import segcite as run
from conftest import service_env
from openai_stub import FakeOpenAI

from evaluation import SegmentRef
from worker.errors import PermanentError
from worker.evalrun.model_questions import write_questions
from worker.settings import Settings

PASSAGES = [
    SegmentRef("a:0", "lease.json", 0, "paragraph", "The lease starts on 1 March 2021 and runs for ten years."),
    SegmentRef("b:2", "invoice.json", 1, "paragraph", "Invoice 2231 comes to $1,767.97, due within thirty days."),
    SegmentRef("c:1", "memo.json", 0, "paragraph", "The meeting was moved to the Lisbon office at short notice."),
]


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    yield fake
    fake.server.shutdown()


# What the model replies over each document's passage, and the tokens it reports.
REPLIES = {
    "lease.json": ('{"question": "When does the lease start?", "answer": "1 March 2021"}', 120),
    "invoice.json": ('```json\n{"question": "How much is invoice 2231?", "answer": "$9,999.00"}\n```', 130),  # wrong
    "memo.json": ('{"question": "Where was the meeting moved?", "answer": "the Lisbon office"}', 110),
}


class PassageModel(FakeOpenAI):
    """Replies to each passage from REPLIES, by the document its prompt names."""

    def default(self, path: str, body: dict) -> dict:
        document = body["messages"][-1]["content"].splitlines()[0].removeprefix("Document: ")
        content, tokens = REPLIES[document]
        reply = FakeOpenAI.completion(content)
        reply["usage"] = {"prompt_tokens": tokens - 10, "completion_tokens": 10, "total_tokens": tokens}
        return reply


def test_the_model_writes_questions_and_a_wrong_one_is_dropped() -> None:
    fake_llm = PassageModel()
    settings = Settings(segcite_llm_provider="openai", openai_base_url=fake_llm.url, segcite_llm_model="m")
    written = write_questions(settings, PASSAGES, 3)
    fake_llm.server.shutdown()
    assert sorted((q.kind, q.text, q.expected) for q in written.questions) == [
        ("model", "When does the lease start?", (("1 March 2021",),)),
        ("model", "Where was the meeting moved?", (("the Lisbon office",),)),
    ]
    assert (written.discarded, written.tokens) == (1, 360)
    assert sorted(q.origin["segment_id"] for q in written.questions) == ["a:0", "c:1"]
    assert all(q.origin["from"] == "model" and q.origin["model"] == "m" for q in written.questions)
    paths = [path for path, _ in fake_llm.requests]
    assert paths == ["/v1/chat/completions"] * 3
    prompts = [body["messages"][-1]["content"] for _, body in fake_llm.requests]
    assert sorted(p.splitlines()[0] for p in prompts) == sorted(f"Document: {s.document}" for s in PASSAGES)
    assert all(s.text in "\n".join(prompts) for s in PASSAGES)
    assert all(body["model"] == "m" for _, body in fake_llm.requests)


def test_without_a_model_configured_it_says_what_to_set() -> None:
    with pytest.raises(PermanentError, match="set SEGCITE_LLM_PROVIDER=openai"):
        write_questions(Settings(segcite_llm_provider="extractive"), PASSAGES, 2)


def test_a_model_that_refuses_the_key_is_one_clear_error(fake_llm: FakeOpenAI) -> None:
    fake_llm.replies.append((401, {"error": {"message": "bad key", "type": "auth"}}))
    settings = Settings(segcite_llm_provider="openai", openai_base_url=fake_llm.url, segcite_llm_model="m")
    with pytest.raises(PermanentError, match="LLM configuration error"):
        write_questions(settings, PASSAGES, 1)


class QuotingModel(FakeOpenAI):
    """Asks about each passage's first three words, quoted from it."""

    def default(self, path: str, body: dict) -> dict:
        passage = body["messages"][-1]["content"].split("\n\n", 1)[1]
        answer = " ".join(passage.split()[:3])
        return FakeOpenAI.completion(
            orjson.dumps({"question": f"What begins with {answer}?", "answer": answer}).decode()
        )


def test_segcite_eval_asks_the_questions_the_model_wrote(
    services, service_home, celery_worker, docai_real_dir, tmp_path
):
    """Through the command: the model (here, the local server) writes the questions, the worker answers them."""
    fake = QuotingModel()
    env = service_env(
        services, service_home, SEGCITE_LLM_PROVIDER="openai", OPENAI_BASE_URL=fake.url, SEGCITE_LLM_MODEL="m"
    )
    workspace = f"model-{uuid.uuid4().hex[:6]}"
    assert run(env, "ingest", str(docai_real_dir / "invoice_parser_1p.json"), "--workspace", workspace).returncode == 0
    out = tmp_path / "out"
    done = run(env, "eval", "--workspace", workspace, "--generate-with-model", "2", "--out", str(out))
    fake.server.shutdown()
    assert done.returncode == 0, done.stderr
    assert "the model wrote 2 questions" in done.stderr
    lines = [orjson.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert [(line["kind"], line["source"]["from"], line["source"]["model"]) for line in lines] == [
        ("model", "model", "m")
    ] * 2
    report = orjson.loads((out / "report.json").read_bytes())
    assert report["question_writing"] == {"model": "m", "questions": 2, "discarded": 0, "tokens": None}
    assert report["by_kind"]["model"]["questions"] == 2 and report["run"]["finished"] == 2
    assert len([path for path, _ in fake.requests if path.endswith("/chat/completions")]) == 2
