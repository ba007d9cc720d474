"""The review of a generated reply against its passages: citations checked and moved to the
passage that holds the facts, and a reply that followed an injected instruction, names what no
passage mentions, or fails the grounding check replaced (moved from ``AnswerService``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.text import CUT_CITATION, DONT_KNOW
from service.answering.grounding._arithmetic import compute
from service.answering.grounding._attribution import attribute, cite
from service.answering.grounding._check import (
    Grounding,
    check,
    cite_sentences,
    recite,
    strip_invalid,
)
from service.answering.grounding._dates import dated
from service.answering.grounding._injection import check_answer, without_instructions
from service.answering.grounding._polarity import polarity

if TYPE_CHECKING:
    from service.answering.retrieval import Passage

log = logging.getLogger(__name__)

#: Said instead of a reply that followed an instruction found inside a passage.
FOLLOWED_INSTRUCTION = (
    "The reply followed an instruction written inside one of your documents instead of "
    "answering, so it is not shown; here are the passages that seem most relevant:"
)
#: Said instead of an answer the grounding check could not verify: Hearth declines (a reply no
#: passage supports is not an answer) and shows what it found.
NOT_VERIFIED = (
    "I can't answer that from your documents: the reply I wrote could not be checked against "
    "them. Here are the passages that seem most relevant:"
)


def review(
    text: str,
    passages: list[Passage],
    question: str = "",
    system: str = "",
    on_fail: str = "flag",
    *,
    injection: bool = True,
) -> tuple[str, Grounding]:
    """Check citations and grounding; drop citations of passages not retrieved; point a
    citation at the passage holding the answer's facts when the cited one does not, or cite
    a sentence whose facts only an uncited passage holds (``cite_sentences``); replace an
    unverified answer by the passages when ``on_fail`` (the setting ``grounding.on_fail``) is
    ``replace``, and always an answer echoing a worked example of the ``system`` prompt (never
    shown), one that states nothing (``grounding.incomplete``: "[1]", "France is a region of
    [1].", a label), one its passages contradict (``grounding.unlinked``,
    ``grounding.unbound``), and one stating a number no passage holds (``grounding.invented``).
    An answer stating a name or number of the question that no passage holds
    (``grounding.unmentioned``) becomes the "don't know" sentence naming it. A years- or
    days-between question whose two inputs the passages hold is answered by Hearth's own
    arithmetic, shown with both inputs cited (``grounding.computed``), whatever the reply said;
    so is a comparison of two table cells ("did A or B have more X"), by the side whose cell
    is larger.
    A "Yes" to a yes/no question whose passage sentence negates what was asked becomes "No" with
    that sentence quoted and cited (``grounding.polarity``). A reply to a "when" question stating
    another date than the one whose clause holds the question's words best becomes that date,
    its clause quoted and cited (``grounding.dated``).
    ``injection=False`` skips the check for a reply that followed an instruction inside a passage
    (``check_answer``; on by default: a benchmark's "before" turns it off)."""
    # a reply cut at its token limit inside a citation ("... cost together [2] [3] [4] [3"):
    # the piece is no citation, and its figure no fact (dev h1028, a run of citations)
    text = CUT_CITATION.sub("", text)
    texts = {p.number: p.text for p in passages}
    # the whole chunks: fitting to the token budget may have cut the sentence of an input
    wholes_by_number = {p.number: p.whole or p.text for p in passages}
    computed = compute(question, wholes_by_number)
    if computed is not None:
        return computed.text(), Grounding(computed.passages, computed=[computed.formula()])
    negated = polarity(question, text, wholes_by_number)
    if negated is not None:
        return negated.text(), Grounding([negated.passage], polarity=[negated.record()])
    read = dated(question, text, wholes_by_number)
    if read is not None:
        return read.text(), Grounding([read.passage], dated=[read.record()])
    labels = {p.number: p.label for p in passages}
    wholes = {p.number: p.whole for p in passages if p.whole}
    titles = {p.number: p.title for p in passages if p.title}
    # "How many clusters did Shinyama and Sekine obtain?" names the paper its page 6 is from
    authors = {p.number: p.owners for p in passages if p.owners}
    # "According to Lyft's annual report on Form 10-K, ...": its cover names the document
    heads = {p.number: p.head for p in passages if p.head}

    def judged(reply: str) -> Grounding:
        return check(
            reply,
            texts,
            system,
            question,
            labels=labels,
            whole=wholes,
            titles=titles,
            authors=authors,
            heads=heads,
        )

    verdict = judged(text)
    if verdict.invalid_citations:
        text = strip_invalid(text, verdict.invalid_citations)
    cited_right = recite(text, texts, verdict.cited)
    if cited_right == text:  # a sentence whose facts only an uncited passage holds
        cited_right = cite_sentences(text, texts, verdict.cited)
    if cited_right != text:  # the answer's facts are in another passage: cite that one
        text, dropped = cited_right, verdict.invalid_citations
        verdict = judged(text)
        verdict.invalid_citations = dropped
    if verdict.uncited and not verdict.echoed_example:  # cite what holds its facts
        holder = attribute(text, texts, question)
        if holder is not None:
            text, dropped = cite(text, holder), verdict.invalid_citations
            verdict = judged(text)
            verdict.invalid_citations, verdict.attributed = dropped, True
    injected = (
        check_answer(text, question, {p.number: p.text for p in passages}, list(verdict.cited))
        if injection
        else None
    )
    # never shown as the answer: the passages, instructions left out
    if injected is not None and injected.followed:
        log.warning("an answer followed an instruction from a passage: %s", injected.reason)
        verdict.unsupported = [*verdict.unsupported, f"injection: {injected.reason}"]
        shown = passages[:2]
        return FOLLOWED_INSTRUCTION + "\n" + "\n".join(
            f"[{p.number}] {p.label}: {without_instructions(p.text)[:300]}" for p in shown
        ), verdict
    if verdict.unmentioned:  # the question's subject is in no passage: nothing to answer
        missing = ", ".join(verdict.unmentioned)
        declined = Grounding([], declined=True, unmentioned=verdict.unmentioned)
        return f"{DONT_KNOW} No passage mentions {missing}.", declined
    # An echoed example is never shown; an incomplete reply has nothing to lose; a reply
    # that ties names no passage ties, or gives a number the passages give for something
    # else, is contradicted by its passages, not merely unchecked.
    replace = (
        on_fail == "replace"
        or verdict.echoed_example
        or verdict.incomplete
        or bool(verdict.unlinked)
        or bool(verdict.unbound)
        or bool(verdict.invented)
    )
    if not verdict.grounded and replace and passages:
        cited = [p for p in passages if p.number in verdict.cited] or passages[:2]
        text = (
            NOT_VERIFIED
            + "\n"
            + "\n".join(
                f"[{p.number}] {p.label}: {without_instructions(p.text)[:300]}" for p in cited
            )
        )
    return text, verdict
