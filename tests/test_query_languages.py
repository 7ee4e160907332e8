"""Questions in other languages than English (issue 25, point 3): the words retrieval searches for, the offline
answerer's reading of a question, and answers over the real Document AI outputs in French and Spanish (the
languages the fixtures hold; German asks the French invoice through the words it shares with it)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import orjson
import pytest

from ingest import build_segments
from query import build_answer
from query.language.question import Kind, read_question
from query.language.terms import QUESTION_CHARS_READ, content_tokens, embedding_features, has_words, tokens
from query.reader.extractive import extractive_answer, extractive_sections
from query.retrieval.fusion import search_terms


def answer(path: Path, question: str) -> tuple[str, list[int]]:
    """The offline answer to a question over one fixture's segments, and the pages its citations are on."""
    segments = build_segments(path.read_bytes(), "doc")
    payload = build_answer(extractive_answer(question, segments), context=segments)
    return payload["content"], [c["page_idx"] for c in payload["metadata"]["citations"]]


EDF = "invoice_parser_edf_2p_snake_case.json"
INE = "doc_quality_id_ine_2p.json"  # a Mexican voter card, in Spanish
PASSPORT = "us_passport_pix2info_specimen_snake.json"  # labels in English, French and Spanish


@pytest.mark.parametrize(
    ("fixture", "question", "value", "page"),
    [
        (EDF, "Quel est le montant total de la facture EDF ?", "Montant total: 62,86 €", 0),
        (EDF, "Was ist der Gesamtbetrag der EDF Rechnung?", "Montant total: 62,86 €", 0),
        (INE, "¿Cuál es la fecha de nacimiento?", "05/07/1965", 0),
        (INE, "¿Cuál es la clave de elector?", "ABPRLL65070516M700", 0),
        (PASSPORT, "¿Cuál es la fecha de caducidad del pasaporte?", "14 OCT 2030", 0),
        (PASSPORT, "Quelle est la date de naissance ?", "05 FEB 1965", 0),
        (PASSPORT, "Was ist das Geburtsdatum?", "05 FEB 1965", 0),  # a compound, read as its words
        (PASSPORT, "Wann ist das Ablaufdatum des Reisepasses?", "14 OCT 2030", 0),
    ],
)
def test_a_question_in_the_documents_language_finds_its_value(
    docai_dir: Path, docai_real_dir: Path, fixture: str, question: str, value: str, page: int
) -> None:
    path = docai_dir / fixture if fixture == EDF else docai_real_dir / fixture
    content, pages = answer(path, question)
    assert value in content
    assert pages == [page]


def test_german_nouns_are_not_names_but_acronyms_are() -> None:
    asked = read_question("Was ist der Gesamtbetrag der EDF Rechnung?")
    assert asked.names == (("edf",),)
    assert asked.parts[0].kind is Kind.AMOUNT
    assert read_question("What was the total of Company ABC?").names == (("company", "abc"),)  # English: as before


def test_the_french_question_no_longer_reads_quel_as_a_name(docai_dir: Path) -> None:
    """Before: "Quel" was a name and the question asked for nothing in particular, so nothing was found."""
    asked = read_question("Quel est le montant total de la facture EDF ?")
    assert asked.names == (("edf",),)
    assert asked.parts[0].kind is Kind.AMOUNT
    assert [c.word for c in asked.parts[0].focus] == ["montant", "total"]


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("Quel est le montant total de la facture EDF ?", ["montant", "total", "facture", "edf"]),
        ("¿Cuál es la fecha de expedición?", ["fecha", "expedición"]),  # accents kept, as `simple` keeps them
        # lower-cased, not case-folded: ß stays; a compound is searched by its parts too, and their English (issue 43)
        ("Wie hoch ist die Straßengebühr?", ["straßengebühr", "straßen", "gebühr"]),
        ("Quelle est la date d'échéance ?", ["date", "d'échéance"]),
        ("Wann ist die Rechnung fällig?", ["rechnung", "fällig"]),
        ("Qual è l'importo della fattura?", ["l'importo", "fattura"]),
        ("Wat is het totaalbedrag van de factuur?", ["totaalbedrag", "van", "factuur"]),
        # characters and pairs, particles out; and the English of a word the answerer reads (issue 31)
        ("消費税はいくらですか", ["消", "消費", "費", "費税", "税", "tax"]),
        ("税", ["税"]),
        (
            "请问EDF发票的总金额是多少？",
            ["请", "请问", "问", "edf", "发", "发票", "票", "总", "总金", "金", "金额", "额"],
        ),
        ("ما هو المَبْلَغ الإجمالـي؟", ["المبلغ", "الإجمالي"]),  # diacritics and tatweel out
        ("x", []),
        ("?", []),
    ],
)
def test_search_terms_in_any_language(question: str, terms: list[str]) -> None:
    assert search_terms(question) == terms


def test_search_terms_are_composed_as_the_indexed_text_is() -> None:
    decomposed = unicodedata.normalize("NFD", "¿Cuál es la fecha de expedición?")
    assert search_terms(decomposed) == ["fecha", "expedición"]


def test_the_answerer_and_the_embedder_fold_accents_alike() -> None:
    """A question typed without accents still shares its words with the document (the hash embedder and the
    answerer compare folded words; the full-text index keeps accents, as PostgreSQL's `simple` does)."""
    assert content_tokens("FECHA DE EXPEDICIÓN") == content_tokens("fecha de expedicion") == ["fecha", "expedicion"]
    assert set(embedding_features("Fecha de expedición")) == set(embedding_features("fecha de expedicion"))


