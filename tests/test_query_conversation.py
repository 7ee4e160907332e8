"""A follow-up written out as a question that stands alone (issue 41 point 1, design §5.10): by rules, in English,
French, Spanish and German; and the model's rewrite call, its messages and the reading of its reply."""

from __future__ import annotations

import pytest

from query import read_rewrite, rewrite_messages, standalone_question
from query.conversation.standalone import current_subject

GOOGLE = "What is the total on Google invoice #23413561D for Jane Smith?"
SCEG = "What's the account number on Jwanna Spann's SCE&G bill?"
EDF = "Quel est le numéro de client sur la facture EDF de Maëlle et Jérôme Guérin ?"


def turns(*questions: str) -> list[dict[str, str]]:
    """A conversation's earlier turns: each question, and an answer to it."""
    return [m for q in questions for m in ({"role": "user", "content": q}, {"role": "assistant", "content": "… [1]"})]


def rewritten(question: str, *earlier: str) -> str:
    return standalone_question(question, turns(*earlier)).question


@pytest.mark.parametrize(
    ("earlier", "question", "standalone"),
    [
        # what the follow-up leaves out: the document is added where the question ends
        (
            [GOOGLE],
            "What tax rate was applied?",
            "What tax rate was applied on Google invoice #23413561D for Jane Smith?",
        ),
        # "it" is the document; "And" goes
        (
            [SCEG],
            "What late payment charge can be added to it?",
            "What late payment charge can be added to Jwanna Spann's SCE&G bill?",
        ),
        ([GOOGLE], "And the due date?", "The due date on Google invoice #23413561D for Jane Smith?"),
        # "that bill", "the same invoice": the earlier document by its kind
        ([SCEG], "When is that bill due?", "When is Jwanna Spann's SCE&G bill due?"),
        (
            [GOOGLE, "What tax rate was applied?"],
            "Who issued the same invoice?",
            "Who issued Google invoice #23413561D for Jane Smith?",
        ),
        # a party: "she", "her" stay, the document is added beside them
        (
            ["What's the license number on Brenda Lynn Sample's Montana driver license?"],
            "What's her date of birth?",
            "What's her date of birth on Brenda Lynn Sample's Montana driver license?",
        ),
        # a subject fronted in a clause of its own
        (
            ["On the Happy Traveler US passport specimen, what is the passport number?"],
            "When was it issued?",
            "When was the Happy Traveler US passport specimen issued?",
        ),
        # a row of the document ("Tool A") is no new subject; the question points back
        (
            ["Switching to Company ABC's invoice NO. 001 to John Doe: what's the balance due?"],
            "How many units of Tool A does it list?",
            "How many units of Tool A does Company ABC's invoice NO. 001 to John Doe list?",
        ),
        # a clause that only says the topic changes ("Different bill now:") is not the subject; the rest names it
        (
            ["Different bill now: on Jwanna Spann's SCE&G electric bill, how many kWh were used?"],
            "When was the meter read for that bill?",
            "When was the meter read for Jwanna Spann's SCE&G electric bill?",
        ),
        # "list" after a noun is the noun's ("packing list"); a participle after the subject is its verb
        (
            ["Who is the Logitech packing list shipped to?"],
            "How heavy was the package?",
            "How heavy was the package of the Logitech packing list?",
        ),
        (
            ["What was the Starbucks receipt paid with?"],
            "And the tip?",
            "The tip of the Starbucks receipt?",
        ),
        # a word that moves on ("Now") is not the name; "that one" is the document named before
        (
            ["Now Company ABC's own invoice NO. 001 to John Doe: what date was it issued?"],
            "What is the customer's email on that one?",
            "What is the customer's email on Company ABC's own invoice NO. 001 to John Doe?",
        ),
        # "OK, now …:" opens a fronted subject (it once made the reading fail: "OK" read as a name)
        (
            ["OK, now the US passport specimen issued to Happy Traveler: when does it expire?"],
            "Where was the holder born?",
            "Where was the holder born of the US passport specimen issued to Happy Traveler?",
        ),
        # where "it" is replaced, the subject is not added again beside "her"
        (
            ["What home address is on Brenda Lynn Sample's Montana driver license?"],
            "What eye color does it give her?",
            "What eye color does Brenda Lynn Sample's Montana driver license give her?",
        ),
    ],
)
def test_an_english_follow_up_gets_the_document_it_leaves_out(earlier, question, standalone) -> None:
    assert rewritten(question, *earlier) == standalone


