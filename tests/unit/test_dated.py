"""The date a "when" question asks for, read by Hearth when the reply states another (issue 35,
held-out dev h034: "On what date were the bottles of water, blankets and laptops delivered?"
was answered with the memo's own date, "May 5, 2023")."""

from __future__ import annotations

from service.answering.grounding import dated, review
from service.answering.retrieval import Passage

# bench/heldout/files/fake-memo.pdf as the PDF loader reads it (a dev-half file)
MEMO = (
    "May 5, 2023\n"
    "To Whom it May Concern:\n"
    "There were 20,000 bottles of water, 10,000 blankets, and 200 laptops delivered on "
    "January 23,\n2023. A total of 3 trucks were used for 15 hours.\n"
    "Best Regards,\n"
    "Mallori"
)
DELIVERED = "On what date were the bottles of water, blankets and laptops delivered?"


def test_another_date_than_the_passage_gives_is_replaced_by_it() -> None:
    read = dated(DELIVERED, "May 5, 2023 [1]", {1: MEMO})
    assert read is not None
    assert (read.written, read.passage) == ("January 23, 2023", 1)
    assert "laptops delivered on January 23" in read.clause
    assert read.text().startswith("January 23, 2023 [1]: “")
    assert read.record() == "[1] January 23, 2023 (the reply said May 5, 2023)"
    # a question about the memo's own date takes the date heading it
    memo = dated("On what date was the memo written?", "January 23, 2023 [1].", {1: MEMO})
    assert memo is not None and memo.written == "May 5, 2023"


def test_a_reply_stating_that_date_none_or_declining_is_left_alone() -> None:
    for reply in (
        "They were delivered on January 23, 2023 [1].",  # the same date
        "They were delivered on 23 January 2023 [1].",  # the same day, written otherwise
        "They were delivered in winter [1].",  # no date: never made an answer by the check
        "I don't know: your documents do not say.",
    ):
        assert dated(DELIVERED, reply, {1: MEMO}) is None, reply


def test_no_date_fitting_or_two_fitting_as_well_decide_nothing() -> None:
    assert dated("When did the trucks leave the depot?", "On May 5, 2023 [1].", {1: MEMO}) is None
    two = {
        1: "The laptops were delivered on March 1, 2023.",
        2: "The laptops were delivered on April 2, 2023.",
    }
    assert dated("When were the laptops delivered?", "On May 5, 2023 [1].", two) is None
    assert dated("How many laptops were delivered?", "May 5, 2023 [1]", {1: MEMO}) is None


def test_review_shows_the_date_and_records_the_check() -> None:
    passage = Passage(
        number=1, chunk_id=1, document_id=1, path="/docs/fake-memo.pdf", file_type="pdf",
        provenance={"page": 1}, score=1.0, text=MEMO,
    )  # fmt: skip
    shown, verdict = review("May 5, 2023 [1]", [passage], question=DELIVERED)
    assert shown.startswith("January 23, 2023 [1]") and verdict.cited == [1]
    assert verdict.grounded and verdict.as_dict()["dated"] == verdict.dated
