"""Hybrid retrieval's pure parts: reciprocal rank fusion, duplicate texts, the full-text query (design §4)."""

from __future__ import annotations

import pytest

from query.retrieval.fusion import RRF_K, distinct_texts, duplicate_key, fuse, reciprocal_rank_fusion, search_terms


def test_rrf_sums_reciprocal_ranks_across_rankings():
    vector = ["a", "b", "c", "d"]
    fts = ["c", "e", "a"]
    # a: 1/61 + 1/63, c: 1/63 + 1/61 (tie, a has rank 1 in the earlier ranking), b: 1/62, e: 1/62 (tie, b's
    # ranking comes first), d: 1/64
    assert reciprocal_rank_fusion([vector, fts]) == ["a", "c", "b", "e", "d"]


def test_rrf_an_id_found_by_both_searches_beats_a_top_hit_of_one():
    assert reciprocal_rank_fusion([["x", "y", "z"], ["q", "r", "z"]]) == ["z", "x", "q", "y", "r"]


def test_rrf_small_k_lets_a_single_top_hit_win():
    # k=1: x = 1/2 = 0.5 beats z = 1/4 + 1/4 = 0.5? tie broken by best rank: x (rank 1) first
    assert reciprocal_rank_fusion([["x", "y", "z"], ["q", "r", "z"]], k=1) == ["x", "q", "z", "y", "r"]


def test_rrf_counts_an_id_repeated_in_one_ranking_once():
    assert reciprocal_rank_fusion([["a", "a", "b"], ["b"]]) == ["b", "a"]


def test_rrf_of_nothing_is_empty():
    assert reciprocal_rank_fusion([[], []]) == []
    assert RRF_K == 60


def test_distinct_texts_drops_whitespace_equal_repeats_of_a_better_ranked_text():
    texts = {"d1:0": "Tax | $140.00\nTotal", "d2:0": "Tax |  $140.00 Total ", "d3:0": "Tax | $141.00", "d4:1": "x"}
    assert distinct_texts(["d1:0", "d2:0", "d3:0", "d4:1"], texts) == ["d1:0", "d3:0", "d4:1"]


def test_a_field_repeats_only_another_field():
    """A field (`Balance Due: $4,647.68`) holds the words of the paragraph it was read from: both stay in the
    context; a second copy of the field does not (design §3 "Fields")."""
    segments = [
        ("inv:0", "paragraph", "Balance Due:\n$4,647.68"),
        ("inv:7", "field", "Balance Due: $4,647.68"),
        ("inv:9", "field", "Balance Due:  $4,647.68"),
        ("inv:2", "paragraph", "Balance Due: $4,647.68"),
    ]
    texts = {i: duplicate_key(kind, text) for i, kind, text in segments}
    assert distinct_texts([i for i, _, _ in segments], texts) == ["inv:0", "inv:7"]


def test_of_two_copies_of_one_text_the_one_with_the_pages_boxes_takes_the_better_place():
    """The procurement splitter's text-only copy of the Google invoice and the Invoice parser's page read one text:
    whichever ranked first was kept, and from the copy the tax beside its label (language.layout) and the page's boxes
    were out of reach. The page takes the copy's place; a third copy without boxes changes nothing."""
    texts = {"copy:0": "Google\nINVOICE", "other:3": "Hubble", "page:0": "Google INVOICE", "copy2:0": "Google INVOICE"}
    ranked = ["copy:0", "other:3", "page:0", "copy2:0"]
    assert distinct_texts(ranked, texts) == ["copy:0", "other:3"]
    assert distinct_texts(ranked, texts, laid_out={"page:0"}) == ["page:0", "other:3"]
    assert distinct_texts(ranked, texts, laid_out={"copy:0", "page:0"}) == ["copy:0", "other:3"]
    assert fuse([ranked], texts, 2, laid_out={"page:0"}) == ["page:0", "other:3"]


def test_distinct_texts_keeps_ids_without_a_known_text():
    assert distinct_texts(["a:0", "b:0", "a:1"], {"a:0": "same", "a:1": "same"}) == ["a:0", "b:0"]


def test_fuse_48_copies_of_one_page_take_one_slot():
    copies = [f"inv:{i}" for i in range(48)]
    texts = {i: "BALANCE DUE $2140.00" for i in copies} | {"other:0": "Invoice header", "prose:3": "Hubble"}
    vector = [*copies[:10], "prose:3", "other:0"]
    fts = [*copies[10:20], "other:0"]
    # other:0 is in both (1/72 + 1/71); every copy after inv:0 repeats its text; prose:3 is next (1/71)
    assert fuse([vector, fts], texts, top_k=3) == ["other:0", "inv:0", "prose:3"]


def test_fuse_bounds_by_top_k_after_dropping_duplicates():
    texts = {"a:0": "one", "a:1": "one", "b:0": "two", "c:0": "three"}
    assert fuse([["a:0", "a:1", "b:0", "c:0"]], texts, top_k=2) == ["a:0", "b:0"]
    assert fuse([["a:0", "a:1", "b:0", "c:0"]], texts, top_k=10) == ["a:0", "b:0", "c:0"]


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("How much tax was added on the Company ABC invoice?", "tax or added or company or abc or invoice"),
        ("What is Sally Walker's date of birth?", "sally or walker or date or birth"),
        ("Total paid at Office Depot for the ET-4760?", "total or paid or office or depot or et-4760"),
        ("How much is $140.00 in the U.S.?", "140.00"),
        ("Who won the 2018 World Cup?", "won or 2018 or world or cup"),
        ("What is it?", ""),
        ('"-tax" or -(drop) "the"', "tax or drop"),
        ("What did the Maison Jeanne d'Arc charge?", "maison or jeanne or d'arc or charge"),
    ],
)
def test_search_terms_keep_informative_tokens_as_the_parser_sees_them(question: str, query: str):
    assert search_terms(question) == (query.split(" or ") if query else [])


def test_search_terms_keep_the_rarest_in_question_order():
    question = "Is the big red box 5-2100-9991-3257 from Montana near Helena or Bozeman?"
    assert search_terms(question, max_terms=4) == ["5-2100-9991-3257", "montana", "helena", "bozeman"]


def test_fields_ride_along_with_their_documents():
    """Fields never take the slots of other segments, and join the context only with their own documents: the
    "Total amount" fields of every invoice must not crowd out the one invoice the question is about."""
    ranked = ["b:9", "c:9", "a:0", "a:1", "b:0", "a:9", "d:9"]  # fields first, as short dense texts rank
    fields = {"a:9", "b:9", "c:9", "d:9"}
    texts = {i: i for i in ranked}
    assert fuse([ranked], texts, 3, fields=fields) == ["a:0", "a:1", "b:0", "b:9"]  # top_k // 2 = 1 field
    assert fuse([ranked], texts, 4, fields=fields) == ["a:0", "a:1", "b:0", "b:9", "a:9"]
    assert fuse([ranked], texts, 3) == ["b:9", "c:9", "a:0"]  # without kinds, every id is alike
