"""What a check says of a claim (`Fit`), and what the sections' fits make of the answer (`answer_status`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

FIT_BAR = 0.5  # below: the section fails the check
# The fit each check gives a claim that fails it.
NOT_FOUND_FIT, LABEL_FIT, KIND_FIT, RATE_FIT, FOCUS_FIT, SCOPE_FIT = 0.0, 0.1, 0.2, 0.2, 0.3, 0.2

ANSWERED, UNCERTAIN, NOT_FOUND = "answered", "uncertain", "not_found"


@dataclass(frozen=True)
class Fit:
    score: float  # 0..1
    warning: str | None  # why it fails, or None
    not_found: bool = False  # the section says the answer was not found
    of_another_document: bool = False  # the scope check failed: the cited document is not the one asked about

    @property
    def fails(self) -> bool:
        return self.score < FIT_BAR


FITS = Fit(1.0, None)


@dataclass(frozen=True)
class Answered:
    """What the status reads of one section: its fit, whether it cites a passage, and what its verification found:
    each part of the question it verifiably answers -> the value it gives."""

    fit: Fit
    cited: bool
    verified: Mapping[int, str | None] = field(default_factory=dict)


def answer_status(sections: Sequence[Answered], parts: int = 1) -> str:
    """`not_found` when no section answers; `answered` when every section that answers fits the question and cites a
    passage, and each of the question's `parts` is verified, by one value (two documents' values for one thing, the
    question cannot tell which: a guess); else `uncertain`."""
    answering = [s for s in sections if not s.fit.not_found]
    if not answering:
        return NOT_FOUND
    if any(s.fit.fails or not s.cited for s in answering):
        return UNCERTAIN
    values: dict[int, set[str | None]] = {}
    for s in answering:
        for part, value in s.verified.items():
            values.setdefault(part, set()).add(value)
    if len(values) < parts or any(len(v) > 1 for v in values.values()):
        return UNCERTAIN
    return ANSWERED


def uncertain_note(metadata: dict | None) -> str | None:
    """What a reader is told of an `uncertain` answer (the CLI and the page say it alike), or None: that it may not
    answer the question (a section fails the fit check), or that it is the best passage found, not a confirmed answer
    (its passage does not state the value as what was asked)."""
    metadata = metadata or {}
    if metadata.get("answer_status") != UNCERTAIN:
        return None
    sections = metadata.get("sections", [])
    reasons = [s["fit_warning"] for s in sections if s.get("fit_warning")]
    if not reasons and (unverified := [s["verification_warning"] for s in sections if s.get("verification_warning")]):
        return f"Uncertain: the best passage found, not a confirmed answer ({'; '.join(dict.fromkeys(unverified))})."
    if not reasons:
        reasons = ["a part of it cites no passage"]
    return f"Uncertain: this answer may not answer the question ({'; '.join(dict.fromkeys(reasons))})."
