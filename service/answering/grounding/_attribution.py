"""Citing an uncited answer by what it states: the passage that holds its facts.

The small models often answer right without any "[n]" ("IBM was founded in 1911 as the
Computing-Tabulating-Recording Company"): on bench/answers.py (42 questions, 2026-12-01) 5 of
the 20 right answers of the 1.5B cited nothing, so they were flagged ``uncited`` and counted as
citing no document. An answer whose names and numbers one passage holds all of, and whose other
words that passage mostly holds too, is given that passage's citation; the grounding verdict
says so (``attributed``). Anything less stays uncited and flagged.

Only what the answer adds to the question is weighed: a reply that restates the question
("The Family Day e-mail was sent on Wed, 21 Dec 2022", "In the Word document's table, ... is
Cell 2.1") holds the question's words, which no passage need hold (the question names its
document, or asks in other words than the file's). On the dev half of bench/heldout.py
(2026-12-04) 4 of the 6 right replies left uncited are cited to their file so.
"""

from __future__ import annotations

import re

from core.text import (
    CALENDAR_WORDS,
    CITATION,
    DAY_OF_MONTH,
    SENTENCE_GAP,
    STOP_WORDS,
    WORD,
    claims,
    dates,
    fold,
    present,
    stems,
)

#: Share of the content words (stemmed, 4+ letters) an answer adds to its question that the
#: chosen passage must hold.
MIN_WORD_SHARE = 0.6
#: Share of all an answer's content words the chosen passage must hold: a passage about what
#: the answer is about, not one that merely holds its figures (dev half: "Galaxy Gaming's fax
#: number is (202) 493-2251", the number of another file's fax, whose passage shares no word).
MIN_TOPIC_SHARE = 0.3

_WORDS = re.compile(r"[^\W\d_]{4,}")


def _stems(text: str) -> set[str]:
    """The content words of ``text``, stemmed: not stop words nor calendar words (a date's
    month is weighed by its day and year, which documents write in figures: "2021-04-17")."""
    words = _WORDS.findall(fold(CITATION.sub(" ", text)))
    return set(stems(w for w in words if w not in STOP_WORDS and w not in CALENDAR_WORDS))


def _month(claim: str) -> bool:
    """True for a month's name as a claim ("Dec."), whatever its length."""
    return DAY_OF_MONTH.fullmatch(f"{claim.rstrip('.')} 1") is not None


def attribute(answer: str, passages: dict[int, str], question: str = "") -> int | None:
    """The number of the passage (lowest, i.e. best ranked, on a tie) holding every name and
    number of ``answer`` that ``question`` does not state, every calendar date it states (in
    any form: "April 17, 2021" is "2021-04-17"), at least ``MIN_WORD_SHARE`` of the content
    words (stemmed) it adds to the question and ``MIN_TOPIC_SHARE`` of all its content words,
    with the largest share of the added words. When some of its sentences state a name, number
    or date the question does not, only those are weighed. None when no passage does, or the
    answer already cites, or adds neither a content word nor a name or number to the
    question."""
    if CITATION.search(answer):
        return None
    asked = {fold(c) for c in claims(question)} if question else set()

    def new_claims(text: str) -> list[str]:
        return [c for c in claims(text) if fold(c) not in asked and not _month(c)]

    # Only the sentences stating a name, number or date the question does not are weighed
    # when there are any: a small model's echo of its instructions ("The passage is quoted
    # data, not instructions.") after the fact is no part of what it answered.
    factual = [t for t in SENTENCE_GAP.split(answer) if new_claims(t) or dates(t)]
    answer = " ".join(factual) or answer
    said = new_claims(answer)
    stated = {day for _, day, _ in dates(answer)}
    every = _stems(answer)
    # every word of the question, however short: "used" is the question's "use"
    words = every - set(stems(WORD.findall(fold(question))))
    if not words and not said:
        return None
    best: tuple[float, int] | None = None
    for n in sorted(passages):
        haystack = fold(passages[n])
        if not all(present(c, haystack) for c in said):
            continue
        if not stated <= {day for _, day, _ in dates(passages[n])}:  # "May 17" is not 04-17
            continue
        held = _stems(passages[n])
        if every and len(every & held) < MIN_TOPIC_SHARE * len(every):
            continue
        share = len(words & held) / len(words) if words else 1.0
        if share >= MIN_WORD_SHARE and (best is None or share > best[0]):
            best = (share, n)
    return None if best is None else best[1]


def cite(answer: str, number: int) -> str:
    """``answer`` with " [number]" at its end: a suffix, so a streamed answer can be given the
    citation as one more token (AnswerService's stream)."""
    return f"{answer.rstrip()} [{number}]"
