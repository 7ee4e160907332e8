"""Hybrid retrieval's pure parts (design §4): the full-text query of a question, reciprocal rank fusion of the
vector and full-text rankings, and dropping segments that repeat a better-ranked one's text.

The worker runs the searches (worker/retrieval.py); these decide what they ask and how their answers combine:

    ranked_fts = full_text_search(search_terms(question))  # ts_rank_cd order
    context_ids = fuse([vector_ids, ranked_fts], texts, top_k)

Each search should return more than `top_k` ids (e.g. 3x), so that dropping duplicates still leaves `top_k`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from ingest import parse_segment_id
from query.language.question import translations
from query.language.terms import as_indexed, has_cjk, informative_words, rarity, tokens

RRF_K = 60  # the constant of Cormack et al.; a rank-1 hit of one search outweighs a rank-40 hit of both
MAX_FTS_TERMS = 12

# A token as PostgreSQL's parser will see it: punctuation inside stays ("ET-4760", "140.00", "d'arc"), around
# it goes ("$", "?", quotes), and a token starts with a letter or digit.
_TOKEN = re.compile(r"\w(?:[\w.,'’/-]*\w)?")
_POSSESSIVE = re.compile(r"['’]s$")


def search_terms(question: str, max_terms: int = MAX_FTS_TERMS) -> list[str]:
    """The question's informative tokens for a full-text search: any of them may match, and segments holding
    more (and rarer) of them rank first. Stopwords, question words and single letters are dropped; past
    `max_terms`, the rarest are kept (numbers and long words). Tokens keep their inner punctuation and their
    accents, lower-cased, so the database parses them as it parsed the indexed text (`simple`); a CJK run gives
    its characters and adjacent pairs. [] when nothing is left."""
    found: dict[str, None] = {}
    # a CJK word the answerer reads also asks for its English ("レシート": receipt), which another document holds
    for match in _TOKEN.finditer(as_indexed(f"{question} {' '.join(translations(question))}")):
        token = _POSSESSIVE.sub("", match.group())
        # a CJK run is its characters and their pairs, as the index holds CJK text
        for term in tokens(token, keep_accents=True) if has_cjk(token) else [token]:
            if informative_words(term):
                found.setdefault(term, None)
    ordered = list(found)
    kept = set(sorted(ordered, key=lambda t: -max(map(rarity, informative_words(t))))[:max_terms])
    return [t for t in ordered if t in kept]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Every id of the rankings, best first: score = sum of 1 / (k + rank) over the rankings that hold it
    (rank from 1; an id repeated within one ranking counts at its first rank). Ties: the better best rank,
    then the earlier ranking."""
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}  # id -> (best rank, index of the ranking that gave it)
    for which, ranking in enumerate(rankings):
        seen: set[str] = set()
        for rank, segment_id in enumerate(ranking, start=1):
            if segment_id in seen:
                continue
            seen.add(segment_id)
            scores[segment_id] = scores.get(segment_id, 0.0) + 1.0 / (k + rank)
            best[segment_id] = min(best.get(segment_id, (rank, which)), (rank, which))
    return sorted(scores, key=lambda i: (-scores[i], best[i]))


def distinct_texts(segment_ids: Iterable[str], texts: Mapping[str, str], laid_out: Collection[str] = ()) -> list[str]:
    """The ids in order, without those whose text (whitespace-normalized) an earlier one already has. An id
    with no known text is kept: nothing says it repeats another. Of two with one text, one `laid_out` (a segment
    with its lines' boxes) takes the place of one without: a text-only copy of a page (a splitter's output) and
    the page itself read one text, and only the page can be highlighted and read by its layout (language.layout)."""
    kept: list[str] = []
    place: dict[str, int] = {}  # text -> its place in `kept`
    for segment_id in segment_ids:
        text = texts.get(segment_id)
        if text is None:
            kept.append(segment_id)
            continue
        key = " ".join(text.split())
        if key not in place:
            place[key] = len(kept)
            kept.append(segment_id)
        elif segment_id in laid_out and kept[place[key]] not in laid_out:
            kept[place[key]] = segment_id
    return kept


def duplicate_key(kind: str, text: str) -> str:
    """What `distinct_texts` compares for a segment: its text, and whether it is a field. A field (`Balance Due:
    $4,647.68`) repeats other segments' words by design (design §3), so it is a duplicate only of another field,
    and a paragraph only of another segment that is not one."""
    return f"field\x00{text}" if kind == "field" else text


def fuse(
    rankings: Sequence[Sequence[str]],
    texts: Mapping[str, str],
    top_k: int,
    k: int = RRF_K,
    fields: Collection[str] = (),
    laid_out: Collection[str] = (),
) -> list[str]:
    """The context ids: rankings fused, repeated texts dropped (of two copies, one `laid_out` stays:
    `distinct_texts`), at most `top_k`; then the best-ranked `fields` (ids of segments of kind `field`) of the
    documents in it, at most `top_k // 2` more.

    A field (`Total amount: 62,86`) is short and dense: ranked with the rest, the fields of every invoice of the
    workspace would fill the context, each without the words that say which document it is from. So fields ride
    along with their documents: the other segments decide which documents the question is about, and their
    fields join them."""
    ranked = distinct_texts(reciprocal_rank_fusion(rankings, k), texts, laid_out)
    if not fields:
        return ranked[:top_k]
    chosen = [i for i in ranked if i not in fields][:top_k]
    documents = {document_of(i) for i in chosen}
    extra = [i for i in ranked if i in fields and document_of(i) in documents][: top_k // 2]
    return chosen + extra


def document_of(segment_id: str) -> str:
    parsed = parse_segment_id(segment_id)
    return parsed[0] if parsed is not None else segment_id
