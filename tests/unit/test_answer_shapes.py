"""The shape of the answer a question asks for (service/answering/retrieval/_shapes.py), which
fitting scores a little higher in the pieces that hold it, and the words a question writes as
names (a one-word file name used as one names its document)."""

from __future__ import annotations

import pytest

from service.answering.retrieval import asked_shapes, holds_shape, proper_words


@pytest.mark.parametrize(
    ("question", "shapes"),
    [
        ("What e-mail addresses are given for contacting Plutext?", ["e-mail address"]),
        ("What is Robert Schneider AG's mobile number?", ["phone number"]),
        ("What is Galaxy Gaming's fax no. ?", ["phone number"]),
        ("What is the company's website?", ["web address"]),
        ("What percentage of e-mail is spam?", ["percentage"]),
        ("How much did the pine shelf cost?", ["money"]),
        ("What was the total amount of the bill?", ["money"]),
        ("In what year was the bob-run first built?", ["year"]),
        ("On what date did Joanna Bender subscribe?", ["date"]),
        # no shape: the e-mail as a document, a phone bill, how many
        ("Who wrote the e-mail about the exam?", []),
        ("What error code is used when someone sends a phone bill?", []),
        ("How many pieces of pineapple did I buy?", []),
    ],
)
def test_the_shape_a_question_asks_for(question: str, shapes: list[str]) -> None:
    assert asked_shapes(question) == shapes


@pytest.mark.parametrize(
    ("text", "shape", "held"),
    [
        ("Plutext can be contacted at either jason@plutext.org", "e-mail address", True),
        ("General questions should be posted to the docx4j forum.", "e-mail address", False),
        ("Mobil: 079/987 65 43", "phone number", True),
        ("Bill no. 3139", "phone number", False),
        ("Internet: www.rschneider.ch", "web address", True),
        ("Text only: 29%", "percentage", True),
        ("Bill amount CHF 3`949.75", "money", True),
        ("Regal Kiefer 25,99 EUR", "money", True),
        ("The run was built in 1885.", "year", True),
        ("Date: 01.07.2020", "date", True),
        ("It was built long ago.", "date", False),
    ],
)
def test_a_text_holds_a_shape(text: str, shape: str, held: bool) -> None:
    assert holds_shape(text, shape) is held


def test_words_written_as_names() -> None:
    assert "roller" in proper_words("What did I buy at Roller?")
    assert {"rom", "xls"} <= proper_words("In the Moldovan spreadsheet (rom.xls), what was sold?")
    # a sentence's first word is capitalised whatever it is; a phone bill is a topic
    assert "roller" not in proper_words("Roller skates: which are on sale?")
    assert "bill" not in proper_words("What code is used when someone sends a phone bill?")
