"""The offline `hash` embedder: function words no longer decide similarity (issue 14)."""

from __future__ import annotations

import uuid

import numpy as np

from ingest import Segment, tagged_text
from query.language.terms import embedding_features
from worker.embeddings import hash_embed

QUESTION = "How much tax was added on the Company ABC invoice?"
# Long English prose that shares only function words with the question (as the Hubble report did).
PROSE = (
    "The spectrum of the nebula is very much like the spectra of the clouds in the Milky Way, and it is also "
    "similar to the spectra of binary stars, where the widening and the depth of the lines are affected by the "
    "rapid rotation of the stars that are involved. The wide lines that were observed on the plates have been "
    "noticed in the spectra of other nebulae, and they may be due to a dispersion in velocity and to a blending "
    "of the types of the many stars which exist in the central parts of these nebulae. It is hoped that the "
    "velocities of more of these objects will soon be available, and that they will be added to the list."
)
INVOICE = "Item Description | Amount\nService B | $900.00\nSubtotal | $2000.00\nTax | $140.00\nBALANCE DUE | $2140.00"
HEADER = "Invoice\nFROM: Company ABC\nTO: John Doe\nTERMS: 6 month contract"


def cosines(question: str, texts: list[str], dim: int = 1024) -> list[float]:
    vectors = hash_embed([question, *texts], dim)
    return [float(vectors[0] @ v) for v in vectors[1:]]


def test_the_invoice_ranks_above_long_prose_for_the_tax_question():
    prose, invoice, header = cosines(QUESTION, [PROSE, INVOICE, HEADER])
    # Before (every "the", "of" and "on" counted): prose 0.260, header 0.229, invoice 0.035: prose first.
    assert header > invoice > prose
    assert round(prose, 3) == 0.037  # "added" is the one word it shares with the question
    assert round(invoice, 3) == 0.051  # "tax"
    assert round(header, 3) == 0.312  # "company", "abc", "invoice" and the pair "company abc"
    assert cosines(QUESTION, [PROSE.replace("added", "put")]) == [0.0]  # nothing but function words in common


def test_function_words_carry_no_weight():
    assert embedding_features("What is the answer on the form?") == embedding_features("answer form")
    assert np.all(hash_embed(["what is it and how much of the"], 64) == 0)  # no features: the zero vector


def test_rarer_features_weigh_more():
    features = {k: round(v, 4) for k, v in embedding_features("total 2140 invoice invoice 00").items()}
    assert features == {
        "total": round(np.sqrt(1.05), 4),  # 0.8 + 0.05 per letter
        "2140": round(np.sqrt(1.5), 4),  # a number says more than a word of its length
        "invoice": round(np.sqrt(2 * 1.15), 4),  # twice: the square root of 2 x rarity, not 2 x
        "00": round(np.sqrt(1.2), 4),  # a short number is common
        "total 2140": round(np.sqrt((1.05 + 1.5) / 2), 4),
        "2140 invoice": round(np.sqrt((1.5 + 1.15) / 2), 4),
        "invoice invoice": round(np.sqrt((1.15 + 1.15) / 2), 4),
        "invoice 00": round(np.sqrt((1.15 + 1.2) / 2), 4),
    }


def test_embeddings_are_deterministic_normalized_and_of_the_set_dimension():
    first = hash_embed([INVOICE, PROSE], 256)
    again = hash_embed([INVOICE, PROSE], 256)
    assert first.shape == (2, 256)
    assert first.dtype == np.float32
    assert np.array_equal(first, again)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0)


def test_a_segments_vector_is_its_texts_whatever_its_id():
    """The RAG chunk starts with `[SEG=<document_id>:<index>]`: a random UUID per ingest. Hashed with the text, its
    pieces were most of a field's features ("Total: 544.99"), so one file ingested twice got two vectors and a
    question met each segment through hash collisions with the id."""
    text = "SALE | Total: | 544.99"
    first, second = (Segment(str(uuid.uuid4()), 1, 0, "table", text, None, None, None) for _ in range(2))
    tagged = hash_embed([tagged_text(first), tagged_text(second), text], 1024)
    assert np.array_equal(tagged[0], tagged[1]) and np.array_equal(tagged[0], tagged[2])
    assert np.count_nonzero(tagged[0]) == len(embedding_features(text))  # (no collision among 7 features here)
