"""The date a "when" question asks for, read from the passages by Hearth when the reply gives
another (issue 35): "On what date were the bottles of water, blankets and laptops delivered?"
was answered "May 5, 2023 [1]", the memo's own date heading it, although its sentence says they
were "delivered on January 23, 2023".

Of the passages' dates (day, month and year), the one whose clause (1) and sentence (0.5) hold
the question's content words best, at least half of them, is taken (the arithmetic's reading
of one side, ``_found``; a question about when a document was dated or sent takes the date
heading it). When it is found, is the only date that fits that well, and fits better than every
date the reply states, the reply is replaced by it, quoted with its clause and cited. Only a
reply that states a date is judged: one that declines or states none is left alone, so the
check never turns a decline into an answer (a question the documents do not answer stays
declined if the model declined it). Measured by ``bench/dated.py`` on SQuAD 2.0 dev "when"
questions (precision 0.90 on the answerable ones) and on held-out dev.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.evalmetrics import is_abstention
from core.text import CITATION, dates, quoted
from service.answering.grounding._arithmetic import (
    _DATED_KEYS,
    _DOCUMENT_KEYS,
    _fit,
    _found,
    _keys,
    _spots,
)

#: "When did", "On what date", "What is the date", "Which day": a question asking for a date.
DATE_QUESTION = re.compile(
    r"^\s*(?:when\b|(?:on|by|from|until)\s+what\s+(?:date|day)\b|what\s+(?:is|was)\s+the\s+"
    r"date\b|what\s+date\b|which\s+(?:date|day)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Dated:
    """The date Hearth read for a "when" question: as the passage writes it, the passage's
    number, the clause holding it, and the dates the reply stated instead."""

    written: str
    passage: int
    clause: str
    stated: tuple[str, ...]

    def text(self) -> str:
        """The answer shown: the date, its clause quoted, and its citation."""
        return f"{self.written} [{self.passage}]: “{quoted(self.clause)}”"

    def record(self) -> str:
        """The verdict's record: ``"[1] January 23, 2023 (the reply said May 5, 2023)"``."""
        return f"[{self.passage}] {self.written} (the reply said {', '.join(self.stated)})"


def dated(question: str, reply: str, passages: dict[int, str]) -> Dated | None:
    """The passages' date for a "when" ``question`` (``DATE_QUESTION``) when ``reply`` states
    another one; None when the question asks no date, the reply states no date, no date fits the
    question (at least half its content words in the date's clause and sentence), two
    different dates fit as well, or a date the reply states fits as well. ``passages``:
    number -> text (whole chunks)."""
    if not DATE_QUESTION.match(question) or is_abstention(reply):
        return None
    stated = dates(CITATION.sub(" ", reply))
    if not stated:
        return None
    spots = _spots(passages, "days")
    best = _found(question, spots, None)
    if best is None:
        return None
    values = {value for _, value, _ in stated}
    if best.value in values:
        return None
    keys = _keys(question)
    by_place = keys & _DATED_KEYS and keys <= _DATED_KEYS | _DOCUMENT_KEYS  # "the memo's date"
    if not by_place and any(_fit(keys, s) >= _fit(keys, best) for s in spots if s.value in values):
        return None  # the reply's date fits as well: not Hearth's to choose
    return Dated(best.written, best.passage, best.clause, tuple(w for w, _, _ in stated))
