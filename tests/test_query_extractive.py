"""The offline `extractive` answerer: the row, `label: value` line or sentence holding what is asked (issue 14)."""

from __future__ import annotations

import orjson
import pytest

from ingest import Segment as _Segment
from query.extractive import NOT_FOUND, extractive_answer, extractive_sections


def Segment(document_id: str, index: int, page: int, kind: str, text: str) -> _Segment:
    return _Segment(document_id, index, page, kind, text, None, None, None)


HEADER = Segment("inv", 0, 0, "paragraph", "Invoice\nFROM: Company ABC\nTO: John Doe\nTERMS: 6 month contract")
TABLE = Segment(
    "inv",
    1,
    0,
    "table",
    "Item Description | Quantity | Price | Amount\nTool A | 500 | $1.00 | $500.00\n |  | Subtotal | $2000.00\n"
    " |  | Tax | $140.00\n |  | BALANCE DUE | $2140.00",
)
PROSE = Segment(
    "hub",
    4,
    2,
    "paragraph",
    "The spectrum of the nebula is very much like the spectra of the clouds in the Milky Way. The wide lines "
    "that were observed on the plates may be due to a dispersion in velocity, added to the rotation of the stars.",
)
REPORT = [
    Segment("rep", 0, 0, "heading", "Annual Report"),
    Segment("rep", 1, 0, "paragraph", "Intro paragraph on page one."),
    Segment("rep", 2, 0, "table", "Item | Amount\nWidgets | 125.31"),
]
FORM = Segment("form", 0, 0, "paragraph", "Form Title\nForm Number:\n12345678\nForm Date:\n2020/10/01\nName:\nF. Last")
BILL = Segment(
    "bill",
    0,
    0,
    "paragraph",
    "SCE&G.\nACCOUNT NUMBER\n5-2100-9991-3257\nDATE DUE\nMay 17 2018\nAMOUNT DUE\n$148.89\nwww.sceg.com",
)
CONTRACT = [
    Segment(
        "con",
        0,
        0,
        "paragraph",
        'WORLDWIDE LICENSE AGREEMENT\nThis License Agreement (the "Agreement") is made on August 6, 2015 by and\n'
        "between Cymbal Inc. and B-Cafetal, Inc.",
    ),
    Segment(
        "con",
        2,
        0,
        "paragraph",
        "2.2. Governing Law\nThis Agreement shall be governed by, and construed in accordance to the laws of New\n"
        "York.",
    ),
]
PASSPORT = Segment("pp", 0, 0, "text", "PASSPORT\nType/Type/Tipo\nP\nSurname/Nom/Apellidos\nTRAVELER")


def test_an_amount_question_gets_the_table_row_with_the_amount():
    assert extractive_sections("How much tax was added on the Company ABC invoice?", [PROSE, HEADER, TABLE]) == [
        {"text": "Tax | $140.00", "source_ids": ["inv:1"]}
    ]
    assert extractive_sections("What is the balance due on the invoice?", [HEADER, TABLE]) == [
        {"text": "BALANCE DUE | $2140.00", "source_ids": ["inv:1"]}
    ]


def test_a_table_header_labels_its_rows():
    assert extractive_sections("What amount does the annual report give for Widgets?", REPORT) == [
        {"text": "Widgets | 125.31", "source_ids": ["rep:2"]}
    ]


def test_a_label_line_and_the_value_under_it_are_one_answer():
    assert extractive_sections("What is the form number?", [FORM]) == [
        {"text": "Form Number: 12345678", "source_ids": ["form:0"]}
    ]
    assert extractive_sections("What is the date on the form?", [FORM]) == [
        {"text": "Form Date: 2020/10/01", "source_ids": ["form:0"]}
    ]


def test_when_wants_a_date_and_which_law_the_clause():
    assert extractive_sections("When was the license agreement made?", CONTRACT) == [
        {
            "text": 'This License Agreement (the "Agreement") is made on August 6, 2015 by and between Cymbal Inc. '
            "and B-Cafetal, Inc.",
            "source_ids": ["con:0"],
        }
    ]
    assert extractive_sections("Which law governs the license agreement?", CONTRACT) == [
        {
            "text": "This Agreement shall be governed by, and construed in accordance to the laws of New York.",
            "source_ids": ["con:2"],
        }
    ]


def test_a_question_asking_for_two_things_gets_two_sections_in_its_order():
    assert extractive_sections("How much is due on the SCE&G bill and when is it due?", [BILL]) == [
        {"text": "AMOUNT DUE: $148.89", "source_ids": ["bill:0"]},
        {"text": "DATE DUE: May 17 2018", "source_ids": ["bill:0"]},
    ]
    assert extractive_sections("What are the subtotal and the tax of the invoice?", [HEADER, TABLE]) == [
        {"text": "Subtotal | $2000.00", "source_ids": ["inv:1"]},
        {"text": "Tax | $140.00", "source_ids": ["inv:1"]},
    ]


def test_one_thing_asked_one_section():
    sections = extractive_sections("What are the payment terms of the Company ABC invoice?", [HEADER, TABLE, PROSE])
    assert sections == [{"text": "TERMS: 6 month contract", "source_ids": ["inv:0"]}]


def test_the_same_text_in_two_segments_is_cited_from_the_first_in_context_order():
    copy = Segment("inv2", 1, 7, "table", TABLE.text)
    assert extractive_sections("How much tax is on the invoice?", [copy, TABLE]) == [
        {"text": "Tax | $140.00", "source_ids": ["inv2:1"]}
    ]


@pytest.mark.parametrize(
    "question",
    [
        "What is the IBAN of Company ABC?",  # the company is there, the IBAN is not
        "What is my blood type?",  # "Type/Type/Tipo" shares a word, nothing more
        "When was the Hubble Space Telescope launched?",
        "Who won the 2018 World Cup?",
    ],
)
def test_an_unanswerable_question_is_not_found_and_uncited(question: str):
    context = [HEADER, TABLE, PROSE, PASSPORT, *CONTRACT]
    assert extractive_sections(question, context) == [{"text": NOT_FOUND, "source_ids": []}]


def test_no_context_is_not_found():
    assert extractive_sections("What is the tax?", []) == [{"text": NOT_FOUND, "source_ids": []}]


def test_the_answer_is_the_sections_as_json_and_segments_may_be_dicts():
    context = [HEADER.to_dict(), TABLE.to_dict()]
    answer = extractive_answer("How much tax was added on the Company ABC invoice?", context)
    assert orjson.loads(answer) == {"sections": [{"text": "Tax | $140.00", "source_ids": ["inv:1"]}]}
