"""The words a conversation is read by, in the languages the answerer reads (English, French, Spanish, German): which
language a question is in, the kinds of documents a question may name, determiners and prepositions around them,
and the words that point back at what earlier turns named (pronouns, possessives, demonstratives)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from query.language.terms import fold

# Words frequent in questions of one language and rare in the others' (case-folded, accents off).
_MARKERS = {
    "en": "the what which who whom when how is are was were does did do of on for and it its her his their with",
    "fr": "le la les est quel quelle quels quelles du des sur dans combien quand qui une un et pour au aux ce cette "
    "il elle son sa ses leur faut",
    "es": "el los las cual cuales que cuanto cuanta cuantos cuando quien del una y por para su sus esta este ese esa "
    "esto",
    "de": "der die das ist wie wer wann welche welcher welches welchen welchem des dem den und ein eine im von wurde "
    "sie er ihre ihr sein seine nicht auf",
}
_MARKER_SETS = {language: frozenset(words.split()) for language, words in _MARKERS.items()}
_WORD = re.compile(r"\w+")


def language_of(text: str) -> str:
    """The language of a question, by its function words: `en`, `fr`, `es` or `de` (English where none tells)."""
    words = [fold(w) for w in _WORD.findall(text)]
    scores = {language: sum(w in markers for w in words) for language, markers in _MARKER_SETS.items()}
    best = max(scores.values())
    return "en" if best == 0 or scores["en"] == best else max(scores, key=lambda language: scores[language])


# Kinds of documents, each group one kind in the four languages: "the invoice", "la facture", "esta factura", "die
# Rechnung" speak of one document; another group's noun names another one.
_KINDS = (
    "invoice bill facture factura rechnung",
    "receipt reçu recu ticket recibo quittung beleg kassenbon",
    "contract agreement contrat accord contrato acuerdo vertrag vereinbarung",
    "license licence lizenz licencia permis führerschein fuhrerschein",
    "patent brevet patente",
    "passport passeport pasaporte reisepass",
    "form formulaire formulario formular fragebogen questionnaire",
    "statement relevé releve extracto auszug kontoauszug",
    "report rapport informe bericht",
    "paper article artículo articulo artikel",
    "letter lettre carta brief",
    "stub advice payslip avis bulletin nómina nomina abrechnung lohnabrechnung",
    "specimen",
    "policy police póliza poliza",
    "certificate certificat certificado bescheinigung zertifikat attestation",
    "card carte tarjeta karte ausweis",
    "quote quotation devis presupuesto angebot",
    "order commande pedido bestellung",
    "manual manuel handbuch",
)  # ("document", "file": any document, none in particular)
DOCUMENT_KINDS: dict[str, str] = {fold(w): group.split()[0] for group in _KINDS for w in group.split()}
# A German compound ends on its kind: "Gesundheitsfragebogen", "Stromrechnung", "IBM-Patents".
_GERMAN_ENDINGS = tuple(sorted((w for w in DOCUMENT_KINDS if len(w) >= 5), key=len, reverse=True))
_PLURALS = ("s", "es", "x", "n", "en", "e")


def document_kind(word: str, language: str) -> str | None:
    """The kind of document a word names ("factures" -> "invoice", German "Gesundheitsfragebogens" -> "form"), or
    None."""
    folded = fold(word)
    for form in (folded, *(folded[: -len(p)] for p in _PLURALS if folded.endswith(p))):
        if form in DOCUMENT_KINDS:
            return DOCUMENT_KINDS[form]
    if language == "de":
        for ending in _GERMAN_ENDINGS:
            if any(folded.endswith(ending + p) for p in ("", *_PLURALS)) and len(folded) > len(ending) + 2:
                return DOCUMENT_KINDS[ending]
    return None


# Words naming a field of a document, which a kind of document before them qualifies ("license number").
FIELD_WORDS = frozenset(
    "number numbers no nr num id code date dates total totals amount name names period type fee fees charge charges "
    "payment tax address phone holder issuer line lines item items balance terms".split()
)
# Determiners (articles, possessives of a third person named before, demonstratives): part of a noun phrase.
DETERMINERS = frozenset(
    "the a an this that these those its their his her "
    "le la les l un une ce cet cette ces son sa ses leur leurs "
    "el los las lo una unos unas este esta estos estas ese esa esos esas aquel aquella su sus "
    "der die das dem den des ein eine einen einem einer eines dieser diese dieses diesem diesen "
    "sein seine seinen seinem seiner seines ihr ihre ihren ihrem ihrer ihres".split()
)
# Prepositions a subject is introduced by ("on the invoice", "sur la facture", "des IBM-Patents": of the).
PREPOSITIONS = frozenset(
    "on in of for from to at about regarding concerning under "
    "sur dans de du des d pour en chez concernant entre par au aux à "
    "en de del sobre para con "
    "auf in im von vom zu zum zur für fur bei über uber aus laut an am des".split()
)
# The preposition a carried subject gets when it had none ("the phone number" of "Sally Walker").
DEFAULT_PREPOSITION = {"en": "of", "fr": "de", "es": "de", "de": "von"}
# Words a follow-up may open with that tie it to what came before ("And how much was shipping?"), or that move on to
# what it names ("Now Company ABC's invoice: …", "Passons au reçu de …").
CONNECTIVES = frozenset(
    "and also so then now next ok okay et alors puis aussi maintenant passons y entonces también tambien ahora "
    "pasemos und dann auch jetzt nun".split()
)
# Words a question opens with (a clause they open is the question, not a subject fronted before it).
OPENERS = frozenset(
    "what which who whom whose when where why how is are was were does do did can could has have will would "
    "quel quelle quels quelles qui que quoi quand ou comment combien pourquoi est "
    "que cual cuales quien quienes cuando donde como cuanto cuanta cuantos cuantas "
    "wer wen wem wessen was wann wo wie welche welcher welches welchen welchem warum wieviel ist sind hat".split()
)
# Words that end a noun phrase on its right: verbs a question asks through ("say", "is", "was", "est", "ist").
CLAUSE_VERBS = frozenset(
    "is are was were be been has have had do does did will would can could should must may might say says said "
    "est sont était etait a ont sera fut es son fue era ha han será sera "
    "ist sind war waren wurde wird hat haben".split()
)


@dataclass(frozen=True)
class Pointers:
    """The words of one language that point back at what was named before, lower-cased with their accents ("él" is
    not "el")."""

    replaced: frozenset[str]  # pronouns standing for the document: replaced by its noun phrase ("it")
    beside: frozenset[str]  # pronouns and possessives of a party: the subject is added beside them ("she", "her")
    demonstratives: frozenset[str]  # determiners that, before a kind of document, point at the earlier one
    same: frozenset[str]  # "the same invoice", "la même facture", "dieselbe Rechnung"


POINTERS = {
    "en": Pointers(
        frozenset({"it"}),
        frozenset("she he they them him its her his their".split()),
        frozenset("this that these those the".split()),
        frozenset({"same"}),
    ),
    "fr": Pointers(
        frozenset(),
        frozenset("il elle ils elles son sa ses leur leurs".split()),
        frozenset("ce cet cette ces la le les l".split()),
        frozenset({"même", "mêmes", "meme", "memes"}),
    ),
    "es": Pointers(
        frozenset(),
        frozenset("él ella ellos ellas su sus".split()),
        frozenset("este esta estos estas ese esa esos esas aquel aquella el la los las".split()),
        frozenset({"mismo", "misma", "mismos", "mismas"}),
    ),
    "de": Pointers(
        frozenset({"er", "sie", "es"}),
        frozenset("sein seine seinen seinem seiner seines ihr ihre ihren ihrem ihrer ihres".split()),
        frozenset("diese dieser dieses diesem diesen die der das dem den".split()),
        frozenset({"dieselbe", "derselben", "dasselbe", "denselben", "demselben", "derselbe"}),
    ),
}
