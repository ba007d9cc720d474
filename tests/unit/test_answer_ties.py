"""Issue 21's unanswerable traps: an answer that ties a name of the question to a name no passage
ties it to (relations.unlinked), and a number the passages give for something else
(numbers.unbound), are not grounded, so Hearth declines and shows the passages."""

from __future__ import annotations

from core.evalmetrics import is_abstention
from service.answering.grounding import check, places, unbound, unlinked
from tests.unit.test_grounding import postprocessor

PROJECTS = (
    "The Harbour project, which rebuilt the loading docks, was led by Imogen Clarke. "
    "The Meadow project installed solar panels on the warehouse roof."
)
PEOPLE = (
    "Imogen Clarke joined the company in 2014 after six years at Vantra Logistics. "
    "Rafael Costa, who runs procurement, joined in 2017."
)
STAFF = (
    "Staff directory\nEveryone working for Northgate Supplies, with their office.\n"
    "Name | Role | Office\nName: Marcus Lindqvist | Role: Buyer | Office: Leeds\n"
    "Name: Amara Diallo | Role: Designer | Office: Cardiff"
)
RECEIPT = "HOLLYBROOK GROCERS\n14 Mill Lane\nOat milk 1L 1.85\nSourdough loaf 3.20\nTOTAL 12.10"


def test_names_no_passage_ties_are_unlinked() -> None:
    q = "Who led the Meadow project?"
    passages = {1: PROJECTS, 2: PEOPLE}
    verdict = check("Rafael Costa led the Meadow project [2].", passages, question=q)
    assert verdict.unlinked == ["Costa with Meadow"] and not verdict.grounded


def test_names_a_passage_ties_are_linked() -> None:
    # Same paragraph, pronoun between: "She" picks Imogen Clarke up.
    told = "Imogen Clarke joined in 2014. She later led the Harbour project."
    two_step = "The Harbour project's leader, Imogen Clarke, joined in 2014 [1]."
    assert unlinked(two_step, [told], "When did the leader of the Harbour project join?") == []
    # A table row is tied to the caption above the table.
    q = "Which person heads the buying of supplies at Northgate?"
    assert unlinked("Marcus Lindqvist is the buyer at Northgate [1].", [STAFF], q) == []
    # Not across paragraphs, nor across rows.
    assert (
        unlinked(
            "Imogen Clarke led the Meadow project [1].",
            [PROJECTS + "\n\n" + PEOPLE],
            "Who led the Meadow project?",
        )
        == []
    )  # fmt: skip  (Clarke is in the Meadow paragraph)
    assert unlinked("Rafael Costa led the Meadow project [1].", [PROJECTS + "\n\n" + PEOPLE],
                    "Who led the Meadow project?") == ["Costa with Meadow"]  # fmt: skip


def test_places_are_paragraphs_and_captioned_rows() -> None:
    spots = places(STAFF)
    assert "name: marcus lindqvist | role: buyer | office: leeds" in spots[1]
    assert spots[1].startswith("staff directory everyone working for northgate")
    assert spots[-1].startswith("staff directory") and "lindqvist" not in spots[-1]


def test_a_number_given_for_something_else_is_unbound() -> None:
    q = "What did the bananas cost at Hollybrook Grocers?"
    assert unbound("The bananas cost 1.85 [1].", [RECEIPT], q) == [
        "1.85 (the passages give it for something else)"
    ]
    verdict = check("The bananas cost 1.85 [1].", {1: RECEIPT}, question=q)
    assert not verdict.grounded
    asked = "What did the oat milk cost at Hollybrook Grocers?"
    assert unbound("The oat milk cost 1.85 [1].", [RECEIPT], asked) == []
    # Stems: "judges" in the question, "judge" beside the number.
    eu = "There is one judge from each member state, 28 at present."
    assert unbound("28 [1].", [eu], "How many judges are there in the EU?") == []
    # A number alone on its line (a table that lost its rows) has nothing to be judged by.
    assert unbound("Platform 4 [1].", ["Departs\n09:42\n4\nGreat Western"], "Which platform?") == []


