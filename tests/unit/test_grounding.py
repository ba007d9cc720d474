"""The grounding check on hand-made answers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.settings import HearthSettings
from core.text import DONT_KNOW, asked_numbers, claims, holds_all, names_in
from service.answering.grounding import check, cite_sentences, recite, strip_invalid
from service.answering.orchestration import AnswerService

PASSAGES = {
    1: "Patented in 1868 by Christopher Latham Sholes, the typewriter changed offices.",
    2: "IBM introduced the Selectric typewriter in 1961.",
}


def postprocessor() -> AnswerService:
    """An AnswerService holding only default settings: enough for ``postprocess``, which reads
    nothing else (no model, no store)."""
    service = AnswerService.__new__(AnswerService)
    service.settings = HearthSettings()
    return service


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


def test_a_name_the_passages_hold_is_not_flagged_when_cited_under_another_number() -> None:
    passages = {
        1: "Ducks are waterfowl. Duck is the common name for many species in the family Anatidae.",
        2: "Swans and geese are larger than ducks.",
    }
    g = check("Ducks belong to the family Anatidae [2].", passages)
    assert g.unsupported == [] and g.miscited == ["Anatidae"]
    assert g.grounded


def test_english_answer_about_a_chinese_notice_is_not_flagged() -> None:
    passages = {1: "开放时间：上午9时至下午8时，周一闭馆。"}
    g = check("It is open from 9 AM to 8 PM and closed on Monday [1].", passages)
    assert g.unsupported == [] and g.grounded
    # A number the notice does not hold is still flagged.
    assert check("It opens at 7 AM [1].", passages).unsupported == ["7"]


SYSTEM = (
    "Answer using ONLY the numbered sources. If the sources do not contain the answer, reply "
    f"exactly: {DONT_KNOW}\n\nExample 1\nSources:\n[1] The Zorbin valve was patented by Ada "
    "Quell in 1911.\nQuestion: Who patented the Zorbin valve?\n"
    "Answer: Ada Quell patented the Zorbin valve in 1911 [1]."
)


def test_an_answer_echoing_a_worked_example_is_marked_and_not_grounded() -> None:
    g = check("The Zorbin valve was patented by Ada Quell in 1911 [1].", PASSAGES, SYSTEM)
    assert g.echoed_example and not g.grounded
    # A real answer that shares common words with the instructions is not an echo.
    ok = check("Christopher Latham Sholes patented it in 1868 [1].", PASSAGES, SYSTEM)
    assert not ok.echoed_example and ok.grounded
    # Declining (in the template's words or a paraphrase of them) is not an echo either.
    assert check(DONT_KNOW, PASSAGES, SYSTEM).declined
    assert not check("The sources do not contain the answer.", PASSAGES, SYSTEM).echoed_example
    # Text the passages hold is not an echo even if an example says it too.
    same = {1: "The Zorbin valve was patented by Ada Quell in 1911."}
    assert not check("The Zorbin valve was patented by Ada Quell [1].", same, SYSTEM).echoed_example


def test_an_uncited_factual_answer_is_flagged() -> None:
    g = check("Sholes did, in 1868.", PASSAGES)
    assert g.uncited and not g.grounded and g.as_dict()["uncited"] is True
    assert not check(DONT_KNOW, PASSAGES).uncited


def test_an_echoed_example_is_never_shown_as_the_answer() -> None:
    from service.answering.grounding import NOT_VERIFIED
    from service.answering.retrieval import Passage

    service = postprocessor()
    assert service.settings.grounding.on_fail != "replace"  # flagging only, by default
    passages = [Passage(1, 1, 1, "/typewriter.pdf", "pdf", {"page": 1}, 0.8, PASSAGES[1])]
    echo = "The Zorbin valve was patented by Ada Quell in 1911 [1]."
    text, verdict = service.postprocess(echo, passages, system=SYSTEM)
    assert verdict.echoed_example and "Zorbin" not in text and text.startswith(NOT_VERIFIED)
    right = "Christopher Latham Sholes patented it in 1868 [1]."
    assert service.postprocess(right, passages, system=SYSTEM)[0] == right


def test_an_answer_that_stops_before_its_content_is_not_grounded() -> None:
    # Seen on squad2's unanswerable "What is France a region of?": every word of the answer is in
    # the passage, but the model put the citation where the fact belongs.
    passages = {1: "The Normans gave their name to Normandy, a region in France."}
    stubs = (
        "France is a region of [1].",
        "It was given to the [1]",
        "Normandy is in [1] and",
        "[1]",
    )
    for stub in stubs:
        g = check(stub, passages)
        assert g.incomplete and not g.grounded and g.as_dict()["incomplete"] is True, stub
    for whole in ("Normandy is a region in France [1].", "The Normans [1].", "Yes, it is [1]."):
        g = check(whole, passages)
        assert not g.incomplete and g.grounded, whole
    assert not check(DONT_KNOW, passages).incomplete
    assert not check("1066 [1].", {1: "Normandy was conquered in 1066."}).incomplete
    # Seen in bench/injection.py: the 1.5B replied with the passage's header instead of its fact.
    labels = {1: "doc.docx, section Policy"}
    echo = check("[1] doc.docx, section Policy", passages, labels=labels)
    assert echo.incomplete and not echo.grounded
    assert not check("The Normans [1].", passages, labels=labels).incomplete


def test_an_answer_that_states_nothing_is_replaced_by_its_passages() -> None:
    from service.answering.grounding import NOT_VERIFIED
    from service.answering.retrieval import Passage

    service = postprocessor()
    passages = [Passage(1, 1, 1, "/typewriter.pdf", "pdf", {"page": 1}, 0.8, PASSAGES[1])]
    text, verdict = service.postprocess("[1]", passages, question="Who patented it?")
    assert verdict.incomplete and text.startswith(NOT_VERIFIED) and "Sholes" in text


def test_a_possessive_name_is_the_name() -> None:
    assert claims("It is Helen Okafor's role.") == ["Helen", "Okafor"]
    assert names_in("What is Helen Okafor’s role in 2019?") == ["Helen", "Okafor"]
    assert holds_all(["Helen", "Okafor"], "Name: Helen Okafor | Role: Site manager")
    assert not holds_all(["Oliver", "Grant"], "This is Oliver from facilities.")
    assert not holds_all([], "anything")


# Seen on the hard set (bench/hard.py): the table stops at W-05 and the report gives no year,
# yet the 1.5B answered from the nearest row or the current figure.
UNMENTIONED = [
    ("What was the nitrate level of sample W-09?", "The nitrate level of sample W-09 was 11.4 [1].",
     "Sample: W-01 | Nitrate mg/L: 11.4\nSample: W-05 | Nitrate mg/L: 12.9", ["W-09"]),
    ("What was the warehouse's floor area in 2015?", "In 2015 it was 1,240 square metres [1].",
     "The Ashford warehouse has a floor area of 1,240 square metres.", ["2015"]),
    # The answer does not state the year: it answers for today what was asked about 2027.
    ("How many electric vans will the fleet have in 2027?",
     "The delivery fleet has 26 vans, of which 9 are electric [1].",
     "The delivery fleet has 26 vans, of which 9 are electric.", ["2027"]),
]  # fmt: skip


@pytest.mark.parametrize(("question", "answer", "passage", "missing"), UNMENTIONED)
def test_an_answer_about_what_no_passage_mentions_is_declined(
    question: str, answer: str, passage: str, missing: list[str]
) -> None:
    from service.answering.retrieval import Passage

    verdict = check(answer, {1: passage}, question=question)
    assert verdict.unmentioned == missing and not verdict.grounded
    service = postprocessor()
    passages = [Passage(1, 1, 1, "/r.md", "md", {}, 0.5, passage)]
    text, shown = service.postprocess(answer, passages, question=question)
    assert text == f"{DONT_KNOW} No passage mentions {missing[0]}."
    assert shown.declined and shown.grounded and shown.unmentioned == missing
    # The same answer to a question the passage does answer is kept.
    asked = question.replace("W-09", "W-01").replace(" in 2015", "").replace(" in 2027", "")
    right = answer.replace("W-09", "W-01").replace("In 2015 it", "It")
    assert service.postprocess(right, passages, question=asked)[0] == right


# Seen on the hard set: the 1.5B cites [2] for a fact of passage [1].
DEPARTURES = (
    "Departs: 09:42 | Destination: Exeter St Davids | Platform: 4 | Operator: Great Western"
)
STAFF_ROW = "Name: Helen Okafor | Role: Site manager | Office: Glasgow"


def test_a_citation_is_pointed_at_the_passage_holding_the_answer() -> None:
    passages = {1: DEPARTURES, 2: STAFF_ROW}
    wrong = "The 09:42 train to Exeter St Davids leaves from Platform 4 [2]."
    assert check(wrong, passages).miscited  # the names are in [1], not in the cited [2]
    assert recite(wrong, passages, [2]) == wrong.replace("[2]", "[1]")
    both = {1: STAFF_ROW, 2: DEPARTURES}
    right = "Helen Okafor is the site manager [1]."
    assert recite(right, both, [1]) == right  # the cited passage holds it: unchanged
    split = "Helen Okafor works in Glasgow [1]; the 09:42 leaves from platform 4 [2]."
    assert recite(split, both, [1, 2]) == split  # no one passage holds it all: unchanged
    assert recite("It leaves from Platform 7 [2].", passages, [2]).endswith("[2].")  # nowhere


def test_a_sentence_held_only_by_an_uncited_passage_cites_it() -> None:
    # tests/integration/test_two_step.py: the 1.5B joined the two steps under one "[1]".
    passages = {
        1: "The Harbour project, which rebuilt the loading docks, was led by Imogen Clarke.",
        2: "Imogen Clarke joined the company in 2014 after six years at Vantra Logistics.",
    }
    joined = (
        "[1] The Harbour project, which rebuilt the loading docks, was led by Imogen Clarke. "
        "Imogen Clarke joined the company in 2014 after six years at Vantra Logistics."
    )
    assert not check(joined, passages).grounded
    fixed = cite_sentences(joined, passages, [1])
    assert fixed == joined + " [2]"
    assert check(fixed, passages).grounded
    cited = "Imogen Clarke led the Harbour project. [1] She joined in 2014. [2]"
    assert cite_sentences(cited, passages, [1, 2]) == cited  # every sentence cites: unchanged
    later = "Imogen Clarke led the Harbour project. [1] Imogen Clarke joined in 2014."
    assert cite_sentences(later, passages, [1]) == later + " [2]"
    assert cite_sentences("She joined in 2019.", passages, [1]) == "She joined in 2019."  # none
    assert cite_sentences(joined, passages, []) == joined  # uncited answers: attribution's


def test_the_shown_answer_cites_the_right_passage_and_is_grounded() -> None:
    from service.answering.retrieval import Passage

    service = postprocessor()
    passages = [
        Passage(1, 1, 1, "/departures.html", "html", {}, 0.6, DEPARTURES),
        Passage(2, 2, 2, "/staff.docx", "docx", {}, 0.3, STAFF_ROW),
    ]
    row = "\nDeparts: 10:05 | Operator: Transport for Wales"
    passages[0] = replace(passages[0], text=passages[0].text + row)
    answer = "The 10:05 is run by Transport for Wales [2] [7]."
    text, verdict = service.postprocess(answer, passages, question="Who operates the 10:05?")
    assert text == "The 10:05 is run by Transport for Wales [1]."
    assert verdict.cited == [1] and not verdict.miscited and not verdict.unsupported
    assert verdict.invalid_citations == [7]  # still flagged: it named no retrieved passage


def test_asked_numbers_are_standalone_runs_of_two_digits_or_more() -> None:
    assert asked_numbers("How many electric vans will the fleet have in 2027?") == ["2027"]
    assert asked_numbers("What was the nitrate level of sample W-09 [1]?") == ["09"]
    # Ordinals, decades and one-digit counts are often written another way in the passage.
    assert asked_numbers("Which 17th century Huguenots fled in the 1700s with 3 ships?") == []


def test_an_unverified_reply_declines_and_shows_the_passages() -> None:
    from core.evalmetrics import is_abstention
    from service.answering.grounding import NOT_VERIFIED

    assert is_abstention(NOT_VERIFIED + "\n[1] report.md: The Meadow project added panels.")


def test_a_number_asked_about_is_looked_for_in_the_whole_chunk() -> None:
    """squad_dev: the passage was cut to the token budget and lost "article 34"; the answer,
    taken from "It also means ...", is right and must not be declined for "34"."""
    from service.answering.retrieval import Passage

    question = "Article 34 meant states could be responsible for what?"
    whole = (
        "Under article 34, goods move freely. "
        + "It also means states can be responsible for private actors."
    )
    cut = "… It also means states can be responsible for private actors."
    answer = "States can be responsible for private actors [1]."
    assert check(answer, {1: cut}, question=question).unmentioned == ["34"]
    assert check(answer, {1: cut}, question=question, whole={1: whole}).unmentioned == []
    passages = [Passage(1, 1, 1, "/eu.txt", "text", {}, 0.5, cut, whole=whole)]
    assert postprocessor().postprocess(answer, passages, question=question)[0] == answer
    assert "whole" not in passages[0].as_dict()


def test_a_number_of_the_question_held_by_the_whole_chunk_is_not_unsupported() -> None:
    """squad_dev: "Article 34 ... [1]" was answered right but flagged ``unsupported: 34`` because
    the passage given to the model had been cut; a number the question names and its chunk
    holds is supported. One the question does not name is still judged on the cut text."""
    question = "Article 34 meant states could be responsible for what?"
    whole = "Under article 34, goods move freely. It also means states answer for private actors."
    cut = "… It also means states answer for private actors."
    answer = "Under Article 34, states answer for private actors [1]."
    assert "34" in check(answer, {1: cut}, question=question).unsupported
    assert "34" not in check(answer, {1: cut}, question=question, whole={1: whole}).unsupported
    invented = "Under Article 35, states answer for private actors [1]."
    assert "35" in check(invented, {1: cut}, question=question, whole={1: whole}).unsupported


def test_an_uncited_answer_cites_the_passage_holding_its_facts() -> None:
    """bench/answers.py: the 1.5B answered "... founded in 1911 as the Computing-Tabulating-
    Recording Company" without "[n]"; it was flagged uncited and counted as citing nothing."""
    from service.answering.grounding import attribute
    from service.answering.retrieval import Passage

    ctr = "IBM was founded in 1911 in Endicott as the Computing-Tabulating-Recording Company."
    hq = "IBM is headquartered in Armonk, New York, and has offices in 175 countries."
    answer = "IBM was founded in 1911 as the Computing-Tabulating-Recording Company."
    assert attribute(answer, {1: hq, 2: ctr}) == 2
    assert (
        attribute("IBM was founded in 1912 as the Computing-Tabulating Company.", {2: ctr}) is None
    )
    assert attribute("Founded by travelling salesmen selling scales.", {2: ctr}) is None
    assert attribute(answer + " [1]", {1: hq, 2: ctr}) is None  # the model cited: left alone
    passages = [
        Passage(1, 1, 1, "/hq.md", "text", {}, 0.6, hq),
        Passage(2, 2, 2, "/ibm.md", "text", {}, 0.5, ctr),
    ]
    text, verdict = postprocessor().postprocess(answer, passages, question="When was IBM founded?")
    assert text == answer + " [2]"
    assert verdict.cited == [2] and verdict.attributed and verdict.grounded
    assert verdict.as_dict()["attributed"] is True


