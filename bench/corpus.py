"""A generated workspace for the query benches: distinct segments, some near-twins that differ only in
their numbers, and claims with known answers (verbatim, OCR-noised, paraphrase-like, unrelated)."""

from __future__ import annotations

import random
import string

from ingest import Segment

FUNCTION_WORDS = "the of and to in is was for on with as by at from that this are be it".split()
OCR_CONFUSIONS = {"m": "rn", "l": "1", "o": "0", "e": "c", "i": "l", "S": "5", "B": "8", "a": "o", "n": "h"}


def _word(rnd: random.Random) -> str:
    syllables = ["ka", "lo", "mi", "ter", "van", "dor", "ple", "sum", "rix", "bel", "nor", "tas", "gen", "qui"]
    return "".join(rnd.choice(syllables) for _ in range(rnd.randint(2, 4)))


def make_vocabulary(rnd: random.Random, size: int) -> list[str]:
    return sorted({_word(rnd) for _ in range(size * 2)})[:size]


def make_sentence(rnd: random.Random, vocabulary: list[str]) -> str:
    words = []
    for _ in range(rnd.randint(9, 18)):
        roll = rnd.random()
        if roll < 0.3:
            words.append(rnd.choice(FUNCTION_WORDS))
        elif roll < 0.38:
            words.append(
                f"{rnd.randint(1, 9999)}" if rnd.random() < 0.7 else f"{rnd.randint(1, 999)},{rnd.randint(10, 99)}"
            )
        else:
            words.append(rnd.choice(vocabulary))
    return " ".join(words).capitalize() + "."


def make_workspace(count: int, seed: int = 11) -> tuple[list[Segment], list[list[str]]]:
    """Segments and their sentences; every 50th segment is the previous one with other numbers."""
    rnd = random.Random(seed)
    vocabulary = make_vocabulary(rnd, 6000)
    segments: list[Segment] = []
    sentences: list[list[str]] = []
    for i in range(count):
        doc, index = f"doc{i // 40:04d}", i % 40
        if i % 50 == 49:
            twin = [_renumber(rnd, s) for s in sentences[-1]]
        else:
            twin = [make_sentence(rnd, vocabulary) for _ in range(rnd.randint(3, 7))]
        sentences.append(twin)
        segments.append(Segment(doc, index, index // 3, "paragraph", " ".join(twin), None, None, None))
    return segments, sentences


def _renumber(rnd: random.Random, sentence: str) -> str:
    return " ".join(str(rnd.randint(1, 9999)) if w.isdigit() else w for w in sentence.split())


def ocr_noise(rnd: random.Random, text: str, rate: float = 0.06) -> str:
    out = []
    for char in text:
        roll = rnd.random()
        if roll < rate and char in OCR_CONFUSIONS:
            out.append(OCR_CONFUSIONS[char])
        elif roll < rate / 4 and char.isalpha():
            continue  # a dropped character
        else:
            out.append(char)
    return "".join(out)


def paraphrase(rnd: random.Random, text: str, vocabulary: list[str]) -> str:
    """Paraphrase-like: some words dropped, a neighbour swap, a word replaced, punctuation changed."""
    words = text.rstrip(".").split()
    words = [w for w in words if rnd.random() > 0.15 or any(c.isdigit() for c in w)]
    if len(words) > 3:
        i = rnd.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
        words[rnd.randrange(len(words))] = rnd.choice(vocabulary)
    return "In short, " + " ".join(words) + "!"


def unrelated(rnd: random.Random) -> str:
    other = ["".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(4, 9))) for _ in range(14)]
    words = [rnd.choice(FUNCTION_WORDS) if rnd.random() < 0.35 else w for w in other]
    return " ".join(words).capitalize() + f" in {rnd.randint(1900, 2030)}."


def negate(rnd: random.Random, sentence: str) -> str:
    """The sentence with a negation: `not` after its first word."""
    words = sentence.split()
    return " ".join([words[0], "not", *words[1:]])


def swap_number(rnd: random.Random, sentence: str) -> str | None:
    """The sentence with one of its numbers changed (None if it has none)."""
    words = sentence.rstrip(".").split()
    at = [i for i, w in enumerate(words) if w.replace(",", "").isdigit()]
    if not at:
        return None
    i = rnd.choice(at)
    words[i] = str(int(words[i].replace(",", "")) + rnd.randint(1, 50) * 7)
    return " ".join(words) + "."
