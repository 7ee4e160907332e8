"""Question fit (design §5.9): does a claim answer the question, whatever wrote it?

`support` (query.citations.verify) says whether the cited passage backs a claim; an extractive answer is copied
from its passage, so its support is always 1.0, and a label with no value or another document's total would look
right. The fit check reads the question once (`Asked`) and asks of each section, in this order, each check a
module of its own:
- `not_found`: a statement that the answer was not found ("I could not find…", "je ne sais pas") answers nothing;
- `label`: a label only ("Surname/Nom/Apellidos", "Tax (10%):") holds no value;
- per part of the question, the `focus` (the thing asked about is spoken of; not another attribute of it) and the
  `kind` of value asked (a date for "when", an amount for "how much", a name for "who");
- `scope`: the cited document is the one the question asks about (a file, a year, a name, a kind of document).
Then, of a claim that fits, `relation` says whether it is *verified*: its passage states the value as the asked
attribute of the asked subject (`verify`), which `answered` promises.
`fit` is 1.0 when every check passes, else the score of the first that fails, with `fit_warning` saying why. The
offline answerer skips a candidate that fails (precision first); a model's section keeps its text and is flagged,
and the answer is `uncertain`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from ingest import Segment
from query.fit.asked import Asked
from query.fit.documents import ScopeWords
from query.fit.focus import FocusCheck
from query.fit.kind import KindCheck
from query.fit.label import LabelCheck
from query.fit.not_found import says_not_found
from query.fit.relation import RelationCheck, Verification
from query.fit.scope import ScopeCheck
from query.fit.verdict import FITS, NOT_FOUND_FIT, Fit
from query.fit.words import excluded_by
from query.language.question import Kind, Part, Question, Words

NOT_FOUND = Fit(NOT_FOUND_FIT, "the answer says it was not found", not_found=True)


class FitCheck:
    """The fit of claims to one question: the checks in their order. `scope_words(segment)`: the words of the part of
    its document a segment belongs to (`ScopeWords`); `context_words`: all the context's words (or how to get them,
    when needed); `filenames`: document id -> its file's name, where known."""

    def __init__(
        self,
        question: str | Question,
        scope_words: ScopeWords,
        context_words: Words | Callable[[], Words] | None = None,
        filenames: Mapping[str, str] | None = None,
    ):
        self.asked = Asked(question, filenames)
        self.label = LabelCheck(self.asked)
        self.focus = FocusCheck(self.asked)
        self.kind = KindCheck(self.asked)
        self.scope = ScopeCheck(self.asked, scope_words, context_words)
        self.relation = RelationCheck(self.asked, self.kind, scope_words)
        parts = self.asked.parts
        # (every part has a specific focus, and none is passed by a name labelling the claim: a claim and passages
        # speaking of none of them fail every part's focus, the first part's failure being the answer)
        self._all_specific = frozenset().union(*(self.asked.specific(p) for p in parts))
        self._unfocusable = bool(parts) and all(
            self.asked.specific(p) and not (p.kind is Kind.ANY and self.asked.question.names) for p in parts
        )

    def check(self, text: str, segments: Sequence[Segment], part: Part | None = None) -> Fit:
        """The fit of the claim `text` citing `segments`, to `part` of the question (None: the part it fits best)."""
        if says_not_found(text):
            return NOT_FOUND
        if label := self.label(text):
            return label
        excluded = excluded_by(text)
        said = self.focus.said(text, segments)
        if part is None and not excluded and self._unfocusable and said.misses(self._all_specific):
            first = self.asked.parts[0]  # (what the loop gives: every part fails its focus, the first part's failure)
            return self.focus.unfocused(first, self.asked.specific(first))
        best = None
        for candidate in (part,) if part is not None else self.asked.parts:
            # (the focus first: one scan of each text for all clues; values take a pass of their own)
            fit = self.focus(candidate, text, said, excluded) or self.kind(candidate, text) or FITS
            if best is None or fit.score > best.score:
                best = fit
            if not fit.fails:
                break  # (one part it answers is enough)
        best = best or FITS
        if best.fails:
            return best
        scope = self.scope(text, segments)
        return replace(scope, of_another_document=True) if scope else best

    def verify(self, text: str, segments: Sequence[Segment], part: Part | None = None) -> Verification:
        """Whether the passages the claim cites state its value as the thing asked (`relation`): what `answered`
        promises."""
        return self.relation(text, segments, part)

    def spoken(self, text: str) -> frozenset[str]:
        """The question's clues a text speaks of (`FocusCheck.spoken`)."""
        return self.focus.spoken(text)
