"""What a check says of a claim (`Fit`), and what the sections' fits make of the answer (`answer_status`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FIT_BAR = 0.5  # below: the section fails the check
# The fit each check gives a claim that fails it.
NOT_FOUND_FIT, LABEL_FIT, KIND_FIT, RATE_FIT, FOCUS_FIT, SCOPE_FIT = 0.0, 0.1, 0.2, 0.2, 0.3, 0.2

ANSWERED, UNCERTAIN, NOT_FOUND = "answered", "uncertain", "not_found"


@dataclass(frozen=True)
class Fit:
    score: float  # 0..1
    warning: str | None  # why it fails, or None
    not_found: bool = False  # the section says the answer was not found

    @property
    def fails(self) -> bool:
        return self.score < FIT_BAR


FITS = Fit(1.0, None)


def answer_status(fits: Sequence[Fit], cited: Sequence[bool]) -> str:
    """`not_found` when no section answers; `uncertain` when a section that answers fails the check or cites
    nothing; else `answered`."""
    answering = [(f, c) for f, c in zip(fits, cited, strict=True) if not f.not_found]
    if not answering:
        return NOT_FOUND
    if any(f.fails or not c for f, c in answering):
        return UNCERTAIN
    return ANSWERED


def uncertain_note(metadata: dict | None) -> str | None:
    """What a reader is told of an `uncertain` answer (the CLI and the page say it alike), or None."""
    metadata = metadata or {}
    if metadata.get("answer_status") != UNCERTAIN:
        return None
    reasons = [s["fit_warning"] for s in metadata.get("sections", []) if s.get("fit_warning")]
    if not reasons:
        reasons = ["a part of it cites no passage"]
    return f"Uncertain: this answer may not answer the question ({'; '.join(dict.fromkeys(reasons))})."