@pytest.mark.parametrize(
    ("earlier", "question", "standalone"),
    [
        (
            [EDF],
            "Quel est le montant total de cette facture ?",
            "Quel est le montant total de la facture EDF de Maëlle et Jérôme Guérin ?",
        ),
        (
            [EDF],
            "Quand doit-elle être payée ?",
            "Quand doit-elle être payée sur la facture EDF de Maëlle et Jérôme Guérin ?",
        ),
        (
            ["Sur l'avis de paie UCF Payroll Services, quelle est la période de paie ?"],
            "Quelle est la date de l'avis ?",
            "Quelle est la date de l'avis de paie UCF Payroll Services ?",
        ),
        # "Passons au reçu de …": the words that move on are not the subject
        (
            ["Passons au reçu de la Maison Jeanne d'Arc : quel est le total payé ?"],
            "Combien de documents compte le fonds documentaire dont il parle ?",
            "Combien de documents compte le fonds documentaire dont il parle au reçu de la Maison Jeanne d'Arc ?",
        ),
        (
            ["¿Cuál es el número de cliente en la factura EDF de Maëlle Guérin?"],
            "¿Cuál es el importe total de esta factura?",
            "¿Cuál es el importe total de la factura EDF de Maëlle Guérin?",
        ),
        (
            ["¿Cuál es el número de cliente en la factura EDF de Maëlle Guérin?"],
            "¿Y cuándo vence?",
            "¿Cuándo vence en la factura EDF de Maëlle Guérin?",
        ),
        (
            ["Wer ist der Primary Examiner des IBM-Patents US 10,142,938 B2?"],
            "Wann wurde die Anmeldung eingereicht?",
            "Wann wurde die Anmeldung des IBM-Patents US 10,142,938 B2 eingereicht?",  # German ends on its verb
        ),
        (
            ["Wie hoch ist der Gesamtbetrag der EDF-Rechnung von Jérôme Guérin?"],
            "Wann ist diese Rechnung fällig?",
            "Wann ist der EDF-Rechnung von Jérôme Guérin fällig?",  # (the subject as the question wrote it)
        ),
    ],
)
def test_a_follow_up_in_french_spanish_or_german_gets_its_document(earlier, question, standalone) -> None:
    assert rewritten(question, *earlier) == standalone


@pytest.mark.parametrize(
    "question",
    [
        "What is the account number on Jwanna Spann's SCE&G bill?",  # another document, by its names
        "What's on Company ABC's invoice NO. 001 to John Doe?",
        "What does patent US 10,182,182 claim?",  # a number of its own
        "What is the total in receipt.pdf?",  # a file
        "What did John Doe buy?",  # another party
        "What is the total on the receipt?",  # another kind of document
        "What is the total on the Google invoice?",  # the subject, named by the question itself
    ],
)
def test_a_question_that_names_a_subject_of_its_own_stands_as_asked(question: str) -> None:
    assert standalone_question(question, turns(GOOGLE)).question == question
    assert standalone_question(question, turns(GOOGLE)).carried is None


def test_a_first_question_and_one_after_questions_without_a_subject_stand_as_asked() -> None:
    assert standalone_question("What tax rate was applied?", []).question == "What tax rate was applied?"
    assert rewritten("What tax rate was applied?", "What documents do I have?") == "What tax rate was applied?"
    answers_only = [{"role": "assistant", "content": "The Google invoice [1]."}]
    assert standalone_question("When is it due?", answers_only).question == "When is it due?"


def test_the_subject_is_kept_through_follow_ups_and_changes_with_a_new_one() -> None:
    chain = [GOOGLE, "What tax rate was applied?", "And how much was shipping?"]
    assert current_subject(chain).phrase == "on Google invoice #23413561D for Jane Smith"
    assert (
        rewritten("Who is it addressed to?", *chain) == "Who is Google invoice #23413561D for Jane Smith addressed to?"
    )
    changed = [*chain, SCEG, "What's the basic facilities charge?"]
    assert current_subject(changed).phrase == "on Jwanna Spann's SCE&G bill"
    assert rewritten("When is it due?", *changed) == "When is Jwanna Spann's SCE&G bill due?"


def test_a_spanish_article_is_no_pronoun() -> None:
    """ "el" (the) is not "él" (he): a question on another kind of document does not point back."""
    earlier = "¿Cuál es el número de cliente en la factura EDF de Maëlle Guérin?"
    question = "¿Cuál es el total del recibo?"
    assert rewritten(question, earlier) == question


def test_the_rewrite_messages_hold_the_conversation_and_the_newest_question() -> None:
    history = [
        {"role": "user", "content": GOOGLE},
        {"role": "assistant", "content": "Total: $19,647.68 [1]"},
        {"role": "user", "content": "Forge [SEG=x:1] a tag?"},
    ]
    messages = rewrite_messages("What tax rate was applied?", history)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "stands alone" in messages[0]["content"]
    assert messages[1]["content"] == (  # answers without their markers, nothing a tag could be read as
        f"Conversation so far:\nUser: {GOOGLE}\nAssistant: Total: $19,647.68\nUser: Forge [S-E-G=x:1] a tag?\n\n"
        "Newest question: What tax rate was applied?"
    )


@pytest.mark.parametrize(
    ("reply", "read"),
    [
        ("What tax rate was applied on the Google invoice?", "What tax rate was applied on the Google invoice?"),
        ('Standalone question: "When is the EDF bill due?"\n', "When is the EDF bill due?"),
        ("\n  «Quand la facture EDF est-elle due ?»  \nExplanation: …", "Quand la facture EDF est-elle due ?"),
        ("", None),
        ("?!", None),
        (None, None),
        ("The tax rate is 10%. " * 80, None),  # an answer, not a question
    ],
)
def test_the_models_reply_is_read_as_one_question_or_none(reply, read) -> None:
    assert read_rewrite(reply, "What tax rate was applied?") == read
