"""Issue 40: the fit check is a pipeline of named checks (query.fit); each has its own tests here, on claims and
passages made for them. (tests/test_query_fit.py checks the pipeline through `build_answer` on the real Document AI
outputs.)"""

from __future__ import annotations

import pytest

from ingest import Segment
from query.fit.asked import Asked
from query.fit.documents import ScopeWords
from query.fit.focus import FocusCheck
from query.fit.kind import KindCheck
from query.fit.label import LabelCheck
from query.fit.not_found import says_not_found
from query.fit.scope import ScopeCheck
from query.fit.verdict import ANSWERED, FITS, NOT_FOUND, UNCERTAIN, Answered, Fit, answer_status


def segment(text: str, document: str = "d", index: int = 0, kind: str = "paragraph") -> Segment:
    return Segment(document, index, 0, kind, text, None, None, None)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("I could not find an answer to this question in your documents.", True),
        ("Je ne sais pas.", True),
        ("わかりません", True),
        ("The total found on page 3 is $45.00.", False),
        ("Total: $45.00", False),
    ],
)
def test_not_found_reads_a_statement_that_it_does_not_know(text: str, found: bool) -> None:
    assert says_not_found(text) is found


@pytest.mark.parametrize(
    ("question", "claim", "warning"),
    [
        ("What is the surname on the passport?", "Surname/Nom/Apellidos", "the answer is a label with no value"),
        ("How much is the tax?", "Tax (10%):", None),  # a rate is in it: the kind check says whether it is asked
        ("What is the apartment number?", "Apartment #", "the answer is a label with no value"),
        (
            "What is the default opacity of a pen?",
            "real opacity",
            "the answer is a fragment: no verb, no label, no value",
        ),
        ("What is the default opacity of a pen?", "The default opacity is 1", None),
        ("How many pages does it have?", "real opacity", None),  # a count asked: the kind check says no
    ],
)
def test_label_fails_a_claim_that_holds_no_value(question: str, claim: str, warning: str | None) -> None:
    fit = LabelCheck(Asked(question))(claim)
    assert (fit.warning if fit else None) == warning


def test_focus_needs_the_thing_asked_about_in_the_claim_or_its_passage() -> None:
    asked = Asked("What is the tax on the invoice?")
    check = FocusCheck(asked)
    part = asked.parts[0]
    passage = segment("Subtotal: $100.00\nTax: $10.00")
    assert check(part, "Tax: $10.00", check.said("Tax: $10.00", [passage]), frozenset()) is None
    unrelated = segment("Shipping: $5.00")
    fit = check(part, "Shipping: $5.00", check.said("Shipping: $5.00", [unrelated]), frozenset())
    assert fit == Fit(0.3, "asks about tax; neither the answer nor its passage speaks of it")


def test_focus_fails_a_total_that_excludes_what_is_asked() -> None:
    asked = Asked("What is the invoice total?")
    check = FocusCheck(asked)
    text = "Total hors TVA: 52,40 €"
    fit = check(asked.parts[0], text, check.said(text, [segment(text)]), frozenset({"tva"}))
    assert fit is not None and fit.warning == "asks for the whole amount; the answer excludes tva"


@pytest.mark.parametrize(
    ("question", "claim", "warning"),
    [
        ("When is the invoice due?", "Due: 2020/12/01", None),
        ("When is the invoice due?", "Due: upon receipt", "asks for a date; the answer has none"),
        ("How much is the tax?", "Tax rate: 10%", "asks for an amount; the answer gives only a rate"),
        ("Who is the licensor?", "Licensor: Cymbal Inc.", None),
        (
            "What is the phone number of the store?",
            "Fax: (408) 356-3757",
            "asks for a phone number; the answer has none",
        ),
        (
            "How much did the first 800 kWh cost?",
            "First 800 kWh X $ 0.136440",
            "asks for an amount; the answer has none",
        ),
    ],
)
def test_kind_needs_a_value_of_the_kind_asked(question: str, claim: str, warning: str | None) -> None:
    asked = Asked(question)
    fit = KindCheck(asked)(asked.parts[0], claim)
    assert (fit.warning if fit else None) == warning


def test_scope_needs_the_names_of_the_question_and_of_the_claim_in_the_cited_document() -> None:
    abc = segment("Invoice\nFROM: Company ABC\nTO: John Doe\nDUE: 01/01/2025", document="abc")
    edf = segment("EDF\nFacture du 11/12/2022\nPrélevé le: 28/12/2022", document="edf")
    context = [abc, edf]
    named = ScopeCheck(Asked("When will the EDF invoice be debited?"), ScopeWords(context))
    assert named("Prélevé le: 28/12/2022", [edf]) is None
    assert named("It will be debited on 01/01/2025.", [abc]) == Fit(
        0.2, "the question names edf; the cited document does not"
    )
    unnamed = ScopeCheck(Asked("When will the invoice be debited?"), ScopeWords(context))
    claim = "The EDF invoice amount will be debited from the bank account on 01/01/2025."
    assert unnamed(claim, [abc]) == Fit(0.2, "the answer names edf; the cited document does not")
    assert unnamed(claim, [edf]) is None  # the claim's name is the cited document's


def test_scope_needs_the_file_a_question_names() -> None:
    abc = segment("Total: $2140.00", document="abc")
    check = ScopeCheck(Asked("What is the total in invoice.pdf?", {"abc": "receipt.pdf"}), ScopeWords([abc]))
    assert check("Total: $2140.00", [abc]) == Fit(
        0.2, "the question names invoice.pdf; the cited document is receipt.pdf"
    )


@pytest.mark.parametrize(
    ("sections", "parts", "status"),
    [
        ([], 1, NOT_FOUND),
        ([Answered(Fit(0.0, "not found", not_found=True), False)], 1, NOT_FOUND),
        ([Answered(FITS, True, {0: "14000"})], 1, ANSWERED),
        ([Answered(FITS, True)], 1, UNCERTAIN),  # fits, cites, but its passage does not state it as asked
        ([Answered(FITS, False, {0: "14000"})], 1, UNCERTAIN),  # cites nothing
        ([Answered(Fit(0.3, "focus"), True, {0: "14000"})], 1, UNCERTAIN),
        ([Answered(FITS, True, {0: "14000"})], 2, UNCERTAIN),  # one of two things asked
        ([Answered(FITS, True, {0: "14000", 1: "sep302019"})], 2, ANSWERED),  # one section, both
        ([Answered(FITS, True, {0: "360"}), Answered(FITS, True, {0: "4500"})], 1, UNCERTAIN),  # two values
        ([Answered(FITS, True, {0: "360"}), Answered(FITS, True, {0: "360"})], 1, ANSWERED),  # one value, twice
    ],
)
def test_the_status_is_answered_only_where_every_part_is_verified_once(sections, parts: int, status: str) -> None:
    assert answer_status(sections, parts) == status
