"""Issue 40: `answered` is a promise (design §5.9). The relation check (query.fit.relation) verifies that the cited
passage states the claim's value as the asked attribute of the asked subject: a label and its value, a table cell
under the asked row and column, a sentence whose subject and relation are the question's. Anything else is not
verified, and the answer is `uncertain`; through `build_answer`, with the offline answerer and with a model's
claims."""

from __future__ import annotations

import orjson
import pytest

from ingest import Segment
from query import build_answer, extractive_answer
from query.fit.check import FitCheck
from query.fit.documents import ScopeWords


def segment(text: str, document: str = "d", index: int = 0, kind: str = "paragraph") -> Segment:
    return Segment(document, index, 0, kind, text, None, None, None)


def verified(question: str, claim: str, passage: Segment, context: list[Segment] | None = None) -> str | None:
    return FitCheck(question, ScopeWords(context or [passage])).verify(claim, [passage]).how


@pytest.mark.parametrize(
    ("question", "claim", "passage", "how"),
    [
        # a label and its value, on one line or on two
        (
            "What is the balance due?",
            "Balance Due: $4,647.68",
            "Due Date:\nSep 30, 2019\nBalance Due:\n$4,647.68",
            "label",
        ),
        (
            "When is the invoice due?",
            "Due Date: Sep 30, 2019",
            "Due Date:\nSep 30, 2019\nBalance Due:\n$4,647.68",
            "label",
        ),
        ("What are the payment terms?", "TERMS: 6 month contract", "TERMS: 6 month contract\nDUE: 01/01/2025", "label"),
        ("What is the application number?", "(21) Appl. No.: 15/453,945", "(21) Appl. No.: 15/453,945", "label"),
        # a sentence whose relation is the question's
        (
            "What is the default PDF viewer?",
            "The default PDF viewer is xdg-open.",
            "The default PDF viewer is xdg-open.",
            "sentence",
        ),
        (
            "Who wrote the tutorial?",
            "The tutorial was written by Charles Staats.",
            "The tutorial was written by Charles Staats.",
            "sentence",
        ),
        (
            "Who contributed the demo script?",
            "Dinu Gherman contributed this useful script.",
            "Dinu Gherman contributed this useful script.",
            "sentence",
        ),
        (
            "What does the option default to?",
            "It sets the height. Default value is 1cm.",
            "lineheight=dim sets the option height. Default value is 1cm.",
            "sentence",
        ),
        (
            "Who is the licensor?",
            'Cymbal Inc. (the "Licensor")',
            'between Cymbal Inc. (the "Licensor") and B-Cafetal',
            "sentence",
        ),
        (
            "What does rand(-1) do?",
            "rand(-1) resets both seeds.",
            "rand(0) returns a number.\nrand(-1) resets both seeds.",
            "sentence",
        ),
        # an amount followed by what it is an amount of (the demo's question)
        (
            "How much electricity did the solar farm generate in 2025?",
            "In 2025 the farm generated 61.4 gigawatt hours of electricity, enough for about 17,000 homes.",
            "Harbor Point Solar Farm\nIn 2025 the farm generated 61.4 gigawatt hours of electricity, enough for about"
            " 17,000 homes.",
            "sentence",
        ),
    ],
)
def test_a_passage_that_states_the_value_as_asked_verifies_it(question, claim, passage, how) -> None:
    assert verified(question, claim, segment(passage)) == how


