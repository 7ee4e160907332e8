"""Unanswerable probes: questions no document of the workspace answers, by construction. Pure."""

from __future__ import annotations

import random
from collections.abc import Container, Iterator, Sequence

from evaluation.generation.wording import label_ok, the
from evaluation.normalize import plain
from evaluation.questions import Question

# Names no workspace is likely to hold: a probe asks about one of them (checked absent first).
UNKNOWN_NAMES = (
    "Zephyrine Holloway Ltd",
    "Quillon Marrowby GmbH",
    "Orsolya Vantreight",
    "Brackenfield Lumen Co.",
    "Ysolde Karvanen",
    "Tamsworth Oberlin SA",
)
UNKNOWN_LABELS = (
    "vessel IMO number",
    "patient's blood type",
    "aircraft tail number",
    "seismic zone classification",
    "wine vintage",
    "satellite launch date",
)


def probe_questions(words: Container[str], labels: Sequence[str], rng: random.Random) -> Iterator[Question]:
    """A label no text of the workspace speaks of (`words`: the case folded words of its texts), or one of the
    workspace's own labels asked of a name none holds (the answer a model gives from another document is a wrong
    one)."""
    # Short labels that read as labels (`Total amount`), not a sentence a form field's name happened to be.
    labels = sorted({x for x in labels if label_ok(x) and len(x.split()) <= 4 and x[-1:].isalnum()})
    names = [n for n in UNKNOWN_NAMES if n.split()[0].casefold() not in words]
    for number, label in enumerate(UNKNOWN_LABELS):
        label_words = [w for w in label.replace("'s", "").split() if len(w) > 3]
        if not any(w.casefold() in words for w in label_words):
            text = f"What is the {label}?"
            yield Question(f"unanswerable:label:{number}", text, "unanswerable", (), (), {"from": "probe"})
    for number, name in enumerate(names):
        for label in rng.sample(labels, min(len(labels), 4)):
            text = f"What is {the(label)} of {name}?"
            origin = {"from": "probe", "label": label, "name": name}
            yield Question(f"unanswerable:{number}:{plain(label)}", text, "unanswerable", (), (), origin)