def test_cjk_text_is_characters_and_pairs_everywhere() -> None:
    assert tokens("消費税abc") == ["消", "消費", "費", "費税", "税", "abc"]
    assert content_tokens("税") == ["税"]  # one CJK character is a word, one Latin letter is not
    assert content_tokens("x") == []
    assert {"消", "消費", "費税", "税"} <= set(embedding_features("消費税は"))  # the embedder's features too


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Combien coûte l'abonnement ?", Kind.AMOUNT),
        ("Combien de pages a la facture ?", Kind.NUMBER),
        ("Combien de temps dure le contrat ?", Kind.DURATION),
        ("Quand la facture est-elle payée ?", Kind.DATE),
        ("Quelle est la date d'échéance ?", Kind.DATE),
        ("Qui est le titulaire du contrat ?", Kind.NAME),
        ("¿Cuánto cuesta la suscripción?", Kind.AMOUNT),
        ("¿Cuántos kWh se consumieron?", Kind.NUMBER),
        ("¿Cuándo vence la factura?", Kind.DATE),
        ("¿Quién es el titular?", Kind.NAME),
        ("¿Cuál es el importe total?", Kind.AMOUNT),
        ("Wie viel kostet das Abonnement?", Kind.AMOUNT),
        ("Wie viele Seiten hat die Rechnung?", Kind.NUMBER),
        ("Wann ist die Rechnung fällig?", Kind.DATE),
        ("Wie lange läuft der Vertrag?", Kind.DURATION),
        ("Wer ist der Kunde?", Kind.NAME),
        ("Was ist der Rechnungsbetrag?", Kind.AMOUNT),
        ("Was ist das Geburtsdatum?", Kind.DATE),
        ("Quando scade la fattura?", Kind.DATE),
        ("Wanneer vervalt de factuur?", Kind.DATE),
        ("消費税はいくらですか", Kind.AMOUNT),
        ("发票日期是什么时候？", Kind.DATE),
        ("متى تاريخ الفاتورة؟", Kind.DATE),
        ("What is the total?", Kind.AMOUNT),
    ],
)
def test_the_kind_of_value_asked_in_any_language(question: str, kind: Kind) -> None:
    assert read_question(question).parts[0].kind is kind


def test_a_question_is_read_to_its_first_2000_characters() -> None:
    asked = read_question("Quel est le montant total de la facture EDF ? " + " ".join(f"mot{i}" for i in range(20000)))
    assert len(asked.text) == QUESTION_CHARS_READ
    assert asked.parts[0].kind is Kind.AMOUNT and len(asked.clues) < 400


def test_two_things_asked_in_french_are_two_parts() -> None:
    asked = read_question("Quel est le montant total et la date de la facture ?")
    assert [p.kind for p in asked.parts] == [Kind.AMOUNT, Kind.DATE]


@pytest.mark.parametrize(("text", "words"), [("?", False), ("¿¡…!?", False), (" - ", False), ("x", True), ("税", True)])
def test_has_words(text: str, words: bool) -> None:
    assert has_words(text) is words


def test_a_japanese_claim_is_checked_against_its_segment_word_by_word() -> None:
    """Support compares CJK text by characters and pairs: the wrong segment is named, the right one found."""
    from ingest import Segment

    invoice = Segment(
        "d", 0, 0, "paragraph", "請求書\n消費税の合計は1,000円です。\n支払期日は2024年3月1日です。", None, None, None
    )
    about = Segment("d", 1, 1, "paragraph", "会社概要と連絡先", None, None, None)
    claim = "消費税の合計は1,000円です。"
    for ids, status in ((["d:0"], "cited"), (["d:1"], "matched")):
        reply = orjson.dumps({"sections": [{"text": claim, "source_ids": ids}]}).decode()
        metadata = build_answer(reply, context=[invoice, about])["metadata"]
        assert metadata["sections"][0]["citation_status"] == status
        assert [(c["segment_id"], c["quote"]["text"]) for c in metadata["citations"]] == [("d:0", claim)]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("消費税はいくらですか", "消費税の合計は1,000円です。"),
        ("支払期日はいつですか？", "支払期日は2024年3月1日です。"),
        ("税", "消費税の合計は1,000円です。"),
    ],
)
def test_a_japanese_question_finds_its_line(question: str, answer: str) -> None:
    from ingest import Segment

    invoice = Segment(
        "d",
        0,
        0,
        "paragraph",
        "請求書 No. 2024-17\n消費税の合計は1,000円です。\n支払期日は2024年3月1日です。",
        None,
        None,
        None,
    )
    assert extractive_sections(question, [invoice]) == [{"text": answer, "source_ids": ["d:0"]}]


def test_the_fallbacks_workspace_search_keeps_accents(migrated: str) -> None:
    """The text-match fallback's workspace tier searches the index with the claim's words as the index spells
    them: "échéance", not the folded "echeance" the answerer compares."""
    import uuid

    from ingest import Segment
    from worker.stores import WorkspaceSegments
    from worker.stores.postgres import PostgresStore

    store = PostgresStore(migrated, max_size=1)
    try:
        workspace = str(uuid.uuid4())
        document = store.create_document(workspace, "edf.json", "docai/edf.json")
        segment = Segment(document.id, 0, 0, "paragraph", "Date d'échéance : 28/12/2022", None, None, None)
        store.replace_segments(document, [segment])
        found = WorkspaceSegments(store, workspace).candidates("L'échéance est le 28/12/2022.", 5)
        assert [s.segment_id for s in found] == [segment.segment_id]
        assert WorkspaceSegments(store, workspace).candidates("Échéance", 5) == [segment]
    finally:
        store.close()