@pytest.mark.parametrize(
    ("question", "claim", "passage"),
    [
        # a sentence that shares the question's words, without its relation
        (
            "What is the default PDF viewer under UNIX?",
            "The UNIX PostScript viewer gv supports this.",
            "The UNIX PostScript viewer gv supports this (via a SIGHUP signal).",
        ),
        # the value's label names another attribute than the one asked
        ("What is the previous balance?", "BALANCE DUE: $2140.00", "BALANCE DUE: $2140.00"),
        # words cut out of a sentence: the attribute, then other words, then a value
        (
            "On which sector do the products focus?",
            "sector - as set forth on Schedule A",
            "in the snack food sector - as set forth on Schedule A attached hereto",
        ),
        # who wrote it: its agent, not the object of a verb of writing
        ("Who wrote the manual?", "write in the field Project name.", "To start, write in the field Project name."),
        # the subject of the question is another thing than the one the passage dates
        (
            "When was the earlier application that the patent continues filed?",
            "(22) Filed: Mar. 9, 2017",
            "(10) Patent No.: US 10,142,938 B2\n(22) Filed: Mar. 9, 2017",
        ),
        # a name that owns the attribute is said where the value is
        (
            "What was the Harvard estimate of the distance?",
            "individual distances are estimated for only 24.",
            "individual distances are estimated for only 24. The Harvard value was 10 million.",
        ),
        # an amount of another thing than the one asked
        (
            "How much electricity did the solar farm generate in 2025?",
            "In 2025 the farm stored 12.5 gigawatt hours of heat.",
            "Harbor Point Solar Farm\nIn 2025 the farm stored 12.5 gigawatt hours of heat.",
        ),
    ],
)
def test_a_passage_that_does_not_state_it_so_leaves_it_unverified(question, claim, passage) -> None:
    assert verified(question, claim, segment(passage)) is None


def test_a_label_that_labels_two_values_does_not_say_which_is_asked() -> None:
    # (two columns read in turn: the sender's and the recipient's labels, then their addresses)
    invoice = segment("FROM: Company ABC\nTO: John Doe\nADDRESS: 111 Main Street\nADDRESS: 222 Main Street")
    assert verified("What is John Doe's street address?", "ADDRESS: 222 Main Street", invoice) is None


def test_a_table_cell_is_verified_by_its_row_and_its_column() -> None:
    rows = ["Item Description | Quantity | Price | Amount", "Tool A | 500 | $1.00 | $500.00", "Service B | 1 | $900.00"]
    table = segment("\n".join(rows), kind="table")
    assert verified("How many units of Tool A were ordered?", "Tool A | 500 | $1.00 | $500.00", table) == "table cell"
    assert verified("How many units of Tool A were ordered?", "Service B | 1 | $900.00", table) is None


def test_the_offline_answer_is_answered_only_when_verified() -> None:
    sentences = segment(
        "The UNIX PostScript viewer gv supports this (via a SIGHUP signal). On UNIX the default PDF viewer is xdg-open."
    )
    question = "What is the default PDF viewer under UNIX?"
    payload = build_answer(extractive_answer(question, [sentences]), context=[sentences], question=question)
    assert "xdg-open" in payload["content"]
    assert payload["metadata"]["answer_status"] == "answered"
    assert payload["metadata"]["sections"][0]["verified_as"] == "sentence"
    unsaid = segment("The UNIX PostScript viewer gv supports this (via a SIGHUP signal).")
    payload = build_answer(extractive_answer(question, [unsaid]), context=[unsaid], question=question)
    assert payload["metadata"]["answer_status"] in ("uncertain", "not_found")
    assert "gv" not in payload["content"] or payload["metadata"]["answer_status"] == "uncertain"


def test_a_models_claim_is_verified_by_its_passage_not_by_its_wording() -> None:
    page = segment("Google\nINVOICE\nDue Date:\nSep 30, 2019\nBalance Due:\n$4,647.68")
    question = "What is the balance due and the due date?"
    raw = orjson.dumps(
        {
            "sections": [
                {"text": "The balance due is $4,647.68 and the due date is Sep 30, 2019.", "source_ids": ["d:0"]}
            ]
        }
    ).decode()
    payload = build_answer(raw, context=[page], question=question)
    assert payload["metadata"]["answer_status"] == "answered"  # one section verifies both things asked
    (citation,) = payload["metadata"]["citations"]
    # each value with its label, in the claim's order
    assert [q["text"] for q in citation["quotes"]] == ["Balance Due:\n$4,647.68", "Due Date:\nSep 30, 2019"]
    wrong = orjson.dumps({"sections": [{"text": "The balance due is $9,999.00.", "source_ids": ["d:0"]}]}).decode()
    assert build_answer(wrong, context=[page], question=question)["metadata"]["answer_status"] == "uncertain"
