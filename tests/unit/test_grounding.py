"""The grounding check on hand-made answers."""

from __future__ import annotations

from service.answering.grounding import check, claims, strip_invalid
from service.answering.prompts import DONT_KNOW

PASSAGES = {
    1: "Patented in 1868 by Christopher Latham Sholes, the typewriter changed offices.",
    2: "IBM introduced the Selectric typewriter in 1961.",
}


def test_claims_are_names_and_numbers_not_sentence_openers() -> None:
    assert claims("The typewriter was patented by Christopher Sholes in 1868 [1].") == [
        "1868",
        "Christopher",
        "Sholes",
    ]
    assert claims("It cost 1,250 crowns.") == ["1,250"]


def test_supported_answer_is_grounded() -> None:
    g = check("Christopher Latham Sholes patented it in 1868 [1].", PASSAGES)
    assert g.grounded and g.cited == [1] and g.unsupported == []


def test_invented_name_is_flagged() -> None:
    g = check("The typewriter was patented by Alexander Dey in 1868 [1].", PASSAGES)
    assert not g.grounded and g.unsupported == ["Alexander", "Dey"]


def test_number_from_another_passage_is_flagged() -> None:
    g = check("Sholes patented the typewriter in 1961 [1].", PASSAGES)
    assert g.unsupported == ["1961"]


def test_citation_of_a_passage_not_retrieved_is_dropped_and_flagged() -> None:
    g = check("IBM introduced the Selectric in 1961 [2][7].", PASSAGES)
    assert g.cited == [2] and g.invalid_citations == [7] and not g.grounded
    assert (
        strip_invalid("IBM did it in 1961 [2][7].", g.invalid_citations)
        == "IBM did it in 1961 [2]."
    )


def test_uncited_answer_is_not_grounded_but_declining_is() -> None:
    assert not check("Sholes did, in 1868.", PASSAGES).grounded
    g = check(DONT_KNOW, PASSAGES)
    assert g.grounded and g.declined


def test_accents_and_case_do_not_matter() -> None:
    g = check("It was built in Zürich [1].", {1: "The machine was built in ZURICH."})
    assert g.grounded
