"""Issue 35, items 3 and 5: amounts computed by Hearth from two cited numbers (a difference,
a total, a percentage difference), and documents named by their author or sender and their
date (what a document's head says of it; what a question says of a document)."""

from __future__ import annotations

from dataclasses import replace

from service.answering.grounding import compute, review
from service.answering.retrieval import (
    Passage,
    dates_named,
    head_of,
    people_named,
    titles_named,
)

DELIVERY = (
    "MEMORANDUM\nMay 5, 2023\nTo Whom it May Concern:\n"
    "On January 23, 2023 we delivered 10,000 blankets, 2,500 laptops and 1,200 bottles of water "
    "to the shelter [1]."
)
SALES = (
    "Zone: Zone NA | Sales: 12,553 | Trading operating profit: 2,391\n"
    "Zone: Zone EUR | Sales: 9,875 | Trading operating profit: 1,527\n"
    "Zone: Zone GC | Sales: 1,280 | Trading operating profit: 290"
)


def test_how_many_more_is_the_difference_of_the_two_cited_amounts() -> None:
    got = compute("How many more blankets than laptops were delivered?", {1: DELIVERY})
    assert got is not None
    assert got.text().startswith(
        "7500 (computed by Hearth from two cited numbers: 10,000 − 2,500 = 7500)"
    ), got.text()
    assert (got.later.passage, got.earlier.passage) == (1, 1)
    assert "10,000 blankets" in got.later.clause and "2,500 laptops" in got.earlier.clause
    fewer = compute("How many fewer laptops than blankets were delivered?", {1: DELIVERY})
    assert fewer is not None and fewer.result == 7500


def test_amounts_in_table_rows_are_read_by_row_and_column() -> None:
    passages = {1: SALES, 2: "The group's sales grew in every zone."}
    more = compute("How much more were the sales of Zone NA than the sales of Zone EUR?", passages)
    assert more is not None and more.formula() == "12,553 - 9,875 = 2678", more
    total = compute("What were the total sales of Zone EUR and Zone GC?", passages)
    assert total is not None and total.formula() == "9,875 + 1,280 = 11155", total
    share = compute(
        "By what percentage was the trading operating profit of Zone NA higher than that of "
        "Zone EUR?",
        passages,
    )
    assert share is not None and share.result == 56.6, share  # (2391 - 1527) / 1527
    assert share.text().startswith("56.6% (computed by Hearth"), share.text()
    lower = compute(
        "By what percentage were Zone GC's sales lower than Zone EUR's sales?", passages
    )
    assert lower is not None and lower.result == 87 and lower.base is not None, lower
    assert lower.base.written == "9,875"  # (9875 - 1280) / 9875


def test_no_amount_is_computed_when_an_input_is_missing_or_contradicts() -> None:
    assert compute("How many more tents than laptops were delivered?", {1: DELIVERY}) is None
    assert compute("How many more laptops than blankets were delivered?", {1: DELIVERY}) is None
    # a year, a date or a citation number is no amount
    assert compute("How many more blankets than days were delivered?", {1: DELIVERY}) is None
    assert compute("What are the blankets and laptops?", {1: DELIVERY}) is None


def test_a_document_head_names_its_sender_and_date() -> None:
    email = head_of(
        "From: Mallori Harrell <mallori@example.com>\nSubject: Family Day\n\nHi all",
        {
            "from": "Mallori Harrell <mallori@example.com>",
            "date": "Wed, 21 Dec 2022 10:28:53 -0600",
        },
    )
    assert {"mallori", "harrell"} <= email.people and (12, 21, 2022) in email.dates
    memo = head_of("MEMORANDUM\nMay 5, 2023\nFROM: Ann Lee\nOn January 23, 2023 we met.", {})
    assert "lee" in memo.people and memo.dates == {(5, 5, 2023)}  # not the date in the prose