def test_a_shared_unit_binds_no_number() -> None:
    """The held-out dev half's lab report and shareholder table (bench/heldout): a unit or a
    column's measure ("g/dL", "percentage") is not what the number belongs to."""
    labs = (
        "Test Result Reference Range\nGlucose, Fasting 118 mg/dL 70-100 mg/dL\n"
        "Hemoglobin 14.2 g/dL 13.5-17.5 g/dL"
    )
    q = "What was the patient's vitamin D level in the laboratory results?"
    reply = "The patient's vitamin D level was 14.2 g/dL [1]."
    assert unbound(reply, [labs], q) == ["14.2 (the passages give it for something else)"]
    assert unbound("Hemoglobin was 14.2 g/dL [1].", [labs], "What was the hemoglobin?") == []
    shares = (
        "Shareholder name | Percentage\nShareholder name: The Vanguard Group | Percentage: 8.9%"
    )
    asked = "What percentage of Microsoft's shares did Paul Allen hold?"
    assert unbound("Paul Allen held 8.9% [1].", [shares], asked) == [
        "8.9 (the passages give it for something else)"
    ]
    # A figure with only its unit on its line, its label on the next, is not judged.
    glance = "COMMUNITY DEVELOPMENT\n`1,186 crore\nCSR contribution"
    asked = "How much did Reliance contribute to community development as CSR?"
    assert unbound("1,186 crore [1]", [glance], asked) == []


def test_a_number_after_an_abbreviation_is_bound_to_what_it_stands_for() -> None:
    """The held-out QR bill (dev h106): "Bill No. 3139" is one sentence, and "No." is the
    number the question asks for; the sentence gap had cut 3139 away from "Bill"."""
    bill = "Additional information\nPayable by Bill No. 3139 for garden work and disposal of"
    q = "What is the bill number on Robert Schneider's bill?"
    assert unbound("The bill number on Robert Schneider's bill is 3139. [1]", [bill], q) == []
    assert unbound("The garden work took 3139 hours [1].", [bill], "How long?") == []
    assert unbound("The IBAN ends in 3139 [1].", [bill], "What does the IBAN end in?") == [
        "3139 (the passages give it for something else)"
    ]


def test_a_cut_passage_is_judged_by_its_whole_chunk() -> None:
    """Fitting joins a cut table's rows into one run of text; ``check`` reads the cited
    passage's whole chunk, where each row stands on its line."""
    whole = "Test Result\nGlucose 118 mg/dL\nHemoglobin 14.2 g/dL"
    cut = "Test Result Glucose 118 mg/dL … Hemoglobin 14.2 g/dL"
    q = "What was the patient's vitamin D test result?"
    reply = "The vitamin D test result was 14.2 g/dL [1]."
    assert check(reply, {1: cut}, question=q).unbound == []  # "result" in the run of rows
    assert check(reply, {1: cut}, question=q, whole={1: whole}).unbound == [
        "14.2 (the passages give it for something else)"
    ]


def test_an_unlinked_answer_is_declined_with_its_passages() -> None:
    from service.answering.retrieval import Passage

    passages = [
        Passage(1, 1, 1, "/report.md", "md", {}, 0.5, PROJECTS),
        Passage(2, 2, 1, "/report.md", "md", {}, 0.4, PEOPLE),
    ]
    text, verdict = postprocessor().postprocess(
        "Rafael Costa led the Meadow project [2].", passages, question="Who led the Meadow project?"
    )
    assert is_abstention(text) and "Rafael Costa led" not in text and verdict.unlinked


def test_a_year_inside_a_date_is_that_dates_year() -> None:
    """Held-out batch 5 dev h537: "in what year did Rob Hartill forward the post?" answered
    1996 from the header "Date: Mon, 01 Jul 1996 15:55:20 -0600" was declined as a number the
    passages give for something else; a date's year is its year. A count of 1996 is not."""
    header = [
        "From: Rob Hartill <hartill@lanl.gov>\nDate: Mon, 01 Jul 1996 15:55:20 -0600\n"
        "Subject: [Fwd: Netscape Enterprise vs. Apache Secure]"
    ]
    question = "Who forwarded the post to the new-httpd list, and in what year?"
    assert unbound("Rob Hartill forwarded it in 1996. [1]", header, question) == []
    users = unbound("The list had 1996 users. [1]", header, "How many users did the list have?")
    assert users == ["1996 (the passages give it for something else)"]


