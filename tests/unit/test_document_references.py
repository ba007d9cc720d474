"""A question that names its document (issue 35, item 3): the file's name or title, its kind
("the Word document", "the recording"), are words that identify a document, not facts a passage
must hold; a name of the question no passage or document holds still declines."""

from __future__ import annotations

from service.answering.grounding import check
from service.answering.retrieval import joined_words, kinds_named

TABLE = {1: "Header 0.0: Cell 1.0 | Header 0.1: Cell 1.1 | Header 0.2: Cell 1.2"}
SPEECH = {1: "And so, my fellow Americans, ask not what your country can do for you."}


def test_the_kind_of_document_named_is_not_an_unmentioned_fact() -> None:
    verdict = check(
        "The Word document's table has Cell 1.1 under Header 0.1 [1].",
        TABLE,
        question="In the Word document's table, which cell is under Header 0.1?",
        labels={1: "word_tables.docx"},
    )
    assert verdict.unmentioned == []  # before: ["Word"], shown as "No passage mentions Word."


def test_the_file_named_by_its_name_is_not_an_unmentioned_fact() -> None:
    verdict = check(
        "In the JFK recording he says to ask not what your country can do for you [1].",
        SPEECH,
        question="In the JFK recording, what does he tell his fellow Americans not to ask?",
        labels={1: "jfk.flac, 0:00-0:11"},
    )
    assert verdict.unmentioned == []


def test_a_number_in_the_file_name_is_not_asked_about() -> None:
    verdict = check(
        "OTSL took 2.73 seconds [1].",
        {1: "6 6 OTSL 0.965 0.934 0.955 0.88 2.73"},
        question="In 2305.03393v1-pg9.pdf, what was OTSL's inference time with 6 layers?",
        labels={1: "2305.03393v1-pg9.pdf, page 1"},
    )
    assert verdict.unmentioned == []


def test_a_name_no_passage_or_document_holds_still_declines() -> None:
    verdict = check(
        "The Excel sheet gives Cell 1.1 for sample W-09 [1].",
        TABLE,
        question="In the Excel sheet, what is sample W-09?",
        labels={1: "word_tables.docx"},
    )
    assert "W-09" in verdict.unmentioned and "Excel" not in verdict.unmentioned


def test_a_kind_word_names_documents_only_after_a_determiner() -> None:
    """Topic words are not document references: the held-out scan question ("what percentage
    of e-mail is spam") searched the e-mails and never reached the scan."""
    assert kinds_named("According to the scanned page, what percentage of e-mail is spam?") == {
        "scanned"
    }
    assert kinds_named("Which e-mail address appears in the scanned text?") == {"scanned"}
    assert kinds_named("In the Enron West Gas sheet, what was the bid?") == {"sheet"}
    assert kinds_named("What do my e-mails say about the rent?") == {"mail"}
    assert kinds_named("Which web framework is the fastest?") == set()


def test_a_camel_cased_file_name_is_named_by_its_words() -> None:
    """Held-out dev h126: "the Cantina band recording" did not name CantinaBand3.wav (its one
    piece "cantinaband3"), so the kind alone was named and a JFK recording answered it."""
    cantina = {"cantinaband3": frozenset({"cantina", "band"})}
    assert joined_words("/music/CantinaBand3.wav") == cantina
    assert joined_words("/docs/word_tables.docx") == {}  # no joined words: pieces as they are
    assert joined_words("/docs/2305.03393v1-pg9.pdf") == {}  # letters and figures, no two words


COVER = (
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nWashington, D.C. 20549\nFORM 10-K\n"
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)\nLyft, Inc."
)
RIDERS = {1: "Three Months Ended December 31 | 2021: 18,728 | 2020: 12,552 | Active Riders"}


def test_a_name_the_documents_head_holds_names_that_document() -> None:
    """Held-out dev h810: "Lyft's 2021 annual report on Form 10-K" was declined for "10",
    which the table's page lacks and the filing's cover holds."""
    question = "According to Lyft's 2021 annual report on Form 10-K, how many Active Riders?"
    reply = "Lyft had 18,728 thousand Active Riders [1]."
    labels = {1: "lyft_2021.pdf, page 57"}
    assert check(reply, RIDERS, question=question, labels=labels).unmentioned == ["10-K"]
    verdict = check(reply, RIDERS, question=question, labels=labels, heads={1: COVER})
    assert verdict.unmentioned == []
    # a code no passage and no head holds still declines
    trap = "According to Lyft's annual report on Form 10-Q, how many Active Riders?"
    verdict = check(reply, RIDERS, question=trap, labels=labels, heads={1: COVER})
    assert verdict.unmentioned == ["10-Q"]


def test_a_code_is_a_number_joined_to_capitals_not_a_measure() -> None:
    from core.text import asked_codes, holds_code

    question = "Is the 18-inch panel in Form 10-K's sample W-09 or in the 5-year COVID-19 plan?"
    assert asked_codes(question) == {"10": "10-K", "09": "W-09", "19": "COVID-19"}
    assert holds_code("10-K", "annual report on form 10-k") and holds_code("10-K", "form 10k")
    assert not holds_code("10-K", "form 10-q") and not holds_code("W-09", "w-091")
