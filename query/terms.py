"""Which words of a question say what it is about: the one stopword list of retrieval and of the offline answerer.

Retrieval (full-text terms, the hash embedder) and the extractive answerer must agree on what is noise: a
shared "the", "what" or "on" says nothing about where an answer is. Negation words are noise here too (they
decide whether a claim is supported, which `query.match` judges, not where a passage is).
"""

from __future__ import annotations

import functools
import re

# Function words of the languages the fixtures hold (English, French, Spanish, German), 2+ letters.
STOPWORDS = frozenset(
    """a an the and or but nor if then else of to in on at by for from with without into onto upon over under
    about above below between through during before after since until than as so such too very also just only
    is are was were be been being am do does did doing done have has had having will would shall should can
    could may might must not no nor never this that these those there here it its it's they them their theirs
    he him his she her hers we us our ours you your yours me my mine i any all each every some other others
    more most much many few less least own same both either neither one ones which who whom whose what when
    where why how whether while per via vs etc le la les un une des du de et ou en au aux ce ces cet cette est
    sont pour par sur avec dans que qui quoi dont ne pas plus son sa ses leur leurs nous vous il elle ils elles
    el los las del al con por para sin sobre entre una unos unas es y o lo su sus se der die das den dem des
    ein eine einer eines und oder ist sind mit von zu im am auf aus bei für nicht""".split()
)

# Words that shape a question without naming what it asks about.
QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how much many long often tell give show list find say says
    said know get got please there anything something""".split()
)

_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=4096)
def informative_words(text: str) -> tuple[str, ...]:
    """The words of a text that tell it apart, case-folded, in order of first appearance, once each:
    no stopwords or question words, no single letters (a lone digit stays: "page 2")."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.casefold()):
        if word in STOPWORDS or word in QUESTION_WORDS or (len(word) == 1 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
    return tuple(seen)


def is_number(word: str) -> bool:
    return any(char.isdigit() for char in word)


def rarity(word: str) -> float:
    """A corpus-free guess at how rare (so how telling) a word is: numbers and codes are rarest, and longer
    words are rarer than short ones (Zipf). In [0.5, 1.5]."""
    if is_number(word):
        return 1.5
    return min(1.25, 0.5 + 0.075 * len(word))
