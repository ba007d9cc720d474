"""Which language a question is translated into before fitting (service/answering/orchestration/
_crosslingual.py): the language its passages are written in, when the question is not, read by
lingua's detectors (real models, inside the wheel)."""

from __future__ import annotations

from service.answering.orchestration import language_label, passages_language
from service.answering.retrieval import Passage

FRENCH = (
    "Je veux dire, est-ce que le rapport qu'on a au smartphone est comparable à celui qu'on "
    "entretenait à d'autres objets techniques comme la voiture ou le téléphone ?"
)
FRENCH_2 = (
    "Ça faisait déjà vingt ans que les ordinateurs nous apprenaient à cliquer sur des icônes, "
    "mais le smartphone ajoute le toucher."
)
ENGLISH = (
    "The spare bike lock code is 4712. It is kept in the drawer of the kitchen table, next to "
    "the torch and the spare keys."
)
SHEET = "NYMEX Month: 10-Day High | December 2001: 3.339 | January 2002: 3.464 | February 2002: 3.2"
QUESTION = (
    "According to the smartphone recording, for how many years had computers been teaching us?"
)


def _passages(*texts: str) -> list[Passage]:
    return [Passage(i, i, i, f"f{i}.txt", "text", {}, 0.5, t) for i, t in enumerate(texts, 1)]


def test_an_english_question_over_french_passages_is_put_into_french() -> None:
    assert passages_language(QUESTION, _passages(FRENCH, FRENCH_2, ENGLISH)) == "FRENCH"
    # the best passage French, the others not: still French
    assert passages_language(QUESTION, _passages(FRENCH, ENGLISH, ENGLISH)) == "FRENCH"
    assert language_label("FRENCH") == "French"


def test_no_translation_when_the_passages_are_in_the_questions_language() -> None:
    assert passages_language("Where is the spare bike lock code kept?", _passages(ENGLISH)) is None
    question = "Est-ce que le smartphone est comparable à la voiture, selon l'enregistrement ?"
    assert passages_language(question, _passages(FRENCH, FRENCH_2)) is None


def test_a_minority_language_after_the_best_passage_is_no_reason() -> None:
    assert passages_language(QUESTION, _passages(ENGLISH, FRENCH, ENGLISH, ENGLISH)) is None


def test_a_table_read_as_some_language_is_no_reason() -> None:
    # lingua's low-accuracy mode reads such rows as Yoruba; a script or language the bundled
    # model does not write, or one not confirmed against English, is never a target
    assert (
        passages_language("What was the NYMEX 10-Day High for January 2002?", _passages(SHEET))
        is None
    )


def test_a_question_in_another_language_over_english_passages_is_put_into_english() -> None:
    question = "Wie lautet der Code für das Fahrradschloss in der Küche?"
    assert passages_language(question, _passages(ENGLISH, ENGLISH)) == "ENGLISH"
    # a short English question full of names reads as German: never translated
    assert (
        passages_language("What is Robert Schneider AG's mobile number?", _passages(ENGLISH))
        is None
    )


def test_a_table_in_another_language_is_no_reason() -> None:
    """Dev h722, h502: the German invoice's and the Spanish export table's questions,
    translated, were answered from a neighbouring cell; rows are matched by their names and
    figures, which translation does not change."""
    rows = (
        "Ventes (rows 2-4)\nProduit: Boîte aux lettres | Prix unitaire: 3,89 | Quantité: 10 | "
        "Remarque: facturé chaque mois, sans engagement de durée et sans frais de mise en service"
    )
    sheet = Passage(1, 1, 1, "ventes.xlsx", "xlsx", {"sheet": "Ventes", "rows": "2-4"}, 0.5, rows)
    assert passages_language(QUESTION, [sheet]) is None
    assert passages_language(QUESTION, [sheet, *_passages(FRENCH)]) == "FRENCH"