def test_a_question_names_a_document_by_its_author_or_date() -> None:
    assert people_named("What does Mallori's e-mail with attachments say?") == [{"mallori"}]
    assert people_named("In the paper by Backus, what is a cell?") == [{"backus"}]
    assert people_named("What budget does the e-mail from Priya Shah propose?") == [
        {"priya", "shah"}
    ]
    # held-out batch 5 dev h539: a forward, a reply, a post are documents someone sent
    forward = "In Rob Hartill's forward, who does he suggest could be pestered by the poster?"
    assert people_named(forward) == [{"rob", "hartill"}]
    assert people_named("What did Tamir's reply say about the exam?") == [{"tamir"}]
    assert people_named("What is Robert Schneider's mobile number?") == []
    assert people_named("How many jobs did Reliance create from 2020?") == []
    assert dates_named("What did the memo of March 3 decide?") == [(3, 3, None)]
    assert dates_named("What does the e-mail dated 21 December 2022 say?") == [(12, 21, 2022)]
    assert dates_named("What did the May 5, 2023 memo say?") == [(5, 5, 2023)]
    assert dates_named("On what date were the blankets delivered?") == []
    assert dates_named("What happened on January 23, 2023?") == []


def test_a_quoted_subject_names_its_document() -> None:
    email = head_of("From: Alice <a@x.org>\nSubject: Email with Attachment\nHello", {})
    assert email.titles == {"email with attachment"}
    assert titles_named("Who sent the e-mail 'Email with Attachment'?") == ["email with attachment"]
    assert titles_named("What does Alice's e-mail to Bob's team say?") == []


PLAN = (
    "TREATMENT PLAN\n2. HYPERTENSION:\n- Increase Lisinopril from 10mg to 20mg once daily\n"
    "- Home blood pressure monitoring twice daily\n- Target BP: <130/80 mmHg"
)


def test_a_change_written_from_a_to_b_is_computed_with_its_clause_cited() -> None:
    """Issue 35, item 5: "by how much did X rise" from "from A to B" (a held-out dev fault: the
    model answered the new dose, not the change)."""
    got = compute("By how many mg per day does the plan raise the Lisinopril dose?", {3: PLAN})
    assert got is not None and (got.result, got.unit) == (10, "mg"), got
    assert got.text() == (
        "10 mg (computed by Hearth from two cited numbers: 20mg − 10mg = 10). 20mg and 10mg: "
        "“- Increase Lisinopril from 10mg to 20mg once daily” [3]."
    )
    share = compute("By what percentage was the Lisinopril dose increased?", {3: PLAN})
    assert share is not None and (share.result, share.unit) == (100, "%"), share
    debt = {1: "Net debt was reduced from CHF 1,234.5 million to CHF 1,100.0 million."}
    fall = compute("By how much did net debt fall?", debt)
    assert (
        fall is not None and fall.formula() == "1,234.5 million - 1,100.0 million = 134.5 million"
    )
    rate = compute(
        "By how much did the jobless rate fall?", {1: "The jobless rate fell from 5.5% to 4.0%."}
    )
    assert rate is not None and rate.text().startswith("1.5 percentage points"), rate


def test_no_change_is_computed_against_the_question() -> None:
    assert compute("How much did the Lisinopril dose fall?", {3: PLAN}) is None  # it rose
    assert compute("By how much did the monitoring rise?", {3: PLAN}) is None  # another item
    assert compute("By how much did the price of aspirin rise?", {3: PLAN}) is None
    period = {1: "Revenue grew from 2019 to 2021 by 4%."}
    assert compute("How much did revenue grow?", period) is None  # a period, not the change
    # percentage points or a relative change: the question does not say which
    assert compute("By what percentage did the rate fall?", {1: "It fell from 5% to 4%."}) is None


def test_percentage_points_of_shares_written_in_words() -> None:
    """ "By how many percentage points ... from A to B" over shares written "61.5 percent":
    their difference in points (it had been read as a relative change, 26.8%); a percentage
    asked of them stays refused (points or relative: not said), one of amounts is relative."""
    homes = {
        2: "The share of homes with broadband rose from 61.5 percent in 2015 to 78.0 percent "
        "in 2021, the survey found."
    }
    points = compute(
        "By how many percentage points did the share of homes with broadband rise from 2015 "
        "to 2021?",
        homes,
    )
    assert points is not None and (points.result, points.unit) == (16.5, "percentage points")
    assert points.formula() == "78.0 percent - 61.5 percent = 16.5 percentage points", points
    plain = compute("By how much did the share of homes with broadband rise?", homes)
    assert plain is not None and plain.unit == "percentage points", plain
    assert compute("By what percentage did the share of homes with broadband rise?", homes) is None
    index = {1: "The index rose from 120 points to 150 points."}
    score = compute("By how many points did the index rise?", index)
    assert score is not None and (score.result, score.unit) == (30, "points"), score


