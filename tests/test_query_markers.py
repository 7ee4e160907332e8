"""`[N]` markers, clusters and sentences (design §5.7)."""

from __future__ import annotations

from query import parse_markers, split_sentences
from query.citations.markers import extract_clusters, extract_markers, remove_markers


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def test_marker_positions() -> None:
    text = "Fact [1]. Another fact [2][3]."
    assert [(m.number, m.start, m.end, m.text) for m in extract_markers(text)] == [
        (1, 5, 8, "[1]"),
        (2, 23, 26, "[2]"),
        (3, 26, 29, "[3]"),
    ]


def test_clusters() -> None:
    text = "A [1][2]. B [3], [4] and C [5] [6]. D [x] [] [7"
    clusters = extract_clusters(text)
    assert [(c.numbers, c.text) for c in clusters] == [([1, 2], "[1][2]"), ([3, 4], "[3], [4]"), ([5, 6], "[5] [6]")]


def test_abbreviations_initials_and_decimals_do_not_split() -> None:
    text = "Dr. Smith paid 3.14 euros, e.g. for tea. J. R. Tolkien wrote it! Was it 2.5 km? Yes."
    assert sentences(text) == [
        "Dr. Smith paid 3.14 euros, e.g. for tea.",
        "J. R. Tolkien wrote it!",
        "Was it 2.5 km?",
        "Yes.",
    ]


def test_a_run_of_initials_after_a_lower_case_word_does_not_end_the_sentence() -> None:
    text = "The first result is +3779 km./sec. for N. G. C. 7619, as expected. The rating is D. Heating is on."
    assert sentences(text) == [
        "The first result is +3779 km./sec. for N. G. C. 7619, as expected.",
        "The rating is D.",
        "Heating is on.",
    ]


def test_markers_after_the_period_belong_to_the_sentence_before() -> None:
    text = "Paris is the capital. [1] Lyon is smaller. [2][3]"
    assert sentences(text) == ["Paris is the capital. [1]", "Lyon is smaller. [2][3]"]


def test_blank_line_ends_a_sentence() -> None:
    assert sentences("No final stop\n\nNext one.") == ["No final stop", "Next one."]


def test_maps_both_ways_and_out_of_range() -> None:
    text = "Paris is the capital [1][2]. It is old [2]. Rome too [4]."
    parsed = parse_markers(text, citation_count=2)
    assert [(s.text, s.start, s.end, s.citation_ids) for s in parsed.sentences] == [
        ("Paris is the capital [1][2].", 0, 28, [1, 2]),
        ("It is old [2].", 29, 43, [2]),
        ("Rome too [4].", 44, 57, [4]),
    ]
    assert parsed.citation_to_sentences == {1: [0], 2: [0, 1], 4: [2]}
    assert parsed.sentence_to_citations == {0: [1, 2], 1: [2], 2: [4]}
    assert [(m.number, m.start) for m in parsed.out_of_range] == [(4, 53)]


def test_no_markers() -> None:
    parsed = parse_markers("Text without citations.", 0)
    assert parsed.markers == [] and len(parsed.sentences) == 1 and parsed.citation_to_sentences == {}


def test_empty_text() -> None:
    parsed = parse_markers("", 0)
    assert parsed.sentences == [] and parsed.markers == []


def test_remove_markers() -> None:
    assert remove_markers("Paris [1] is nice [2][3].") == "Paris is nice."