def test_a_name_of_the_documents_title_is_tied_to_its_passages() -> None:
    """Held-out dev h531 (O12Typical.pptx): the reply restated the deck's title, which the
    question named it by and only its first slide holds; the title was then a name no place
    tied to "Europe" ("Typical Presentation with Europe") and the right figure was replaced.
    A passage's place is read with its document's title, as with its label."""
    passages = {
        1: "Tables Have Come a Long Way\n | Q1 | Q2 | Q3 | Q4\n"
        "North America | 55,000,000 | 67,000,000 | 69,000,000 | 81,000,000\n"
        "Europe | 34,000,000 | 45,000,000 | 47,000,000 | 54,000,000",
        2: "Typical Presentation\nPowerPoint 12\nCreated 03/15/2006",
        3: "… This deck contains only the things found in a typical presentation",
    }
    labels = {
        1: "O12Typical.pptx, slide 6 (Tables Have Come a Long Way)",
        2: "O12Typical.pptx, slide 1 (Typical Presentation)",
        3: "O12Typical.pptx, slide 14 (Conclusion)",
    }
    titles = dict.fromkeys(passages, "Typical Presentation")
    q = (
        "In the 'Typical Presentation' slide deck, what was Europe's third-quarter figure "
        "in the table?"
    )
    said = (
        "The third-quarter figure for Europe in the 'Typical Presentation' slide deck is "
        "47,000,000. [1]"
    )
    assert check(said, passages, question=q, labels=labels).unlinked  # without the titles
    verdict = check(said, passages, question=q, labels=labels, titles=titles)
    assert verdict.unlinked == [] and verdict.grounded
    # another document's name is still tied: the title holds only for its own passages
    other = {**titles, 1: "Quarterly Sales"}
    assert check(said, passages, question=q, labels=labels, titles=other).unlinked


def test_a_number_on_a_wrapped_line_is_bound_to_the_words_before_the_break() -> None:
    """Held-out dev h1043 and h1013: "GNOME Print\\n(0.25)" of an e-mail wrapped at 72
    characters, and a scanned table's row "JUMA PARTICIPAÇÕES S.A. 678003 10.000,00" cut after
    the initials, left each number without the name it belongs to: the right answer was
    replaced as given "for something else". A receipt's short lines stay apart."""
    mail = (
        "You can also get the Evolution source tarball here: ftp://ftp.gnome.org/pub/GNOME/\n"
        "Evolution also requires Gal (0.7), GtkHTML (0.8.2), Bonobo (1.0), GNOME Print\n"
        "(0.25) and ORBit (0.5.6).\n"
    )
    question = "Which version of GNOME Print does the Evolution preview require?"
    assert unbound("It requires GNOME Print version 0.25 [1].", [mail], question) == []
    row = "18 Flora 28/10/2010 AMAZONAS ITACOATIARA JUMA PARTICIPAÇÕES S.A. 678003 10.000,00 X"
    fine = "What fine did IBAMA impose on JUMA PARTICIPAÇÕES S.A.?"
    assert unbound("The fine on JUMA PARTICIPAÇÕES S.A. was 10.000,00 [1].", [row], fine) == []
    receipt = "Oat milk 1.85\nBananas 2.10\nBread 3.40"
    flagged = unbound("The bananas cost 1.85 [1].", [receipt], "What did the bananas cost?")
    assert flagged == ["1.85 (the passages give it for something else)"]


def test_a_language_the_question_names_is_not_another_name_to_tie() -> None:
    """Held-out dev h1227: "In the photographed page from an old French book, in what year did
    Bernard de Fischer publish his memoir on an octopus?" answered "... Bernard de Fischer
    published his memoir on an octopus in 1752. [3]" was replaced as "French with Bernard
    Fischer": the question's word for the book's language, held by another passage, was taken
    for a name the answer tied to Fischer. Another file's name still is one."""
    q = "In the photographed page from an old French book, when did Bernard de Fischer publish?"
    page = "Bernard de Fischer publia en 1752 un mémoire sur un poulpe."
    other = "The French edition of the manual was printed in Lyon."
    said = "In the old French book, Bernard de Fischer published his memoir in 1752. [1]"
    # "french" is the question's word for its document (``languages_held``: a passage is French)
    assert unlinked(said, [page, other], q, references=["french"]) == []
    lyon = "In the old French book, Bernard de Fischer published his memoir in Lyon. [1]"
    assert unlinked(lyon, [page, other], q, references=["french"]) == ["Lyon with Bernard Fischer"]
