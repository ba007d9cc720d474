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
