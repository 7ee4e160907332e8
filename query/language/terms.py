"""Which words of a question say what it is about: the one stopword list of retrieval and of the offline answerer.

Retrieval (full-text terms, the hash embedder) and the extractive answerer must agree on what is noise: a
shared "the", "what" or "on" says nothing about where an answer is. Negation words are noise here too (they
decide whether a claim is supported, which `query.citations.match` judges, not where a passage is).
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
import re
import unicodedata

# Function words of English, French, Spanish, German, Italian, Portuguese and Dutch (2+ letters), a few Arabic ones,
# and CJK particles. A word that is also an English content word ("war", "hat", "door", "van", "come"), or a
# common abbreviation ("MA", "IL", "OS", "AI", "ER", "ALS", "ESA"), is left out.
_FUNCTION_WORDS = """a an the and or but nor if then else of to in on at by for from with without into onto upon over
    under about above below between through during before after since until than as so such too very also just only
    is are was were be been being am do does did doing done have has had having will would shall should can
    could may might must not no nor never this that these those there here it its it's they them their theirs
    he him his she her hers we us our ours you your yours me my mine i any all each every some other others
    more most much many few less least own same both either neither one ones which who whom whose what when
    where why how whether while per via vs etc
    le la les un une des du de et ou en au aux ce ces cet cette est sont pour par sur avec dans que qui quoi dont ne
    pas plus son sa ses leur leurs nous vous il elle ils elles je tu on mon mes ton ta tes notre nos votre vos
    lui été être était ont avait mais donc ni si aussi très tout tous toute toutes quel quelle quels quelles
    lequel laquelle lesquels quand où comment pourquoi
    el los las del al con por para sin sobre entre una unos unas es y o lo su sus se fue está están tiene
    te este esta estos estas ese cual cuál cuáles donde dónde cuando cuándo quien quién quiénes qué como cómo
    muy más pero ya también
    der die das den dem des ein eine einer eines einem einen und oder ist sind mit von zu im am auf aus bei für
    nicht dass sie es wir ihr ich du wie was wer wem wen wessen wann wo warum welche welcher welches welchen
    waren wird werden wurde haben bis nach vor über unter zum zur beim vom auch noch nur sehr seit
    lo gli di da su tra fra che cosa quale quali quando perché dello della dei degli delle allo alla agli
    alle nel nella nei negli nelle sul sulla non anche sono
    do da em não uma com qual quais onde quem porque dos das na no nos pelo pela ao
    het een zijn niet met voor op te dat wat waar wanneer welke welk hoe ook aan bij om uit naar waarom
    في من إلى على عن مع هذا هذه ذلك تلك التي الذي هو هي ما ماذا متى أين كيف هل لماذا أي
    的 了 是 吗 呢 吧 の は が を に で と も か へ や ね よ です ます でした ますか ですか""".split()

# Words that shape a question without naming what it asks about.
_ASKING_WORDS = """what which who whom whose when where why how much many long often tell give show list find say says
    said know get got please there anything something already
    combien quel quelle quels quelles trouver dire donner cuánto cuánta cuántos cuántas cuál cuáles
    viel viele wieviel wieviele hoch lange lautet lauten heißt heisst beträgt
    quanto quanta quanti quante quantos quantas hoeveel lang
    كم
    什么 多少 哪里 哪个 谁 何时 时候 几 何 いくら いつ 誰 どこ どれ どの どう 무엇 언제 누구 얼마 어디""".split()

# How much of a question is read: past this it is pasted text, and its start says what is asked. (The answerer's
# work grows with a question's words, and an embedding model has a token limit.)
QUESTION_CHARS_READ = 2000
# A month's name or its abbreviation, in the languages the answerer reads ("Sep.", "janvier", "abr"): of a date.
MONTH = (
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|janv|févr|fevr|mars|avr|mai|juin|juil|août|aout|déc"
    r"|ene|abr|ago|dic)[a-zéû]*\.?"
)

_WORD = re.compile(r"\w+")
# Scripts written without spaces between words (Han, kana, Hangul syllables): a run of them is cut into single
# characters and adjacent pairs, as the full-text index holds them.
CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f\U00020000-\U0002ffff"
_CJK_RUN = re.compile(f"[{CJK}]+")
# Arabic short vowels and other marks, and the tatweel (a stretching stroke): written or not, the word is the same.
_ARABIC_MARKS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
# A letter's accents (combining marks of Latin, Greek and Cyrillic letters once decomposed).
_ACCENTS = re.compile("[\u0300-\u036f]")


def fold(word: str) -> str:
    """A word as compared with another: case-folded, accents off ("Échéance" -> "echeance")."""
    word = word.casefold()
    if word.isascii():
        return word
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", word)))


STOPWORDS = frozenset(_FUNCTION_WORDS) | frozenset(map(fold, _FUNCTION_WORDS))
QUESTION_WORDS = frozenset(_ASKING_WORDS) | frozenset(map(fold, _ASKING_WORDS))
# Function words inside a CJK run cut it, as spaces would: "消費税はいくらですか" -> "消費税".
_CJK_FUNCTION = re.compile(
    "|".join(sorted((re.escape(w) for w in STOPWORDS | QUESTION_WORDS if _CJK_RUN.fullmatch(w)), key=len, reverse=True))
)


def cjk_terms(run: str) -> list[str]:
    """A run of CJK text as terms: each character and each adjacent pair, in order ("消費税" -> 消, 消費, 費, 費税,
    税), its function words ("は", "ですか") taken out first."""
    terms: list[str] = []
    for piece in _CJK_FUNCTION.split(run):
        for i, char in enumerate(piece):
            terms.append(char)
            if i + 1 < len(piece):
                terms.append(piece[i : i + 2])
    return terms


def tokens(text: str, *, keep_accents: bool = False) -> list[str]:
    """The words of a text in order: case-folded (only lower-cased, accents kept, with `keep_accents`: as
    PostgreSQL's `simple` configuration does), Arabic marks and tatweel taken out, CJK runs as `cjk_terms`."""
    if text.isascii():
        return _WORD.findall(text.lower())
    text = as_indexed(text) if keep_accents else fold(_ARABIC_MARKS.sub("", text))
    if _CJK_RUN.search(text) is None:
        return _WORD.findall(text)
    out: list[str] = []
    for word in _WORD.findall(text):
        position = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > position:
                out.append(word[position : run.start()])
            out.extend(cjk_terms(run.group()))
            position = run.end()
        if position < len(word):
            out.append(word[position:])
    return out


def is_cjk(word: str) -> bool:
    return _CJK_RUN.fullmatch(word) is not None


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def as_indexed(text: str) -> str:
    """A text as the full-text index reads it (PostgreSQL's `simple` configuration lower-cases, and keeps
    accents): composed (NFC), Arabic marks and tatweel off, lower-cased."""
    if text.isascii():
        return text.lower()
    return _ARABIC_MARKS.sub("", unicodedata.normalize("NFC", text)).lower()


def has_words(text: str) -> bool:
    """Whether a text holds a letter or a digit: a question of only punctuation or symbols ("?") asks nothing."""
    return any(char.isalnum() for char in text)


def content_tokens(text: str) -> list[str]:
    """The words of a text that tell it apart, case- and accent-folded, in order, repeats kept: no stopwords or
    question words, no single letters (a lone digit stays: "page 2"; a CJK character is a word)."""
    return [
        word
        for word in tokens(text)
        if word not in STOPWORDS and word not in QUESTION_WORDS and (len(word) > 1 or word.isdigit() or is_cjk(word))
    ]


@functools.lru_cache(maxsize=4096)
def informative_words(text: str) -> tuple[str, ...]:
    """`content_tokens`, once each, in order of first appearance."""
    return tuple(dict.fromkeys(content_tokens(text)))


def is_number(word: str) -> bool:
    return any(char.isdigit() for char in word)


def rarity(word: str) -> float:
    """A corpus-free guess at how rare (so how telling) a word is: longer is rarer (Zipf's law of abbreviation),
    and a number rarer than a word of its length ("2140" over "cost"; "00" of "$140.00" is everywhere)."""
    if is_number(word):
        return min(1.5, 0.9 + 0.15 * len(word))
    return min(1.2, 0.8 + 0.05 * len(word))


def embedding_features(text: str) -> dict[str, float]:
    """Weighted features of a text for a hashed embedding: its content words and adjacent pairs of them
    (a pair is rarer than its words), each weighted by the square root of count x rarity, so a long text
    repeating a word is not much nearer a question holding it. No character n-grams: they made "involved"
    near "invoice". On bench/answers_questions.json (vector search alone, top 12) the answer's page was
    retrieved for 43% of the questions with every word counted, 91% without stopwords; the weights keep
    that figure and decide the order among segments that share words with the question."""
    tokens = content_tokens(text)
    rarities = {token: rarity(token) for token in set(tokens)}  # once a word: this runs on every segment at ingest
    features = {token: math.sqrt(n * rarities[token]) for token, n in collections.Counter(tokens).items()}
    for (a, b), n in collections.Counter(itertools.pairwise(tokens)).items():
        features[f"{a} {b}"] = math.sqrt(n * (rarities[a] + rarities[b]) / 2)
    return features
