"""Issue 35, item 5: the total of the items a question counts ("How much did the three kinds of
pizza cost together?"), computed by Hearth from the receipt's lines and shown with each line
cited (held-out dev h1028: the model wrote a run of citations, then "$2,608.20" from an
invoice)."""

from __future__ import annotations

from service.answering.grounding import compute

#: demo_kie.jpeg's first chunk as OCR reads it (bench/heldout/files).
ORDER = (
    "7/30/2012 8:27:32 PM\nOrder 113533 Cashier: Eric H\n1 Grande Meal 9.90 PC GIVEAWAY ON BACK\n"
    "10 Bean Bur 0.00\n1 Grande Meal 9.90\n10 Bean Bur 0.00\n10 No Onions 0.00\n"
    "1 Sft Tac Party Pk 10.00\n12 Sft Taco Bf 0.00\n1 Taco Party Pack 10.00\n"
    "12 Crunchy Taco 0.00\n26 Med Drink 43.94\n3 Supreme Pizza 11.97\n3 Pepperoni Pizza 11.07\n"
    "3 Cheese Pizza 10.47"
)
TOTALS = "SubTotal 117.25\nTax 11.02\nTotal 128.27\nMaster Card 128.27"


def test_the_items_a_question_counts_are_added_and_each_line_cited() -> None:
    got = compute(
        "How much did the three kinds of pizza on the receipt cost together?",
        {1: ORDER, 2: TOTALS},
    )
    assert got is not None and got.result == 33.51, got
    assert got.formula() == "11.97 + 11.07 + 10.47 = 33.51"
    assert got.text() == (
        "33.51 (computed by Hearth from three cited numbers: 11.97 + 11.07 + 10.47 = 33.51). "
        "11.97: “3 Supreme Pizza 11.97” [1]. 11.07: “3 Pepperoni Pizza 11.07” [1]. "
        "10.47: “3 Cheese Pizza 10.47” [1]."
    )
    # the same lines in two overlapping passages are counted once
    again = compute("What would the three pizzas cost together?", {1: ORDER, 3: ORDER})
    assert again is not None and again.result == 33.51 and again.passages == [1], again


def test_no_total_when_the_count_does_not_fit() -> None:
    # three pizzas on the receipt, two asked: not Hearth's to choose which
    assert compute("How much did the two kinds of pizza cost together?", {1: ORDER}) is None
    # a unit price beside each line's total: four sums for two items
    lines = {1: "2 Bettwäsche Jersey 22,99 45,98\n1 Bettwäsche Satin 19,99 19,99"}
    assert compute("How much did the two Bettwäsche cost together?", lines) is None
    # nothing named like the items
    assert compute("How much did the three kinds of soup cost together?", {1: ORDER}) is None


def test_a_quoted_line_s_own_bracketed_number_is_no_citation() -> None:
    """A scanned receipt's "SUMME [3] EUR 152,00" quoted as an input would read as a citation
    of passage 3; it is quoted "(3)"."""
    lines = {2: "1 Bodenunterlage SELIT [3] 92,50\n1 Bodenunterlage PRO [3] 41,00\nSUMME 133,50"}
    got = compute("How much did the two kinds of Bodenunterlage cost together?", lines)
    assert got is not None and got.result == 133.5, got
    assert "[3]" not in got.text() and "(3) 92,50" in got.text(), got.text()
