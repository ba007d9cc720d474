"""The two declining checks below 0.8 precision on the held-out dev half (issue 35), reworked:
``grounding.unlinked`` took units and codes for names ("CO₂e", "B2") and required every name
of the question to be tied (a company named only in the file's title never is);
``grounding.incomplete`` missed a citation standing where the fact belongs after a verb ("The
name of the file attached ... is [2].") and took a file name for a copied label."""

from __future__ import annotations

from service.answering.grounding import check, unlinked
from tests.unit.test_answer_ties import PEOPLE, PROJECTS

CHEVRON = (
    "We're investing to grow in the Eastern Mediterranean. Chevron-operated Tamar and Leviathan "
    "fields are exporting natural gas.\n\n2.5\nkilograms CO₂e/boe\ncarbon intensity from our "
    "Eastern Mediterranean operations in 2022"
)
SLIDE = "Sample table\n\nColumn A | Column B\nRow 1: A1 | B1\nRow 2: A2 | B2"


def test_units_and_codes_are_not_names_to_tie() -> None:
    q = "What was the carbon intensity of Chevron's Eastern Mediterranean operations in 2022?"
    said = "The carbon intensity of Chevron's Eastern Mediterranean operations was 2.5 kg CO₂e [1]."
    assert unlinked(said, [CHEVRON], q) == []
    q = "In the sample presentation's table, what is in row 2 under column B?"
    assert unlinked("The value in row 2 under column B is B2 [1].", [SLIDE], q) == []


def test_a_name_of_the_title_is_tied_to_the_passage() -> None:
    q = "Which fields of Northgate export gas?"
    passage = "Tamar and Leviathan fields export gas to Jordan."
    said = "The Tamar field of Northgate exports gas [1]."
    assert unlinked(said, [passage], q) == ["Tamar with Northgate"]
    assert unlinked(said, [passage], q, ["northgate-report.pdf, page 2"]) == []
    assert unlinked(said, ["Northgate report\n\n" + passage], q) == []  # its heading
    # a file name parts its words with underscores (a scanned receipt: the store's name is in
    # the file's name and the header chunk, the item in another chunk)
    q = "How many packs of the SELIT floor underlay did I buy at Northgate?"
    items = "5 St x 18,50\nBodenunterlage SELIT 92,50"
    said = "I bought 5 packs of the SELIT floor underlay at Northgate [1]."
    header = "NORTHGATE Baumarkt AG\nFiliale 547"  # the question names the file by the store
    labels = ["northgate_23092016_03.jpg, page 1"] * 2
    assert unlinked(said, [header, items], q, labels, ["northgate"]) == []
    assert unlinked(said, [header, items], q, ["scan.jpg"] * 2, ["northgate"]) == [
        "Northgate with SELIT"
    ]


def test_names_no_passage_ties_are_still_unlinked() -> None:
    q = "Who led the Meadow project?"
    said = "Rafael Costa led the Meadow project [1]."
    assert unlinked(said, [PROJECTS, PEOPLE], q, ["report.md", "report.md"]) == [
        "Costa with Meadow"
    ]


def test_a_citation_where_the_fact_belongs_is_incomplete() -> None:
    passages = {1: "Attachment: fake-attachment.txt", 2: "Password: hunter2"}
    for stub in (
        "The name of the file attached to the e-mail 'Fake email with attachment' is [1].",
        "The new password for the account was [2].",
        "The bill number on Robert Schneider's bill is [1] [2].",
    ):
        assert check(stub, passages).incomplete, stub
    for whole in (
        "Yes, it is [1].",
        "The attachment is fake-attachment.txt [1].",
        "No, it was not [1].",
    ):
        assert not check(whole, passages).incomplete, whole


def test_a_file_name_asked_for_is_not_a_copied_label() -> None:
    labels = {1: "fake-attachment.txt"}
    passages = {1: "Attachment: fake-attachment.txt"}
    copied = "[1] fake-attachment.txt"
    assert check(copied, passages, labels=labels).incomplete  # a label and nothing else
    asked = "What is the name of the file attached to the e-mail?"
    assert not check(copied, passages, question=asked, labels=labels).incomplete


