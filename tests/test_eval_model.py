"""`segcite eval --generate-with-model` (issue 32): the configured model, here a local server speaking the OpenAI
API (bench/openai_stub.py), writes questions over sampled passages; one whose answer is not in its passage is
dropped; the tokens the provider reports are counted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
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
