"""Numbers an answer states that no passage holds (issue 35, held-out dev traps h074, h075:
"The St. Moritz bob-run was first built in 1894." and "... is [2] 100 kg." from an e-book that
gives neither): ``grounding.invented``, and the reply is replaced by the passages."""

from __future__ import annotations

from service.answering.grounding import NOT_VERIFIED, check, invented, review
from service.answering.retrieval import Passage

BOB = (
    "Of these the two most famous are the St. Moritz bob-run, which starts by the Bandy rink and "
    "finishes side by side with the Cresta ice-run, and the Schatz-alp run at Davos."
)
MEMO = "There were 20,000 bottles of water delivered on January 23, 2023 by 3 trucks."


def test_a_number_no_passage_holds_is_invented() -> None:
    assert invented("[1] The St. Moritz bob-run was first built in 1894.", [BOB]) == ["1894"]
    verdict = check("[1] The St. Moritz bob-run was first built in 1894.", {1: BOB})
    assert verdict.invented == ["1894"] and not verdict.grounded
    assert verdict.as_dict()["invented"] == ["1894"]


def test_numbers_held_asked_written_otherwise_or_one_digit_are_not() -> None:
    for answer in (
        "20000 bottles were delivered [1].",  # commas dropped
        "They arrived on 2023-01-23 [1].",  # the same day, written another way
        "They came in 4 trucks [1].",  # one digit: counts are often words in the passage
        "The 2024 report does not say; 20,000 bottles [1].",  # 2024 is the question's
    ):
        assert invented(answer, [MEMO], "What did the 2024 report say?") == [], answer
    # a label (a file named for its month) or a whole chunk cut for the prompt holds it
    assert invented("12,425 checks in 2015 [1].", ["Washington: 12,425", "nics-2015-11.pdf"]) == []


def test_review_replaces_an_answer_with_an_invented_number() -> None:
    passage = Passage(
        number=1, chunk_id=1, document_id=1, path="/docs/winter-sports.epub", file_type="epub",
        provenance={}, score=1.0, text=BOB,
    )  # fmt: skip
    question = "In what year was the St. Moritz bob-run first built?"
    shown, verdict = review("[1] It was first built in 1894.", [passage], question=question)
    assert shown.startswith(NOT_VERIFIED) and verdict.invented == ["1894"]


def test_a_number_the_passage_writes_in_words_is_held_in_any_of_its_languages() -> None:
    """The bundled model answers "20" from "vingt ans" (a French recording's transcript) and
    "20 years" from "twenty years": both were replaced as invented numbers."""
    cases = {
        "He had waited 20 years [1].": "He had waited twenty years for the letter.",
        "It cost 1500 dollars [1].": "It cost fifteen hundred dollars.",
        "Cela faisait 20 ans [1].": "Cela faisait alors vingt ans que je vivais ici.",
        "Es dauerte 30 Jahre [1].": "Es dauerte dreißig Jahre.",
        "Sono passati 21 anni [1].": "Sono passati ventuno anni.",
    }
    for answer, passage in cases.items():
        assert invented(answer, [passage]) == [], answer
    assert invented("He had waited 30 years [1].", [cases["He had waited 20 years [1]."]]) == ["30"]