def test_an_answer_ending_on_its_number_is_complete() -> None:
    """The dangling-word rule read the last word without the numbers: "... a batch size of 128."
    ended on "of" and was declined (dev half, h153)."""
    passages = {1: "We train with a batch size of 128 and a learning rate of 1e-5."}
    for whole in (
        "The DPR model was trained with a batch size of 128. [1]",
        "Zone NA's sales were 12,553 million CHF, up from 11,895 [1].",
        "The batch size was one of 128 [1]",
    ):
        assert not check(whole, passages).incomplete, whole
    for stub in ("France is a region of [1].", "It was given to the [1]", "Its size is 12 of [1]."):
        assert check(stub, passages).incomplete, stub


def test_words_pointing_at_a_source_are_no_missing_fact() -> None:
    """The words "according to [1]" and "stated in [1] and [2]" end on "to" and "and" once the
    citations are gone: the dangling-word rule took them for a fact left out (dev half, h136)."""
    passages = {1: "Paris is the capital of France.", 2: "France's capital is Paris."}
    for whole in (
        "Paris is the capital of France, according to [1].",
        "Yes, Paris is the capital of France. This is stated in [1] and [2].",
        "Paris is the capital of France, as shown by [1], [2].",
        "Paris is the capital of France (see [1] and [2]).",
        "Paris is the capital of France [1]-[2].",
    ):
        assert not check(whole, passages).incomplete, whole
    for stub in (
        "The capital of France is [1] and [2].",
        "France is a region of [1] and [2].",
    ):
        assert check(stub, passages).incomplete, stub


def test_an_answer_saying_only_what_the_question_said_is_incomplete() -> None:
    """Dev h180 ("What is the name of the course Slava failed?" -> "Slava [1]", a trap) and
    h139 ("A cell is an object in FFP systems.") said nothing the question did not; an answer
    picking one of the question's names, opening on yes or no, or adding a number or a code is
    an answer."""
    mail = {1: "Slava wrote to Tamir Erez about the exam on 2008/7/11."}
    question = "What is the name of the course Slava failed, according to the e-mail thread?"
    assert check("Slava [1]", mail, question=question).incomplete
    backus = {1: "In FFP systems a cell is a triple: a name, a value and a pointer."}
    question = "In FFP systems, what kind of object is a cell?"
    assert check("A cell is an object in FFP systems. [1]", backus, question=question).incomplete
    assert not check("A cell is a triple [1].", backus, question=question).incomplete
    fcc = {1: "Install OPS software version P12.1.2 on FCC A and FCC B."}  # dev h149
    question = "Which flight control computer OPS software version must be installed on FCC A?"
    restated = "The OPS software version must be installed on FCC A according to [1]."
    assert check(restated, fcc, question=question).incomplete
    assert not check("Version P12.1.2, according to [1].", fcc, question=question).incomplete
    rules = {1: "When ALICE calls a procedure owned by JOE that adopts JOE's authority, "
             "CURRENT USER is JOE while it runs."}  # fmt: skip
    question = (
        "When user ALICE calls a procedure owned by JOE that adopts JOE's authority, what value "
        "does CURRENT USER hold while it runs?"
    )
    assert not check("JOE [1]", rules, question=question).incomplete  # one of its names, picked
    # ... but not the thing asked for of another name (dev h213, an infobox read badly)
    infobox = {1: "Company type: ISIN | Public: US5949181045"}
    assert check("ISIN [1]", infobox, question="What is Microsoft's ISIN?").incomplete
    assert not check("US5949181045 [1]", infobox, question="What is Microsoft's ISIN?").incomplete
    award = {1: "Passenger Vehicle Transportation Award 2010 | Group: 2C"}
    question = "Which group is the Passenger Vehicle Transportation Award 2010 in?"
    answer = "The Passenger Vehicle Transportation Award 2010 is in Group 2C. [1]"
    assert not check(answer, award, question=question).incomplete
    yes = {1: "Paris is the capital of France."}
    assert not check("Yes, Paris is the capital of France [1].", yes,
                     question="Is Paris the capital of France?").incomplete  # fmt: skip
    assert not check("Paris [1]", yes, question="Is the capital Paris or Lyon?").incomplete


def test_a_month_the_question_asks_for_that_no_passage_names_is_unmentioned() -> None:
    """Dev h219: "... did Kentucky have in December 2015?" over a November 2015 table was
    answered with November's row. A passage naming the month in any way (its name, "Dec.",
    "2015-12", "12/2015") keeps the answer."""
    november = {1: "NICS firearm checks: November 2015\nKentucky 264,140"}
    question = "How many NICS firearm background checks did Kentucky have in December 2015?"
    verdict = check("Kentucky had 264,140 checks. [1]", november, question=question)
    assert verdict.unmentioned == ["December 2015"]
    for written in ("December 2015", "Dec. 2015", "2015-12-01", "12/2015", "12/1/2015"):
        held = {1: f"NICS firearm checks: {written}\nKentucky 264,140"}
        assert not check("264,140 [1]", held, question=question).unmentioned, written