def test_what_was_spent_adds_sums_of_money_only() -> None:
    """Held-out dev h324 ("How much did I spend at Roller and at Hornbach together?" over two
    scanned receipts) was answered "549 (... 2 + 547 = 549)": a quantity and a store's branch
    number. A question on what was spent, paid or cost takes sums of money only."""
    hornbach = {
        1: "HORNBACH Baumarkt AG Filiale 547\nHeisenbergstr. 2",
        2: "2 Rolle x 4,85 9,70\nBodenunterlage SELIT 5 St x 18,50 92,50\nSUMME EUR 152,00",
        3: "ROLLER\nSenefelder Straße 2\nSumme 59,96",
    }
    assert compute("How much did I spend at Roller and at Hornbach together?", hornbach) is None
    bills = {
        1: "Lamp from Nordlys: EUR 45,50 paid by card.",
        2: "Rug from Kelim House: 120.00 € paid in cash; 2 rugs in stock.",
    }
    got = compute("How much did I pay for the lamp and the rug in total?", bills)
    assert got is not None and got.text().startswith("165.5 (computed by Hearth"), got.text()


# The head of a paper as its PDF's first chunk reads (held-out batch 6, naacl06-shinyama.pdf).
PAPER = (
    "Preemptive Information Extraction using Unrestricted Relation Discovery\n"
    "Yusuke Shinyama Satoshi Sekine\nNew York University\n715, Broadway, 7th Floor\n"
    "{yusuke,sekine}@cs.nyu.edu\nAbstract\nWe are trying to extend the boundary of"
)


def test_a_papers_byline_names_its_authors() -> None:
    assert {"yusuke", "shinyama", "satoshi", "sekine"} <= head_of(PAPER, {}).people
    assert not {"new", "york", "university"} & head_of(PAPER, {}).people  # an affiliation
    olap = "Résumés et interrogations\nJulien Aligon∗, Patrick Marcel∗, Elsa Negre∗\nRésumé. Une"
    assert head_of(olap, {}).people == {"julien", "aligon", "patrick", "marcel", "elsa", "negre"}
    nature = "LETTERS\nThe role of mentorship\nR. Dean Malmgren1,2, Julio M. Ottino1,3 & Luís A."
    assert {"malmgren", "ottino", "luis"} <= head_of(nature, {}).people
    prose = "Title\nThe keeper lit the lamp at dusk, as Anna Berg wrote.\nAbstract"
    assert head_of(prose, {}).people == set()  # a sentence is no byline


def test_a_question_naming_a_papers_authors_names_the_paper() -> None:
    """Held-out batch 6 dev h627: "How many basic clusters did Shinyama and Sekine obtain?" was
    declined, "No passage mentions Sekine": the passage with the count (page 6) names neither
    author; its document's byline does. Authors of no given passage are still unmentioned."""
    page6 = "We obtained 5,543 basic clusters from the articles of the collection."
    passage = Passage(1, 9, 4, "/papers/naacl06-shinyama.pdf", "pdf", {"page": 6}, 0.7, page6)
    question = "How many basic clusters did Shinyama and Sekine obtain in their experiment?"
    reply = "Shinyama and Sekine obtained 5,543 basic clusters. [1]"
    _, without = review(reply, [passage], question)
    assert without.unmentioned == ["Shinyama", "Sekine"] or "Sekine" in without.unmentioned
    owned = replace(passage, owners="satoshi sekine shinyama yusuke")
    _, verdict = review(reply, [owned], question)
    assert not verdict.unmentioned and verdict.grounded, verdict
    other = question.replace("Sekine", "Grishman")
    _, stranger = review(reply.replace("Sekine", "Grishman"), [owned], other)
    assert stranger.unmentioned == ["Grishman"]
