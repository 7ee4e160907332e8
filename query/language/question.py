"""What a question asks, as the offline answerer reads it.

A question names the kind of value it wants ("how much": an amount, "when": a date, "who": a name, "what phone
number": a phone number), the thing asked about (its *focus*: "tax" in "How much tax was added on the Company ABC
invoice?", "filed" in "When was patent US 10,142,938 filed?", "addressed" and the role "to" in "Who is the invoice
addressed to?"), the *names* that say where to look ("Company ABC", "Service B", "US 10,142,938"), and other clues
("invoice"). A thing a name owns is the focus's *owner*: "dog" in "What is the name of Brenda's dog?" (and "Brenda's
dog's name"), which the name "Brenda" alone does not find. A word glossed in parentheses ("power (puissance)") is
one clue with two spellings. "What are the subtotal and the tax …?" asks for two things, one part each.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from query.language.terms import (
    CJK,
    MONTH,
    QUESTION_CHARS_READ,
    QUESTION_WORDS,
    STOPWORDS,
    content_tokens,
    fold,
    has_cjk,
    tokens,
)


class Kind(Enum):
    AMOUNT = "amount"  # money, a percentage, a quantity with decimals
    NUMBER = "number"  # any digits: counts, measures, account or form numbers
    DATE = "date"
    DURATION = "duration"  # "ten (10) years"
    NAME = "name"  # who, which company, which city: a capitalized name
    PHONE = "phone"
    EMAIL = "email"
    ANY = "any"


@dataclass(frozen=True)
class Clue:
    """One informative word of a question: the stems that count as it (its own, its gloss's, its aliases)."""

    word: str
    forms: frozenset[str]


@dataclass(frozen=True)
class Part:
    """One thing a question asks for."""

    kind: Kind
    focus: tuple[Clue, ...]  # the thing asked about
    generic: frozenset[str] = frozenset()  # focus words a value of the kind answers by itself ("date", "cost")
    role: str | None = None  # "to" of "addressed to": the label of the party asked about ("TO:", "Bill To:")
    # "dog" of "the name of Brenda's dog": the thing the focus belongs to, owned by a name of the question. The name
    # finds Brenda, not her dog: only a document that speaks of a dog answers (Brenda's ID is no dog's name tag).
    owner: tuple[Clue, ...] = ()
    # "used for" of "What project were the supplies used for?", "filed" of "When was it filed?": the verb the
    # question ends on, and the preposition after it, whether or not the verb is what is asked (its focus).
    relation: tuple[str, ...] = ()


@dataclass(frozen=True)
class Question:
    text: str
    clues: tuple[Clue, ...]  # every informative word, once, in order
    names: tuple[tuple[str, ...], ...]  # capitalized runs and identifiers, as case-folded words
    parts: list[Part]
    files: tuple[str, ...] = ()  # file names the question gives ("invoice.pdf"), case-folded: documents, not words
    verbs: frozenset[str] = frozenset()  # the verbs it asks through: "added" of "how much tax was added"


@dataclass(frozen=True)
class Words:
    """A text as the answerer compares it with a question: its stems, and its short upper-case or dotted words
    (EXP, ISS, Pat.), which may stand for a longer word of the question."""

    stems: frozenset[str]
    abbreviations: frozenset[str]
    tokens: frozenset[str]  # case-folded words, single letters included: names are matched on these
    initials: frozenset[str] = frozenset()  # of runs of capitalized words: "ibm" of "International Business Machines"

    def holds(self, clue: Clue) -> bool:
        if not clue.forms.isdisjoint(self.stems) or not clue.forms.isdisjoint(self.abbreviations):
            return True  # "No." is a number, "Tel." a phone: the alias itself, too short a word to be a stem
        # an abbreviation keeps half its word: EXP for "expir", LIC for "licens" (not "licensor"), "Sec." not "securit"
        return any(
            form.startswith(a) and len(form) > len(a) >= MIN_ABBREVIATION and len(a) >= ABBREVIATION_SHARE * len(form)
            for form in clue.forms
            for a in self.abbreviations
        )


def union(a: Words | None, b: Words) -> Words:
    if a is None:
        return b
    return Words(a.stems | b.stems, a.abbreviations | b.abbreviations, a.tokens | b.tokens, a.initials | b.initials)


ABBREVIATION_SHARE = 0.5
MIN_ABBREVIATION = 3  # letters: "No." abbreviates no name ("nom"): a two-letter one is an alias or nothing
_WORD = re.compile(r"\w+")
_ABBREVIATION = re.compile(r"\b([A-Z]{2,4})\b|\b([A-Za-z]{2,4})\.")
_CAPITALIZED_RUN = re.compile(r"\b[A-Z][a-z]+(?:[ \t]+(?:of[ \t]+)?[A-Z][a-z]+)+")
# A word of a name: Latin (and other spaced scripts) apart from CJK, so "Depotのレシート" is "Depot", "の", "レシート".
_NAME_WORD = re.compile(rf"[^\W{CJK}]+|[{CJK}]+")
# Words of the languages the answerer reads that a question may use for one of its English words, rewritten before
# reading (CJK has no spaces to find a word by; several words for one: "last name" is a surname).
_PHRASES = {
    "last name": "surname",
    "year-to-date": "ytd",  # (a running total, not a date: "the year-to-date gross earnings")
    "year to date": "ytd",
    "family name": "surname",
    "nom de famille": "surname",
    "パスポート": " passport ",
    "有効期限": " expiration ",
    "合計": " total ",
    "総額": " total ",
    "レシート": " receipt ",
    "領収書": " receipt ",
    "請求書": " invoice ",
    "消費税": " tax ",
    "税金": " tax ",
    "生年月日": " birth ",
    "支払期限": " due ",
    "住所": " address ",
    "電話番号": " phone number ",
    "金額": " amount ",
    "名字": " surname ",
    "苗字": " surname ",
}
_PHRASE = re.compile("|".join(map(re.escape, sorted(_PHRASES, key=len, reverse=True))), re.IGNORECASE)


def translations(text: str) -> list[str]:
    """The English of the words of `text` a document in another language writes otherwise: of its CJK words
    ("合計" -> "total"), and of its German compounds, read by their parts ("Gesamtbetrag" -> "gesamt", "betrag",
    "total", "amount"; "Kundennummer" -> "kunde", "nummer", "customer", "number")."""
    english = [_PHRASES[m.group().casefold()].strip() for m in _PHRASE.finditer(text) if has_cjk(m.group())]
    if has_compound(text):
        for match in _COMPOUND.finditer(text):
            for part in _split_compound(match).split():
                english += [part, *_english_of(part)]
    return english


def _english_of(word: str) -> list[str]:
    """The English word of the synonym group `word` belongs to (none when it is English, or unknown)."""
    head = _ENGLISH.get(stem(word))
    return [head] if head and stem(head) != stem(word) else []


def _rewritten(match: re.Match[str]) -> str:
    """An English phrase for its synonym ("last name": "surname"); a CJK word keeps its own characters, glossed with
    the English (a Japanese document holds the former, another the latter): "消費税" -> "消費税 (tax)"."""
    phrase = match.group()
    english = _PHRASES[phrase.casefold()].strip()
    return f" {phrase} ({english}) " if has_cjk(phrase) else english


# Suffixes taken off, longest first; a stem keeps at least 3 letters ("date" is "dat", never "d").
_SUFFIXES = ("ation", "ition", "ment", "ated", "ate", "ing", "ed")
_PLURAL_KEEPS = ("ss", "us", "is")
# "and" starts a second part only before a question word or a determiner: "the subtotal and the tax",
# "how much is due and when is it due", never "license and distribution agreement" (also "et", "y", "und", "e").
_SECOND_PART = re.compile(
    r",?\s+(?:and|et|y|und|e)\s+(?=(?:the|its|their|his|her|what|when|who|where|which|how|le|la|les|l['’]|son|sa|ses"
    r"|quel|quelle|quand|combien|el|los|las|su|sus|qué|cuál|cuándo|cuánto|der|die|das|den|dem|sein|seine|ihr|ihre|was"
    r"|wann|wie|welche|il|lo|gli|o|os|as)\b)",
    re.IGNORECASE,
)
# "height and weight", "form number and form date": two attributes asked, one part each (not "license and
# distribution agreement": words that are no attribute stay one thing).
_ATTRIBUTE_WORDS = (
    "height|weight|date|name|number|address|phone|email|total|tax|subtotal|balance|amount|price|fee|surname|age|sex"
)
_TWO_ATTRIBUTES = re.compile(rf"\s+and\s+(?=(?:\w+\s+)?(?:{_ATTRIBUTE_WORDS})\b)", re.IGNORECASE)
_ENDS_ON_ATTRIBUTE = re.compile(rf"\b(?:{_ATTRIBUTE_WORDS})$", re.IGNORECASE)


def _two_attributes(piece: str) -> list[str]:
    """ "What height and weight are …" -> "What height", "weight are …": split where "and" joins two attributes."""
    out, start = [], 0
    for match in _TWO_ATTRIBUTES.finditer(piece):
        if _ENDS_ON_ATTRIBUTE.search(piece[start : match.start()]):
            out.append(piece[start : match.start()])
            start = match.end()
    return [*out, piece[start:]]


_GLOSS = re.compile(r"\(([^()]*)\)")
GLOSS_WORDS = 3  # a gloss names the word again ("fecha de nacimiento"); more words say something else
# Words only a German question holds (lower-case, as written): "Wann ist die Rechnung fällig?".
_GERMAN = frozenset("der die das dem ist sind wann welche welcher welches wie wer nicht".split())
_POSSESSIVE = re.compile(r"['’]s\b")
_DO = frozenset("do does did will would can could should must may might shall".split())
_BE = frozenset("is are was were be been".split())
_ROLES = frozenset("to from by for".split())
_PARTICIPLES = frozenset("made paid born won sold bought sent held built given taken done due drawn written".split())
# A form's abbreviation or another language's word for a question word (stemmed below); and see _SYNONYMS.
_ALIASES = {
    "birth": ("dob", "naissance", "nacimiento"),
    "number": ("no", "num", "nr"),
    "weight": ("wgt",),
    "height": ("hgt",),
    "invoice": ("facture", "factura"),
    "date": ("fecha",),  # (not "dob": a date of birth is one date, not any)
    "unit": ("quantity", "qty"),
    "amount": ("amt",),
    "phone": ("tel",),
    # a question's verb for the field that records it: "when was she born" asks her date of birth
    "born": ("birth", "dob", "naissance", "nacimiento", "geburt"),
    "tall": ("height", "hgt"),
    # "how heavy", "how wide"…: the dimension a label names ("Weight (Kg): 2.0")
    "heavy": ("weight", "wgt", "poids", "peso", "gewicht"),
    "wide": ("width",),
    "deep": ("depth",),
    "far": ("distance",),
    "debited": ("debit", "prélevé", "prélèvement", "cargo", "abbuchung"),
    "wrote": ("written", "write", "writer", "author"),
    "pay": ("due", "payable", "payment"),
    # a month and its abbreviation, as a table's head writes it ("Apr 18")
    "january": ("jan",),
    "february": ("feb",),
    "march": ("mar",),
    "april": ("apr",),
    "june": ("jun",),
    "july": ("jul",),
    "august": ("aug",),
    "september": ("sep", "sept"),
    "october": ("oct",),
    "november": ("nov",),
    "december": ("dec",),
    "written": ("wrote", "write", "writer", "author"),
}
# One word in several languages: a question in one finds a document in another, either way.
_SYNONYMS = (
    "invoice facture factura rechnung fattura fatura factuur",
    "amount montant importe betrag importo montante bedrag",
    "total gesamt totale totaal",
    "tax taxe tva impuesto iva steuer mwst imposta imposto belasting btw",
    "date fecha datum",
    "birth naissance nacimiento geburt nascita nascimento geboorte",
    "name nom nombre nome naam",
    "address adresse dirección domicilio indirizzo endereço adres anschrift",
    "number numéro número nummer numero",
    "phone téléphone teléfono telefon telefono telefone telefoon",
    "price prix precio preis prezzo preço prijs",
    "due échéance vencimiento fällig fälligkeit scadenza vencimento vervaldatum",
    "expiration expiry caducidad vencimiento ablauf scadenza validade",
    "issue délivrance expedición emisión ausstellung rilascio emissão afgifte",
    "passport passeport pasaporte reisepass passaporto passaporte paspoort",
    "surname apellido apellidos nachname cognome sobrenome achternaam family",
    "shipping freight livraison envío versand spedizione frete verzending",
    "receipt reçu recibo quittung beleg ricevuta bon",
    "balance solde saldo",
    "account compte cuenta konto conto conta rekening",
    "customer client cliente kunde klant",
    "payment paiement pago zahlung pagamento betaling",
    "consumption consommation consumo verbrauch verbruik",
    "period période periodo zeitraum período periode",
    "postal zip postcode postleitzahl plz",
    "subscription abonnement abono abbonamento assinatura",
    "net netto neto",
    "pay wage salary lohn gehalt salaire salario",
)
# Per kind, focus words that a value of that kind answers by itself: "date" in "the date of the invoice".
_GENERIC = {
    Kind.AMOUNT: "amount cost costs price value sum montant coût prix valeur somme importe precio coste costo valor "
    "suma betrag preis kosten wert summe importo prezzo montante preço bedrag prijs waarde",
    Kind.NUMBER: "number numbers count version release edition weight height velocity speed temperature rate power "
    "distance size length "
    "large big tall high far old heavy wide deep fast area surface "
    "volume usage percentage quantity numéro número nummer numero poids peso gewicht quantité cantidad menge "
    "quantità quantidade hoeveelheid",
    Kind.DATE: "date day year time fecha datum jour día giorno dia dag année año jahr anno ano jaar",
    Kind.DURATION: "period duration time durée période duración periodo dauer zeitraum durata duração duur",
    Kind.NAME: "name company person firm organization organisation business individual party nom société entreprise "
    "personne nombre empresa persona firma unternehmen nome società azienda pessoa naam bedrijf",
    Kind.PHONE: "phone telephone number call fax téléphone teléfono telefon telefono telefone telefoon",
    Kind.EMAIL: "email mail address courriel correo adresse",
}
_GENERIC = {kind: " ".join(map(fold, words.split())) for kind, words in _GENERIC.items()}
_AMOUNT_WORDS = frozenset(
    map(
        fold,
        "amount total balance price cost costs tax taxes fee fees charge charges paid pay payment subtotal due sum "
        "spent owed montant prix coût taxe tva solde somme frais importe precio coste costo impuesto iva saldo suma "
        "pago betrag preis kosten steuer mwst gebühr summe importo prezzo imposta saldo montante preço imposto bedrag "
        "prijs belasting btw kosten totaal".split(),
    )
)
# German compounds end on the word they are: "Geburtsdatum" is a date ("Datum") of birth ("Geburt"), read as
# its two words, in questions and texts alike.
COMPOUND_ENDS = ("datum", "betrag", "summe", "nummer", "preis", "kosten", "steuer", "gebühr", "adresse", "lohn")
_COMPOUND_HINT = re.compile("|".join(COMPOUND_ENDS), re.IGNORECASE)
_COMPOUND = re.compile(rf"\b(\w{{3,}}?)({'|'.join(COMPOUND_ENDS)})\b", re.IGNORECASE)


def _split_compound(match: re.Match[str]) -> str:
    """ "Gesamtbetrag" -> "Gesamt betrag", "Kundennummer" -> "Kunde nummer": the compound's two words, the first
    without its linking letters (-s-, -n-, -en-, -es-) where the word without them is one the answerer knows."""
    first, last = match.group(1), match.group(2)
    for cut in (1, 2):
        shorter = first[:-cut]
        if first[-cut:].casefold() in _LINKING and len(shorter) >= 3 and stem(shorter) in ALIASES:
            return f"{shorter} {last}"
    return f"{first} {last}"


_LINKING = frozenset("s n en es".split())
# (matched on the question case- and accent-folded: "cuándo" is "cuando")
HOW_MUCH = re.compile(
    r"\bhow much\b|\bcombien\b|\bcuant[oa]\b|\bwie ?viel\b|\bwie hoch\b|\bquant[oa]\b|\bhoeveel\b|いくら|얼마"
)
HOW_MANY = re.compile(
    r"\bhow many\b|\bcombien d(?:e\b|')|\bcuant[oa]s\b|\bwie viele\b|\bquant[ie]\b|\bquant[oa]s\b|几|多少"
)
# Upper-case words that name a kind of identifier, not a thing: never a name of the question.
IDENTIFIER_ACRONYMS = frozenset("tin ssn ein itin vin iban bic swift pin zip id dob po siren siret nif cif".split())
IDENTIFIER = re.compile(
    r"\b(?:zip|postal|post|area|authori[sz]ation|auth|confirmation|tracking|reference|account|customer|client|"
    r"routing|sort|swift|bic|product|item|reason|country|code|codigo|numero|nummer)\s*code\b|\bpostcode\b"
    r"|\bcode postal\b|\bcodigo postal\b|\bpostleitzahl\b|\bp\.?\s?o\.?\s+box\b|\bboite postale\b|\bapartado\b"
    r"|\b(?:tin|ssn|ein|itin|vin|iban|siren|siret|nif|cif)\b"
)
_WHICH = re.compile(r"\bwhich\b|\bwhat (?:" + _GENERIC[Kind.NAME].replace(" ", "|") + r"|city|country|town)\b")
_NOT_NAMED = frozenset(
    _GENERIC[Kind.DATE].split()
    + _GENERIC[Kind.DURATION].split()
    + "number numero nummer version release edition".split()  # ("which release": a version number, not a name)
)
_ASKS = [
    (
        re.compile(r"\bhow long\b|\bcombien de temps\b|\bcuanto tiempo\b|\bwie lange?\b|\bquanto tempo\b|\bhoe lang\b"),
        Kind.DURATION,
    ),
    (HOW_MANY, Kind.NUMBER),
    # "how large is the farm": a size, which the adjective does not name ("42 hectares")
    (re.compile(r"\bhow (?:large|big|tall|high|far|old|heavy|wide|deep|fast)\b"), Kind.NUMBER),
    (HOW_MUCH, Kind.AMOUNT),
    (
        re.compile(
            r"\bwhen\b|\b(?:what|which) (?:date|year|day)\b|\buntil\b|\bquand\b|\bquel(?:le)? (?:date|jour|annee)\b"
            r"|\bcuando\b|\b(?:que|cual es la) fecha\b|\bwann\b|\bwelche[sm]? (?:datum|tag|jahr)\b|\bquando\b"
            r"|\bwanneer\b|متى|いつ|何时|什么时候|언제"
        ),
        Kind.DATE,
    ),
    (re.compile(r"\b(?:tele)?phone\b|\bcall\b|\bfax\b|\btelefon[eo]?\b|\btelefoon\b|電話|电话|전화"), Kind.PHONE),
    (re.compile(r"\be-?mail\b|\bcourriel\b|\bcorreo\b"), Kind.EMAIL),
    (
        re.compile(r"\bwho(?:m|se)?\b|\bqui\b|\bquien(?:es)?\b|\bwer\b|\bwem\b|\bwessen\b|\bquem\b|谁|誰|누구"),
        Kind.NAME,
    ),
    # "the postal code", "the PO box", "the recipient's TIN": an identifier, which holds digits ("which PO box" too)
    (IDENTIFIER, Kind.NUMBER),
    # "which observatory", "which law firm", "what company": a named one
    (_WHICH, Kind.NAME),
]


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stemmer: "invoiced"/"invoices" -> "invoic", "shipped"/"shipment" -> "ship", "expiration"/"expire"/
    "expiry" -> "expir", "communicated"/"communication" -> "communic"; "licensor" and "licensee" stay apart."""
    word = fold(word)
    if any(char.isdigit() for char in word) or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("s") and not word.endswith(_PLURAL_KEEPS):
        word = word[:-1]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouylsz":  # shipp -> ship
                word = word[:-1]
            break
    if len(word) > 3 and word.endswith(("e", "y")) and not word.endswith("ee"):
        word = word[:-1]
    return word


ALIASES = {stem(word): frozenset(map(stem, aliases)) for word, aliases in _ALIASES.items()}
for _group in _SYNONYMS:
    _stems = frozenset(map(stem, _group.split()))
    for _stem in _stems:
        ALIASES[_stem] = ALIASES.get(_stem, frozenset()) | (_stems - {_stem})


# A word of another language -> the English word of its synonym group ("betrag" -> "amount").
_ENGLISH = {stem(w): group.split()[0] for group in _SYNONYMS for w in group.split()}


@functools.lru_cache(maxsize=8192)
def words_of(text: str) -> Words:
    compound = has_compound(text)  # (the substitution is a third of the work: only when needed)
    stems = frozenset(map(stem, content_tokens(_COMPOUND.sub(_split_compound, text) if compound else text)))
    tokens_ = frozenset(w.casefold() for w in _WORD.findall(text))
    return Words(stems, abbreviations_of(text), tokens_, initials_of(text))


def has_compound(text: str) -> bool:
    """A German compound may be in the text ("Gesamtbetrag")."""
    return _COMPOUND_HINT.search(text) is not None


def abbreviations_of(text: str) -> frozenset[str]:
    """Short upper-case or dotted words: "exp" of "4b EXP:", "pat" of "Pat. No."."""
    return frozenset((upper or dotted).casefold() for upper, dotted in _ABBREVIATION.findall(text))


def initials_of(text: str) -> frozenset[str]:
    """The initials of runs of capitalized words: "ibm", "bm" of "International Business Machines"."""
    initials = set()
    for run in _CAPITALIZED_RUN.finditer(text):
        letters = [w[0].casefold() for w in run.group().split() if w[0].isupper()]
        initials.update("".join(letters[i:j]) for i in range(len(letters)) for j in range(i + 2, len(letters) + 1))
    return frozenset(initials)


def asks_rate(part: Part) -> bool:
    """A rate or a percentage is asked ("the tax rate", "le taux"): a percentage answers it."""
    return any(c.word in RATE_WORDS for c in part.focus)


RATE_WORDS = frozenset("rate rates percentage percent taux tasa satz steuersatz aliquota taxa".split())


# A file name as a user writes one: what the question is asked of, not a word of what it asks ("the total in
# invoice_2024.pdf"). Read apart, so that neither its words nor its digits are looked for in the answer.
FILE_NAME = re.compile(r"(?<![\w.-])[\w.-]*\w\.(?:json|pdf|png|jpe?g|tiff?|gif|bmp|webp)(?![\w.-])", re.IGNORECASE)


def read_question(text: str) -> Question:
    text = text[:QUESTION_CHARS_READ]
    files = tuple(dict.fromkeys(m.group().casefold() for m in FILE_NAME.finditer(text)))
    text = _no_possessive(_PHRASE.sub(_rewritten, FILE_NAME.sub(" ", text) if files else text))
    text = _COMPOUND.sub(_split_compound, text)
    glosses = _glosses(text)
    clues = {}
    for word in content_tokens(_GLOSS.sub(" ", text)):
        forms = {stem(word), *ALIASES.get(stem(word), ()), *glosses.get(word, ())}
        clues.setdefault(word, Clue(word, frozenset(forms)))
    pieces = [
        p
        for piece in _SECOND_PART.split(text)
        for p in _two_attributes(piece)
        if content_tokens(p) or _kind_of(p, []) is not Kind.ANY
    ]
    names = _names(text)
    name_words = {w for name in names for w in name}
    parts = [_read_part(piece, clues, name_words) for piece in pieces or [text]]
    return Question(text, tuple(clues.values()), names, parts, files, _verbs(text))


# Verbs a question asks through after its subject ("by what date must Company ABC *pay*"): a date is not any date.
_QUESTION_VERBS = frozenset(
    "pay use apply send ship mail renew expire start begin end last cost charge need require contain include run write "
    "produce support".split()
)
_DOCUMENT_WORDS = frozenset(
    "form invoice receipt bill document manual guide page report statement card license licence passport contract "
    "agreement patent letter stub sheet file".split()
)
NOT_RELATIONS = frozenset(
    "due printed shown written given listed stated mentioned indicated displayed reported recorded noted included "
    "specified found".split()
)


def _verbs(text: str) -> frozenset[str]:
    """The participles right after an auxiliary ("was added", "were used"), and known participles after one ("was
    the total paid"): the verbs a question asks through, not words naming what it asks about; not a verb that only
    says where the value is ("printed", "shown")."""
    words = tokens(text)
    asks = next((i for i, w in enumerate(words) if w in _BE | _DO), len(words))
    verbs = {
        after
        for before, after in itertools.pairwise(words)
        if before in _BE | _DO and (after.endswith(("ed", "en")) or after in _PARTICIPLES)
    } | {w for w in words[asks:] if w in _PARTICIPLES or w in _QUESTION_VERBS}
    # ("when is payment due": what is asked; "what date is printed on it": where, not how)
    return frozenset(verbs - NOT_RELATIONS)


_TOPIC = re.compile(r"[はがを]")
_KATAKANA_NAME = re.compile(r"[ァ-ヺー]+(?:・[ァ-ヺー]+)+")


def _no_possessive(text: str) -> str:
    """Japanese "AのBのC" (C of B of A) before its topic particle, written as "C of B of A", the order the reader of
    English questions knows: "Office Depotのレシートの合計は…" -> "total of receipt of Office Depot は…"."""
    topic = _TOPIC.search(text)
    head, tail = (text[: topic.start()], text[topic.start() :]) if topic else (text, "")
    if "の" not in head:
        return text
    return " of ".join(piece.strip() for piece in reversed(head.split("の")) if piece.strip()) + " " + tail


def _glosses(text: str) -> dict[str, set[str]]:
    """ "subscribed power (puissance)": each word of the run before the parentheses -> the gloss's stems. A number
    glosses no word: "rand(-1)" is a call, and its "1" would let any claim holding a 1 speak of `rand`."""
    glosses: dict[str, set[str]] = {}
    for match in _GLOSS.finditer(text):
        words = content_tokens(match.group(1))
        if len(words) > GLOSS_WORDS:  # "purchases (less cost of items withdrawn for personal use)": a remark
            continue
        forms = {stem(w) for w in words if not w.isdigit()}
        for word in _last_run(text[: match.start()]):
            glosses.setdefault(word, set()).update(forms)
    return glosses


def _last_run(text: str) -> list[str]:
    run: list[str] = []
    for word in reversed(tokens(text)):
        if word in STOPWORDS or word in QUESTION_WORDS:
            break
        run.append(word)
    return run


def _names(text: str) -> tuple[tuple[str, ...], ...]:
    """Runs of capitalized words or words with digits ("Company ABC", "Tool A", "N. G. C. 7619", "ET-4760"), not
    the question's opening word; a lone letter or stopword ("should I call") is no name, nor is a date ("the April
    2018 SCE&G bill" names SCE&G: its April 2018 is said "Apr 18" as often as not). German capitalizes every
    noun: in a German question only upper-case words and words with digits are names ("EDF", not "Rechnung")."""
    runs: list[list[str]] = []
    previous_end = -1
    german = is_german(text)
    dates = [m.span() for m in _DATE_PHRASE.finditer(text)]
    matches = list(_NAME_WORD.finditer(text))
    for i, match in enumerate(matches):
        word = match.group()
        if any(a <= match.start() < b for a, b in dates):
            previous_end = -1
            continue
        capital = word[:1].isupper()
        if german:  # a noun, unless upper-case or one of two capitalized words ("John Smith", "Office Depot")
            after = matches[i + 1].group() if i + 1 < len(matches) else ""
            before = matches[i - 1].group() if i > 0 else ""
            paired = _title(after) or (_title(before) and i > 1)
            capital = word.isupper() or (capital and paired)
        numbered = not word.isalpha() and any(c.isdigit() for c in word)  # (a word of letters has no digit)
        capital = (capital or numbered) and not (i == 0 and _is_function(word))
        # "the recipient's TIN", "the PO Box": what is asked, not a name
        po_box = word.casefold() == "box" and i > 0 and matches[i - 1].group().casefold() == "po"
        capital = capital and word.casefold() not in IDENTIFIER_ACRONYMS and not po_box
        joined = previous_end >= 0 and not text[previous_end : match.start()].strip(" .-&,")  # "SCE&G", "N. G."
        if capital and joined and runs:
            runs[-1].append(word.casefold())
        elif capital:
            runs.append([word.casefold()])
        previous_end = match.end() if capital else -1
    # a foreign name in katakana, its parts joined by "・": "ジョン・スミス" (John Smith)
    runs += [m.group().split("・") for m in _KATAKANA_NAME.finditer(text)]
    named = [tuple(run) for run in runs if any(len(w) > 1 and not _is_function(w) for w in run)]
    # an option or an identifier written as code ("--tool", "--show", "crop.mode", "emptyTableAction") names one
    # thing too, whatever its words ("show" is a question word)
    named += [tuple(w.casefold() for w in _WORD.findall(m.group())) for m in CODE_NAME.finditer(text)]
    return tuple(dict.fromkeys(named))


# "--tool", "-s", "crop.mode", "rl_config", "emptyTableAction": a word written as code (a lower-case one: a
# capitalized one is a name already).
CODE_NAME = re.compile(r"(?<![\w-])--?[a-z][\w-]*|\b[a-z]+(?:[._][a-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b")


# A month and its year ("April 2018", "Sep. 24, 2019"), or a year alone: a date the question gives, not a name.
_DATE_PHRASE = re.compile(
    rf"\b{MONTH}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?,?)?\s+(?:19|20)\d\d\b|\b(?:19|20)\d\d\b", re.IGNORECASE
)


def _title(word: str) -> bool:
    """ "Smith", not "EDF" nor "die": a German word written so is a name or a noun, two in a row a name."""
    return word[:1].isupper() and not word.isupper() and not _is_function(word)


def is_german(text: str) -> bool:
    return not _GERMAN.isdisjoint(_WORD.findall(text))


def _is_function(word: str) -> bool:
    return word.casefold() in STOPWORDS or word.casefold() in QUESTION_WORDS


def _read_part(text: str, clues: dict[str, Clue], name_words: set[str]) -> Part:
    words = tokens(_POSSESSIVE.sub("", _GLOSS.sub(" ", text)))
    run = _first_run(words, name_words)
    which = next((i for i, w in enumerate(words[1:], 1) if w in _WHICH_WORDS), None)
    if which is not None and run and words.index(run[0]) < which:
        # "Under the laws of which country is …": the country, what "which" asks, not the laws before it; "After the
        # initial term, for how long does it renew": what follows "how long", not the clause before it
        after = which + 1 + (words[which] == "how" and which + 1 < len(words))
        run = _first_run(words[after:], name_words) or run
    kind = _kind_of(text, run)
    generic = frozenset(_GENERIC.get(kind, "").split())
    closing, role = _closing(text, words)
    # (not a verb that only says where the value is, nor a document the question ends on: "… on her intake form")
    verb = closing and closing not in NOT_RELATIONS and closing not in _DOCUMENT_WORDS
    relation = tuple(w for w in (closing, role) if w) if verb else ()
    # "When was the paper communicated?", "On what date will it be debited?", "Who is the invoice addressed to?":
    # the verb names what is asked ("which city does she live in": the city).
    by_verb = (kind is Kind.DATE and set(run) <= generic) or (kind is Kind.NAME and words[:1] in (["who"], ["whom"]))
    owner: list[str] = []
    last = words[-1] if words else ""
    # (a document the question ends on is no verb: "Who did she list as her emergency contact on her intake form?")
    if closing and closing not in _DOCUMENT_WORDS and (words[:1] == ["when"] or by_verb):
        focus_words = [closing]
    elif kind is Kind.DATE and is_german(text) and last in clues and last not in run and _written_lower(last, text):
        focus_words = [last]  # "Wann ist die Rechnung fällig?": German ends on what is asked
    else:
        role = None
        focus_words = run
        rest = words[words.index(run[-1]) + 1 :] if run else []
        chain, last = _owned(_leading_run(words), text, name_words)
        if kind is Kind.AMOUNT and run and set(run) <= _PRICED and rest[:1] == ["for"] and rest[1:]:
            focus_words = _first_run(rest[1:], name_words) or run  # "how much is charged for renewable energy"
        elif kind is Kind.NAME and run and set(run) <= generic and rest[:1] and rest[0] in _BE:
            focus_words = _first_run(rest, name_words) or run  # "which company is the licensee": the licensee
        elif chain and last:  # "Brenda's dog's name": the name, of the dog
            focus_words, owner = last, chain
        elif rest[:1] and rest[0] in _OF:
            chain, last = _owned(_leading_run(rest[1:]), text, name_words)
            if rest[0] == "of" and (chain or last):  # "the name of Brenda's dog": the name, of the dog
                owner = chain + last
            elif _all_generic(run, text) or (rest[0] != "of" and _all_generic(run, text, _ROMANCE_HEADS)):
                # "the passport's date of expiration", "the name of the CEO", "le montant de la TVA": a date of what
                owned = [w for w in _first_run(rest[1:], name_words) if not _possessive(w, text)]
                focus_words = [w for w in run if not _possessive(w, text)] + owned
                if owned:  # (the number, the total: of what follows, which tells it from the others)
                    generic = generic | frozenset(run)
    return Part(
        kind,
        tuple(clues[w] for w in focus_words if w in clues),
        generic & frozenset(focus_words),
        role,
        tuple(clues[w] for w in owner if w in clues),
        relation,
    )


_WHICH_WORDS = frozenset("which what how".split())
_PRICED = frozenset("charged paid billed spent owed due charge cost costs".split())
_OF = frozenset("of de del des du von vom der di do da".split())
# Heads a "date of …", "name of …", "amount of …" is said of: the thing after "of" is what is asked. ("the weight of
# the shipment", "the phone number of the store": the weight, the phone number.)
_GENERIC_HEADS = frozenset(w for kind in (Kind.DATE, Kind.NAME, Kind.AMOUNT) for w in _GENERIC[kind].split())

# "el número de orden de compra", "le numéro de compte": an identifier of what follows (in English, "the number of
# pages" is a count, which "how many" asks).
# "el total del abono": the total of the subscription, what is asked.
_ROMANCE_HEADS = frozenset(map(fold, "número numéro numero nummer code código codice total".split()))

_NAME_HEADS = frozenset("name nom nombre nome naam surname apellido apellidos nachname vorname prenom cognome".split())


def _written_lower(word: str, text: str) -> bool:
    """Written in lower case in the question: in German, no noun ("fällig", not "Reisepasses")."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", fold(text)) is not None and any(
        w.islower() and fold(w) == word for w in _WORD.findall(text)
    )


def _possessive(word: str, text: str) -> bool:
    if "'" not in text and "’" not in text:
        return False  # (most questions: no pattern to build)
    return re.search(rf"\b{re.escape(word)}['’]s\b", fold(text)) is not None


def _all_generic(run: list[str], text: str, generic: frozenset[str] = _GENERIC_HEADS) -> bool:
    """The run names only a kind of value ("date", "name", "montant"), the rest being its owners ("passport's")."""
    heads = [w for w in run if not _possessive(w, text)]
    return bool(heads) and set(heads) <= generic


def _owned(run: list[str], text: str, name_words: set[str]) -> tuple[list[str], list[str]]:
    """What a name owns in `run` (possessives, as `text` writes them), as the things that own in turn and the last
    thing: "Brenda's dog's name" -> (["dog"], ["name"]), "Brenda's dog" -> ([], ["dog"]); nothing without a name's
    possessive ("the patient's name", "the EDF invoice": the focus, the clues and the names find those)."""
    folded = fold(text)

    def possessives(words: list[str]) -> list[int]:
        if "'" not in folded and "’" not in folded:
            return []  # (most questions: no pattern to build)
        return [i for i, w in enumerate(words) if re.search(rf"\b{re.escape(w)}['’]s\b", folded)]

    names = [i for i in possessives(run) if run[i] in name_words]
    if not names:
        return [], []
    owned = [w for w in run[names[-1] + 1 :] if w not in name_words]
    cut = ([-1, *possessives(owned)])[-1] + 1
    return owned[:cut], owned[cut:]


def _leading_run(words: list[str], kept: Callable[[str], bool] = lambda _: True) -> list[str]:
    """The first run of informative words (those `kept` of them), names included: "brenda dog" of "Brenda's
    dog"."""
    run: list[str] = []
    for word in words:
        if word in STOPWORDS or word in QUESTION_WORDS:
            if run:
                break
            continue
        if kept(word):
            run.append(word)
    return run


def _first_run(words: list[str], name_words: set[str]) -> list[str]:
    """The first run of informative words but single letters, names left out unless it holds nothing else:
    "payment terms" of "What are the payment terms of …", "date" of "What is Sally Walker's date of birth?"."""
    kept = lambda word: len(word) > 1 or word.isdigit()  # noqa: E731
    run = _leading_run(words, kept)
    rest = words
    while run and set(run) <= name_words:  # "Office Depot の receipt の total": the receipt's total, not the name
        rest = rest[rest.index(run[-1]) + 1 :]
        later = _leading_run(rest, kept)
        if not later or not (_BE | _DO).isdisjoint(rest[: rest.index(later[0])]):
            break  # "What CURP is printed": the name is what is asked
        if not set(later) <= name_words:
            return [w for w in later if w not in name_words]
        run = later
    first = _leading_run(words, kept)
    return [w for w in first if w not in name_words] or first


def _closing(text: str, words: list[str]) -> tuple[str | None, str | None]:
    """The verb a question ends on ("filed", "expire", "addressed"), and the preposition after it ("to"): after
    do/will/can… any last word; after is/was… a participle. A capitalized last word is a name, not a verb."""
    role = words[-1] if words and words[-1] in _ROLES else None
    tail = words[:-1] if role else words
    if len(tail) < 3 or _is_function(tail[-1]) or any(c.isdigit() for c in tail[-1]):
        return None, None
    last = tail[-1]
    auxiliaries = [w for w in tail[1:-1] if w in _DO or w in _BE]
    if not auxiliaries or re.search(rf"\b{re.escape(last)}\b", text) is None:
        return None, None
    if auxiliaries[0] in _DO or last.endswith(("ed", "en")) or last in _PARTICIPLES:
        return last, role
    return None, None


def asks_count(text: str) -> bool:
    """ "How many", in any language the questions are read in: a count, not an identifier."""
    return HOW_MANY.search(fold(text)) is not None


def asks_how_much(text: str) -> bool:
    """ "How much", in any language the questions are read in: an amount that may be a quantity, not only money."""
    return HOW_MUCH.search(fold(text)) is not None


def _kind_of(text: str, run: list[str]) -> Kind:
    asked = fold(text)
    head = run[-1] if run else ""  # "late payment charge": a charge, not a payment
    for pattern, kind in _ASKS:
        if pattern.search(asked):
            if kind is Kind.NAME and pattern is _WHICH and (head in _NOT_NAMED or head in _AMOUNT_WORDS):
                break  # "which pay period", "which state number", "which fee": not a name
            return kind
    if head in _AMOUNT_WORDS:
        return Kind.AMOUNT
    for kind in (Kind.NUMBER, Kind.DATE, Kind.DURATION):
        if head in _GENERIC[kind].split() or (kind is not Kind.NUMBER and set(run) & set(_GENERIC[kind].split())):
            return kind
    if "number" in run:
        return Kind.NUMBER
    if head in _NAME_HEADS:  # "the business name", "the patient's surname": a name
        return Kind.NAME
    return Kind.ANY