def test_a_file_named_for_its_month_holds_that_month() -> None:
    """Dev h216: the NICS table's rows, read one per line, no longer carry the page's title
    ("November - 2015"); the file's name does ("...-2015-11.pdf"), and scopes every row."""
    row = {1: "State / Territory: Kentucky | Permit: 264,140 | Handgun: 12,155"}
    question = "How many permit checks did Kentucky have in November 2015?"
    named = {1: "nics-background-checks-2015-11.pdf, page 1"}
    assert not check("264,140 [1]", row, question=question, labels=named).unmentioned
    assert check("264,140 [1]", row, question=question).unmentioned == ["November 2015"]
    december = question.replace("November", "December")
    assert check("264,140 [1]", row, question=december, labels=named).unmentioned


def test_a_number_is_tied_to_the_name_it_is_given_for() -> None:
    """bench/heldout.py dev half, traps h019 and h055: "What is Roy Berry's fax number?" over a
    customer sheet with phone columns only was answered with the fax number of a Federal
    Register notice, in a passage that names no Roy Berry."""
    row = "Index: 5 | First Name: Roy | Last Name: Berry | Phone 1: 229.077.5154 | Phone 2: 103"
    notice = "ADDRESSES: You may send comments by the following methods:\n• Fax: (202) 493–2251."
    q = "What is Roy Berry's fax number?"
    said = "The fax number for Roy Berry is [1] (202) 493–2251. [2]"
    assert unlinked(said, [row, notice], q) == ["202 493 2251 with Roy Berry"]
    assert check(said, {1: row, 2: notice}, question=q).unlinked
    # the number on the row naming him is tied; a number of the question is not judged
    assert unlinked("Roy Berry's phone is 229.077.5154 [1].", [row, notice], q) == []
    q = "Who has the phone number 229.077.5154?"
    assert unlinked("Roy Berry has 229.077.5154 [1].", [row, notice], q) == []
    # a name no passage holds (the file's kind) is no name to tie a number to
    q = "In the Word document's sheet, what is Roy Berry's first phone?"
    said = "In the Word document's sheet, Roy Berry's first phone is 229.077.5154 [1]."
    assert unlinked(said, [row], q) == []


def test_a_language_named_as_the_part_to_read_is_no_name_to_tie_an_answer_to() -> None:
    """Held-out dev h207, after whisper-base read the German half of multilingual.mp3: the
    right reply "Genehmigung" was replaced as "Genehmigung with German" (no passage ties the
    word to "German"). "German" of "the German part" names the part to read, and the passage
    holding German sentences holds it."""
    question = (
        "In the German part of the recording, which German word is used for the permission "
        "that is granted?"
    )
    german = (
        "Jedem, der diese Software und die dazugehörigen Dokumentationsdateien erhält, wird "
        "hiermit unentgeltlich die Genehmigung erteilt, mit der Software uneingeschränkt zu "
        "verfahren."
    )
    reply = "In the German part of the recording, the word used is “Genehmigung” [1]."
    assert unlinked(reply, [german], question) == ["Genehmigung with German"]
    assert unlinked(reply, [german], question, references=["german"]) == []
    grounding = check(reply, {1: german}, "", question)
    assert grounding.unlinked == [] and grounding.unmentioned == [] and grounding.grounded
    # a passage with no German sentence: the language stays a word no passage mentions
    english = "Permission is hereby granted, free of charge, to any person obtaining a copy."
    assert check(reply, {1: english}, "", question).unmentioned == ["German"]


def test_an_address_given_for_a_name_must_be_held_with_it() -> None:
    """Held-out dev h318 (unanswerable: the pharmacy's receipt gives no e-mail address) was
    answered with the sender of another file's message; an address is a fact like a number."""
    q = "What is the e-mail address of the Delphin Apotheke?"
    message = "On May 8, 2022 9:39 AM, from dphamhoang@example.com Hi Anton, this is Minh."
    receipt = "DELPHIN\nAPOTHEKE\nPADERBORN\nDetmolder Straße 8\nwww.delphin-apo.de"
    labels = ["thread.eml, message 2", "apotheke_0420.jpg, page 1"]
    said = "The e-mail address of the Delphin Apotheke is dphamhoang@example.com [1]."
    assert unlinked(said, [message, receipt], q, labels) == [
        "dphamhoang@example.com with Delphin Apotheke"
    ]
    own = "The Delphin Apotheke's web address is www.delphin-apo.de [2]."
    assert unlinked(own, [message, receipt], q, labels) == []


