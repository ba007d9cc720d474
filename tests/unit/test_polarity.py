"""grounding.polarity: a "Yes" whose passage sentence negates the question becomes "No".

The first cases are the shapes the held-out dev set's negation questions showed (the 1.5B said
"Yes" to each); the rest are where it must not fire."""

from __future__ import annotations

from service.answering.grounding import polarity, review
from service.answering.retrieval import Passage

LOREM = (
    "Where does it come from? Contrary to popular belief, Lorem Ipsum is not simply random text. "
    "It has roots in a piece of classical Latin literature from 45 BC."
)
PORTS = (
    "A faceplate port that has been allocated to a PXC can't be used directly by an IP "
    "interface; configure a PXC sub-port instead."
)


def test_a_yes_the_passage_negates_becomes_no_with_the_sentence_cited() -> None:
    found = polarity("Is Lorem Ipsum simply random text?", "Yes, it is [1].", {1: LOREM})
    assert found is not None and found.passage == 1
    assert "is not simply random text" in found.text()
    assert found.text().startswith("No.") and found.text().endswith("[1]")


def test_a_contracted_negation_counts() -> None:
    question = "Can an IP interface use a faceplate port that has been allocated to a PXC directly?"
    found = polarity(question, "Yes [2].", {1: LOREM, 2: PORTS})
    assert found is not None and found.passage == 2


def test_it_does_not_fire_when_the_sentence_affirms() -> None:
    passage = "Lorem Ipsum is simply dummy text of the printing and typesetting industry."
    assert polarity("Is Lorem Ipsum simply dummy text?", "Yes [1].", {1: passage}) is None


def test_it_never_turns_a_no_into_a_yes_or_touches_other_questions() -> None:
    assert polarity("Is Lorem Ipsum simply random text?", "No, it is not [1].", {1: LOREM}) is None
    assert polarity("What is Lorem Ipsum?", "Yes [1].", {1: LOREM}) is None
    # a choice, and a question that carries its own negation
    assert polarity("Is Lorem Ipsum random text or Latin?", "Yes [1].", {1: LOREM}) is None
    assert polarity("Isn't Lorem Ipsum simply random text?", "Yes [1].", {1: LOREM}) is None


def test_not_only_adds_rather_than_negates() -> None:
    passage = "The plan covers not only dental care but also vision care for every member."
    assert polarity("Does the plan cover vision care?", "Yes [1].", {1: passage}) is None


def test_a_sentence_holding_too_few_of_the_words_decides_nothing() -> None:
    passage = "The text is not random."
    assert polarity("Is Lorem Ipsum simply random filler text?", "Yes [1].", {1: passage}) is None


def test_sentences_that_disagree_equally_decide_nothing() -> None:
    passages = {
        1: "The 2022 policy does not cover flood damage.",
        2: "The 2023 policy does cover flood damage.",
    }
    assert polarity("Does the policy cover flood damage?", "Yes [2].", passages) is None


def test_review_shows_the_no_and_records_the_check() -> None:
    passage = Passage(
        number=1,
        chunk_id=1,
        document_id=1,
        path="/docs/lorem.odt",
        file_type="odt",
        provenance={},
        score=1.0,
        text=LOREM,
    )
    shown, verdict = review("Yes [1].", [passage], question="Is Lorem Ipsum simply random text?")
    assert shown.startswith("No.") and verdict.cited == [1]
    assert verdict.polarity and verdict.grounded
    assert verdict.as_dict()["polarity"] == verdict.polarity
