"""The support-scoring step (citations.verify): the lexical verifier's verdicts, and a verifier passed in instead."""

from __future__ import annotations

import orjson
import pytest

from ingest import Segment
from query import LexicalVerifier, Verdict, build_answer


def segment(text: str, kind: str = "paragraph") -> Segment:
    return Segment("d", 0, 0, kind, text, None, None, None)


@pytest.mark.parametrize(
    ("claim", "text", "expected"),
    [
        (
            "The budget was 4500 euros.",
            "Annual budget of the museum: 4,500 euros in 2023.",
            Verdict(1.0, True, False, None, frozenset({"budget", "euros", "#4500"})),
        ),
        (
            "The total is 62.86 EUR.",
            "Total TTC 62,86 EUR",
            Verdict(1.0, True, False, None, frozenset({"total", "eur", "#62.86"})),
        ),
        (
            "The company was founded in 2019.",
            "The company, founded in 2021, employs 50 people.",
            Verdict(0.2, True, True, "contradicts: 2019 vs 2021", frozenset({"company", "founded"})),
        ),
        (
            "The company was founded in 2019.",
            "The company makes bicycles.",
            Verdict(0.25, True, False, "numbers not found: 2019", frozenset({"company"})),
        ),
        (
            "The licence was not renewed.",
            "The licence was renewed in March.",
            Verdict(0.2, True, True, 'contradicts: "not" in the claim only', frozenset({"licence", "renewed"})),
        ),
        (
            "The licence wasn't renewed.",
            "The licence was renewed in March.",
            Verdict(0.2, True, True, 'contradicts: "n\'t" in the claim only', frozenset({"licence", "renewed"})),
        ),
        (
            "Invoice No. 5512 was paid.",
            "Invoice No. 5512 was paid by transfer.",
            Verdict(1.0, True, False, None, frozenset({"invoice", "paid", "#5512"})),
        ),
        (
            "The pupil got a score of 16 points.",
            "The house has a total of 5 rooms and the pupil got a score of 61 points.",
            Verdict(0.2, True, True, "contradicts: 16 vs 61", frozenset({"pupil", "got", "score", "points"})),
        ),
        ("The tower is tall.", "Bananas are yellow.", Verdict(0.0, False, False, None, frozenset())),
    ],
)
def test_lexical_verdicts(claim: str, text: str, expected: Verdict) -> None:
    assert LexicalVerifier().verify(claim, segment(text)) == expected


def test_negation_is_judged_against_the_sentence_that_matches_the_claim() -> None:
    text = "No smoking in the hall. The extension was granted in May."
    verdict = LexicalVerifier().verify("The extension was granted.", segment(text))
    assert (verdict.contradicts, verdict.warning) == (False, None)


def test_table_rows_are_the_units() -> None:
    table = segment("Item | Status\nHeating | not compliant\nWiring | compliant", "table")
    assert LexicalVerifier().verify("The wiring is compliant.", table).contradicts is False
    assert LexicalVerifier().verify("The heating is compliant.", table).warning == (
        'contradicts: "not" in the segment only'
    )


class RefusesEverything:
    """A verifier that finds nothing related: ids are not shown and no text match survives."""

    def verify(self, claim: str, segment: Segment) -> Verdict:
        return Verdict(0.0, False, True, "contradicts: judged by a model")


def test_a_verifier_passed_in_replaces_the_lexical_one() -> None:
    capital = Segment("a", 0, 0, "paragraph", "Paris is the capital and largest city of France.", None, None, None)
    raw = orjson.dumps(
        {"sections": [{"text": "Paris is the capital of France.", "source_ids": ["a:0"]}, {"text": capital.text}]}
    ).decode()
    lexical = build_answer(raw, context=[capital])
    assert [s["citation_status"] for s in lexical["metadata"]["sections"]] == ["cited", "matched"]
    judged = build_answer(raw, context=[capital], verifier=RefusesEverything())
    assert [(s["citation_status"], s["citation_error"]) for s in judged["metadata"]["sections"]] == [
        ("invalid", "a:0 does not support this text"),
        ("uncited", None),
    ]


def test_a_dotted_date_is_held_by_the_same_date_and_contradicted_by_another() -> None:
    # `01.12.2022` is no single number (several dots, no thousands groups): it reads as its groups, so a claim
    # quoting its own segment is supported (it was flagged `contradicts: 01.12.2022 vs 01.12.2022`).
    text = "Facture du 01.12.2022. Total TTC 62,86 EUR, payee le 15.12.2022."
    verdict = LexicalVerifier().verify("La facture du 01.12.2022 est payee.", segment(text))
    assert (verdict.support, verdict.contradicts, verdict.warning) == (1.0, False, None)
    assert verdict.held == frozenset({"facture", "payee", "#1.12.2022"})
    wrong = LexicalVerifier().verify("La facture du 03.12.2022 est payee.", segment(text))
    assert (wrong.contradicts, wrong.warning) == (True, "contradicts: 03.12.2022 vs 01.12.2022")
    raw = orjson.dumps(
        {
            "sections": [
                {"text": "La facture du 01.12.2022 est payee.", "source_ids": ["d:0"]},
                {"text": "Total TTC 62,86 EUR payee le 15.12.2022.", "source_ids": []},
            ]
        }
    ).decode()
    payload = build_answer(raw, context=[segment(text)])
    assert payload["metadata"]["stats"] == {"cited": 1, "matched": 1, "invalid": 0, "uncited": 0}
    assert [section["citations"] for section in payload["metadata"]["sections"]] == [[1], [1]]
    (citation,) = payload["metadata"]["citations"]  # one segment backs both sections: its quote spans both
    assert (citation["quote"]["text"], citation["support"], citation["warning"]) == (text, 1.0, None)
