"""The clause of a long sentence, or the pair of a line of several `label: value` pairs, that answers: what the
offline answerer copies instead of the whole sentence ("Communicated January 17, 1929" of a 230-character one)."""

from __future__ import annotations

import re

from query.language.values import Span

TRIM_ABOVE = 80  # characters: a longer text is cut down to the clause holding the focus and the value
# Characters a cut may extend by: to the sentence's start, to the clause's end, to a closing bracket or quote, to a
# name just before the focus.
LEAD_IN, RUN_ON, CLOSE_WITHIN, NAME_BEFORE = 60, 20, 60, 16


def answering_clause(text: str, anchors: list[Span], values: list[Span]) -> str:
    """The clause of a long sentence, or the pair of a line of several `label: value` pairs, that holds the focus
    and the value nearest it (a value after its label is nearer than one before): "Communicated January 17, 1929",
    "Phone #: (906) 917-3486", 'Cymbal Inc. (the "Licensor," or "Cymbal")'."""
    if not anchors or (len(text) <= TRIM_ABOVE and text.count(": ") < 2):
        return text
    pairs = [(a, v) for a in anchors for v in values if _may_answer(text, a, v)]
    if not pairs:
        return text
    anchor, value = min(pairs, key=lambda p: _distance(*p))
    start, end = min(anchor[0], value[0]), max(anchor[1], value[1])
    start = _reach_back(text, start, anchors, LEAD_IN)  # "retain disaster-related information … 5 years"
    if not _is_label(text, anchor):  # a label's value follows it: "City: Towaco", not "Barney Lane City: Towaco"
        start = _reach_back(text, start, values, NAME_BEFORE)  # 'Cymbal Inc. (the "Licensor," or "Cymbal")'
    if len(text[:start]) <= LEAD_IN and ":" not in text[:start]:
        start = 0  # the sentence's own beginning: 'This License Agreement (the "Agreement") is made on …'
    start, end = _opened(text, start, end), _closed(text, start, end)
    after = re.match(r"[^,;:()\"“”]*", text[end:]).group()
    if len(after) <= RUN_ON and (end + len(after) == len(text) or text[end + len(after)] in ',;("“'):
        end = _closed(text, start, end + len(after))  # to the clause's end: "five (5) year terms"
    return text[start : _balanced_end(text, start, end)].strip(" ,;")


def _balanced_end(text: str, start: int, end: int) -> int:
    """A cut never ends inside an open bracket: past its closing one where the sentence closes it, else before it
    ("… (cf. John D. Hobby, Discrete and Computational Geometry" ends before its "(")."""
    for opening, closing in (("(", ")"), ("[", "]")):
        depth, unmatched = 0, None
        for i in range(start, end):
            if text[i] == opening:
                depth, unmatched = depth + 1, (i if depth == 0 else unmatched)
            elif text[i] == closing and depth:
                depth -= 1
                unmatched = None if depth == 0 else unmatched
        if unmatched is not None:
            found = text.find(closing, end)
            end = found + 1 if found >= 0 else unmatched
    return end


def _may_answer(text: str, anchor: Span, value: Span) -> bool:
    """The value does not overlap the anchor, and follows it when the anchor is a label ("City: Towaco")."""
    if value[0] < anchor[1] and anchor[0] < value[1]:
        return False
    return value[0] >= anchor[1] or not _is_label(text, anchor)


def _is_label(text: str, anchor: Span) -> bool:
    return re.match(r"\s*#?:", text[anchor[1] :]) is not None


def _distance(anchor: Span, value: Span) -> tuple[int, int]:
    """Characters between an anchor and a value; a value before its anchor is twice as far (on a tie, farther)."""
    if value[0] >= anchor[1]:
        return value[0] - anchor[1], 0
    return 2 * (anchor[0] - value[1]), 1


def _reach_back(text: str, start: int, spans: list[Span], within: int) -> int:
    """`start` moved back to the first span that ends at most `within` characters before it, no label between."""
    near = [s for s, e in spans if e <= start and start - e <= within and ":" not in text[e:start]]
    return min(near, default=start)


def _opened(text: str, start: int, end: int) -> int:
    """`start` moved back before the bracket the span closes, and the word before it: "thirty (30) days"."""
    if text[start:end].count(")") > text[start:end].count("("):
        found = text.rfind("(", max(0, start - CLOSE_WITHIN), start)
        if found >= 0:
            before = re.search(r"\w+\s*$", text[:found])
            start = before.start() if before else found
    return start


def _closed(text: str, start: int, end: int) -> int:
    """`end` moved past the bracket or quote the span opens (within CLOSE_WITHIN characters)."""
    span = text[start:end]
    for opening, closing in (("(", ")"), ("“", "”")):
        if span.count(opening) > span.count(closing):
            found = text.find(closing, end, end + CLOSE_WITHIN)
            end = found + 1 if found >= 0 else end
    if text[start:end].count('"') % 2:
        found = text.find('"', end, end + CLOSE_WITHIN)
        end = found + 1 if found >= 0 else end
    return end