def test_a_number_the_cited_passage_lacks_is_judged_where_it_is() -> None:
    """Held-out dev h214 (unanswerable: the table lists no share for Paul Allen) was answered
    "Paul Allen held 8.9% ... [1]": [1] names him, [2] gives 8.9% to The Vanguard Group."""
    passages = {
        1: "Paul Allen resigned from Microsoft in 1983 after developing Hodgkin's lymphoma.",
        2: "The 10 largest shareholders of Microsoft in early 2024 were:\n"
        "Shareholder name | Percentage\n"
        "Shareholder name: The Vanguard Group | Percentage: 8.9%\n"
        "Shareholder name: BlackRock | Percentage: 7.2%",
    }
    question = "What percentage of Microsoft's shares did Paul Allen hold in early 2024?"
    said = "Paul Allen held 8.9% of Microsoft's shares in early 2024 [1]."
    assert check(said, passages, question=question).unbound == [
        "8.9 (the passages give it for something else)"
    ]
    right = "The Vanguard Group held 8.9% of Microsoft's shares in early 2024 [1]."
    asked = "What percentage of Microsoft's shares did The Vanguard Group hold in early 2024?"
    assert check(right, passages, question=asked).unbound == []


def test_a_documents_title_holds_the_name_it_is_about() -> None:
    """Held-out test half h210 (found there, fixed on the next batch): "How many employees did
    Microsoft have in 2019?" over a row of the financial table of the article titled "Microsoft
    Corporation" was declined, "No passage mentions Microsoft": no row repeats the company, its
    document's title does. Another company's name is still unmentioned."""
    row = {1: "Year: 2019 | Revenue in million US$: 125,843 | Employees: 144,106"}
    labels = {1: "test_wikipedia.html, Corporate affairs > Financial"}
    titles = {1: "Microsoft Corporation"}
    said = "Microsoft had 144,106 employees in 2019. [1]"
    question = "How many employees did Microsoft have in 2019?"
    assert check(said, row, question=question, labels=labels).unmentioned == ["Microsoft"]
    assert not check(said, row, question=question, labels=labels, titles=titles).unmentioned
    apple = question.replace("Microsoft", "Apple")
    verdict = check(said.replace("Microsoft", "Apple"), row, question=apple, titles=titles)
    assert verdict.unmentioned == ["Apple"]


def test_a_reply_shaped_like_a_photos_label_states_nothing() -> None:
    """Held-out dev h160: "Which e-mail address appears in the scanned text?" was answered
    with a label-shaped line naming another document, a page and a box: no fact at all."""
    labels = {1: "phototest.png, page 1, box (10, 10)–(900, 300)"}
    passages = {1: "This is a lot of 12 point text to test the ocr code"}
    shaped = "[1] Robert Schneider AG, page 2, box (119, 103)–(942, 486)"
    assert check(shaped, passages, labels=labels).incomplete
    for fact in (
        "The e-mail address is aspammer@website.com, page 1 [1].",
        "It is on page 2 [1].",
        "Maria, 1:05–1:20 [1]",  # a recording's label names who spoke: an answer to "who?"
    ):
        assert not check(fact, passages, labels=labels).incomplete, fact


def test_a_reply_copying_a_labels_file_name_states_nothing() -> None:
    """Held-out dev h084: "Who was copied on the Example Plain-Text MIME Message?" was answered
    "[1] Mime-multi-to-cc-bcc.eml", the file name of its passage's label; a question asking for
    a file's name is answered by it."""
    labels = {1: "mime-multi-to-cc-bcc.eml, message “Example Plain-Text MIME Message” from a@b.c"}
    passages = {1: "From: a@b.c\nCc: Tom <tom@example.com>, Alice <alice@example.com>"}
    question = "Who was copied on the Example Plain-Text MIME Message?"
    assert check(
        "[1] Mime-multi-to-cc-bcc.eml", passages, question=question, labels=labels
    ).incomplete
    assert not check("Tom and Alice [1]", passages, question=question, labels=labels).incomplete
    asks_file = "Which file holds the Example Plain-Text MIME Message?"
    assert not check(
        "mime-multi-to-cc-bcc.eml [1]", passages, question=asks_file, labels=labels
    ).incomplete