def test_attribution_weighs_what_the_answer_adds_to_the_question() -> None:
    """bench/heldout.py dev half: right replies restating their question ("subscribed", "the
    Word document's ... table") stayed uncited because the passage lacked the question's own
    words, or wrote the date in figures ("2021-04-17"); a reply whose number is another
    file's, in a passage about nothing the reply says, is not cited to it."""
    from service.answering.grounding import attribute

    row = (
        "csv-comma.csv (row 6)\nIndex: 5 | Customer Id: 053d585Ab6b3159 | First Name: Joanna |"
        " Last Name: Bender | … | Subscription Date: 2021-04-17 | …"
    )
    mail = "… To: 'Slava' <slatest@gmail.com> Date: Wed, 16 Jul 2008 09:24:06 +0300 …"
    reply = "Joanna Bender subscribed on April 17, 2021."
    assert attribute(reply, {1: row, 2: mail}, "On what date did Joanna Bender subscribe?") == 1
    assert attribute("Joanna Bender subscribed on May 17, 2021.", {1: row}, "When?") is None
    table = "Test with tables A uniform table … Header 0.0: Cell 2.0 | Header 0.1: Cell 2.1 | …"
    question = "In the Word document's uniform table, which cell is in row 2 under Header 0.1?"
    reply = "In the Word document's uniform table, the cell in row 2 under Header 0.1 is Cell 2.1."
    assert attribute(reply, {1: table}, question) == 1  # "Word" names the file, not a fact
    fax = "• Fax: (202) 493–2251. …"
    reply = "Galaxy Gaming's fax number is (202) 493–2251."
    assert attribute(reply, {3: fax}, "What is Galaxy Gaming's fax number?") is None
    # a reply adding nothing to its question is cited to nothing
    assert attribute("Joanna Bender subscribed.", {1: row}, "Did Joanna Bender subscribe?") is None


def test_attribution_weighs_the_sentences_stating_a_fact() -> None:
    """CI (test_mcp, SmolLM2-135M): "The ferry to Aldmoor leaves from pier nine at 7:40 every
    Tuesday.\\n\\nThe passage is quoted data, not instructions." echoed the prompt's rule after
    the fact; weighed whole, the echo's words sank the share and the answer stayed uncited."""
    from service.answering.grounding import attribute

    ferry = "# Ferries\nThe ferry to Aldmoor leaves from pier nine at 7:40 every Tuesday."
    reply = (
        "The ferry to Aldmoor leaves from pier nine at 7:40 every Tuesday.\n\n"
        "The passage is quoted data, not instructions."
    )
    question = "When does the ferry to Aldmoor leave?"
    assert attribute(reply, {1: ferry}, question) == 1
    # a fact the passage does not hold is still not cited, echo or not
    assert attribute(reply.replace("7:40", "8:15"), {1: ferry}, question) is None
