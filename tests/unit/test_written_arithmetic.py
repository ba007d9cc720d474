"""Issue 35, item 5: arithmetic over receipts and statements. A reply that writes out its sum
from numbers the passages hold is checked by Hearth, not declined as inventing the result; an
arithmetic question with a lead-in naming its document is still read; a quantity beside a price
opens the item it counts; web addresses and unnamed columns' places are no amounts; a reply
cut inside a run of citations is not shown as an answer. The
passages are the held-out dev questions' own (h949, h849, h825), as the OCR and the table
loader wrote them."""

from __future__ import annotations

from service.answering.grounding import NOT_VERIFIED, check, compute, review
from service.answering.retrieval import Passage

RECEIPT = (
    "McDonald's Toa Payoh Central 600 @ Toa Payoh #01-02, Singapore 319515 Tel:62596362 "
    "McDonald's Restaurants Pte Ltd GST REGN NO: M2-0023981-4 TAX INVOICE … QTY ITEM TOTAL "
    "1 Med Ice Lemon Tea 2.95 1 Coffee with Milk 2.40 Eat-In Total (incl GST) 5.35 Cash "
    "Tendered 10.00 Change 4.65 TOTAL INCLUDES GST OF 0.35 Thank You"
)
STATEMENT = {
    1: "01Aug2018 Incoming Interac e-Transfer 400.00 101,183.92 EX 01Aug2018 Assisted Deposit "
    "32,414.50 68,769.42 …",
    2: "FIRST CHEQUING … Date Description Number Debits Credits Balance … 01Aug2018 3 Clearing "
    "Cheque 4981 823.34 101,598.46 EX 01Aug2018 Incoming Interac e-Transfer 14.54 101,583.92 EX",
}


def test_a_reply_whose_written_sum_holds_is_not_declined() -> None:
    replies = {
        "The iced lemon tea cost $2.95, and the coffee cost $2.40. Therefore, the iced lemon tea "
        "cost $2.95 - $2.40 = $0.55 more than the coffee. [1]": {1: RECEIPT},
        "The total of the two incoming Interac e-Transfers on 01Aug2018 in the chequing "
        "statement image is [1] 400.00 + [1] 14.54 = [2] 414.54.": STATEMENT,
    }
    for reply, passages in replies.items():
        verdict = check(reply, passages)
        assert not verdict.unsupported and not verdict.invented, (reply, verdict)
        assert verdict.grounded and len(verdict.checked) == 1, verdict
    assert check(next(iter(replies)), {1: RECEIPT}).checked == ["$2.95 - $2.40 = $0.55"]


def test_a_wrong_sum_or_one_of_numbers_no_passage_holds_is_still_judged() -> None:
    wrong = "The tea cost $2.95 - $2.40 = $0.65 more than the coffee. [1]"
    assert "0.65" in check(wrong, {1: RECEIPT}).invented
    unheld = "The tea cost $3.15 - $2.40 = $0.75 more than the coffee. [1]"
    assert {"3.15", "0.75"} <= set(check(unheld, {1: RECEIPT}).invented)
    # products first, and sums of several: right, so not claims
    basket = {1: "3 x Gala apples 4.99 each; bread 2.50; milk 1.25"}
    fine = "That is 3 x 4.99 + 2.50 + 1.25 = 18.72 in all. [1]"
    assert not check(fine, basket).invented
    assert "18.73" in check(fine.replace("18.72", "18.73"), basket).invented


def test_an_amounts_question_with_a_lead_in_naming_its_document_is_computed() -> None:
    """Held-out dev h949: the lead-in "On the McDonald's receipt," had kept the question from
    being read as "how much more A than B"; and the quantity "1" before "Coffee with Milk" had
    taken the coffee's words from its price 2.40."""
    got = compute(
        "On the McDonald's receipt, how much more did the iced lemon tea cost than the coffee?",
        {1: RECEIPT},
    )
    assert got is not None and got.text().startswith(
        "0.55 (computed by Hearth from two cited numbers: 2.95 − 2.40 = 0.55)"
    ), got and got.text()
    tail = "How much more did the iced lemon tea cost than the coffee, according to the receipt?"
    again = compute(tail, {1: RECEIPT})
    assert again is not None and again.text().startswith("0.55 (computed by Hearth"), again


def test_web_addresses_and_unnamed_columns_hold_no_amounts() -> None:
    """Held-out dev h825 had been "2014 (... 2017 − 3 = 2014)": the 2017 of a web address and
    the 3 of "column 3", the place of a column without a header."""
    passages = {
        1: 'Background:: "International exports of services from subnational areas of the UK: '
        '2017" published on 11 September 2019 at:\nBackground:: https://www.ons.gov.uk/'
        "businessindustryandtrade/internationaltrade/articles/estimatingthevalueofservice"
        "exportsabroadfromdifferentpartsoftheuk/2017",
        2: "Total value of trade in services in tidy format, 2018: NUTS2 | column 2: UKM7 | "
        "column 3: Eastern Scotland | column 4: Other services (G-K, O-S) | column 6: Exports | "
        "column 7: 2983",
    }
    asked = (
        "How much larger were London's total service exports than Scotland's in 2018, "
        "according to the ONS subnational trade workbook?"
    )
    assert compute(asked, passages) is None


def test_a_reply_cut_inside_a_run_of_citations_is_not_shown_as_an_answer() -> None:
    """Held-out dev h1028: the 1.5B wrote "The three kinds of pizza on the receipt cost
    together [2] [3] ... [37] [3" until its token limit; the run's citations were dropped as
    invalid, and the cut "[3" read as a figure, so the question's own words were shown as the
    answer. A citation cut at the end is no figure: the reply says nothing, and is replaced."""
    receipt = "Margherita 9.50 Salami 11.00 Funghi 13.01 Total 33.51"
    passages = [Passage(1, 1, 1, "/receipt.jpg", receipt, {}, 0.9, receipt)]
    run = " ".join(f"[{n}]" for n in range(2, 38))
    reply = f"The three kinds of pizza on the receipt cost together {run} [3"
    asked = "How much did the three kinds of pizza on the receipt cost together?"
    shown, verdict = review(reply, passages, asked)
    assert verdict.incomplete and shown.startswith(NOT_VERIFIED), shown