def test_a_reply_with_no_figure_for_a_question_asking_one_states_nothing() -> None:
    """Held-out dev h219, h045, h074: "how many", "how much" and "in what year" were answered
    with what was asked about ("[1] Kentucky [2]", "[1] CSR contribution [2]") or a copied
    label and caption, no figure at all; a figure in words ("none", "twice") is one."""
    passages = {
        1: "State / Territory: Kentucky | Permit: 264,140 | Handgun: 12,155",
        2: "Plate XXVI MORITZ: IN THE LARCH WOODS. The St. Moritz bob-run was built in 1887.",
    }
    labels = {1: "nics.pdf, page 1", 2: "winter-sports.epub, chapter CHAPTER V ICE-HOCKEY"}
    many = "How many permit checks did Kentucky have?"
    year = "In what year was the St. Moritz bob-run first built?"
    for reply, question in (
        ("[1] Kentucky [2]", many),
        ("[2] Winter-sports.epub, chapter CHAPTER V ICE-HOCKEY, Plate XXVI, MORITZ", year),
    ):
        verdict = check(reply, passages, question=question, labels=labels)
        assert verdict.incomplete and not verdict.grounded, reply
    for reply, question in (
        ("Kentucky had 264,140 permit checks [1].", many),
        ("It was built in 1887 [2].", year),
        ("None of the checks were permits [1].", many),
        ("Kentucky [1]", "Which state had 264,140 permit checks?"),
    ):
        assert not check(reply, passages, question=question, labels=labels).incomplete, reply


def test_a_value_from_a_row_that_fails_the_questions_condition_is_unbound() -> None:
    """Held-out dev h026, an unanswerable near miss: no row has 8 encoder and 8 decoder layers,
    and the reply took the inference time of the row with 4 and 2."""
    rows = "\n".join(
        f"# enc-layers: {e} | # dec-layers: {d} | Language: OTSL | Inference time (secs): {t}"
        for e, d, t in ((6, 6, "2.73"), (4, 2, "1.22"), (2, 4, "1.91"))
    )
    passages = {1: rows}
    asked = "What was OTSL's inference time with 8 encoder and 8 decoder layers?"
    reply = "OTSL's inference time with 8 encoder and 8 decoder layers was 1.22 seconds [1]."
    verdict = check(reply, passages, question=asked)
    assert verdict.unbound == ["1.22 (its row has # enc-layers: 4, the question 8)"]
    met = "What was OTSL's inference time with 4 encoder and 2 decoder layers?"
    assert not check("It was 1.22 seconds [1].", passages, question=met).unbound
    # a year is no condition on a row, nor a number the reply does not take from a row
    in_2023 = "What was OTSL's inference time in 2023?"
    assert not check("Its inference time was 1.22 [1].", passages, question=in_2023).unbound
    prose = {1: "With 8 encoder layers the model ran in 1.22 seconds."}
    assert not check("It took 1.22 seconds [1].", prose, question=asked).unbound


def test_a_name_misspelt_by_one_letter_is_the_name_the_passage_holds() -> None:
    """Dev h705: the procurement sheet writes "Penetenciarul 11 Bălţi", the question
    "Penitenciarul"; the reply was replaced by "No passage mentions Penitenciarul". A name of
    eight letters or more one edit from a passage's word is that word misspelt; a shorter one,
    or one two edits off, is still unmentioned."""
    row = {
        1: "Autoritatea contractantă: Penetenciarul 11 Bălţi | Operator economic: Lukoil "
        "Moldova | obiect de achiziţie: produse petroliere | Suma contractului MDL: 63949"
    }
    question = "What did Penitenciarul 11 Bălţi buy from Lukoil Moldova?"
    said = "Penitenciarul 11 Bălţi bought petroleum products (produse petroliere) [1]."
    assert check(said, row, question=question).unmentioned == []
    far = question.replace("Penitenciarul", "Penitenciarol")  # two letters off
    assert check(said.replace("Penitenciarul", "Penitenciarol"), row, question=far).unmentioned
    assert check(
        "Lukoiv sold fuel [1].",
        {1: "Lukoil Moldova sold fuel."},
        question=("What did Lukoiv sell?"),
    ).unmentioned == ["Lukoiv"]
