"""Citing an uncited answer by what it states: the passage that holds its facts.

The small models often answer right without any "[n]" ("IBM was founded in 1911 as the
Computing-Tabulating-Recording Company"): on bench/answers.py (42 questions, 2026-12-01) 5 of
the 20 right answers of the 1.5B cited nothing, so they were flagged ``uncited`` and counted as
citing no document. An answer whose names and numbers one passage holds all of, and whose other
words that passage mostly holds too, is given that passage's citation; the grounding verdict
says so (``attributed``). Anything less stays uncited and flagged.
"""

from __future__ import annotations

import re

from core.text import CITATION, claims, fold, present, stems

#: Share of an answer's content words (stemmed, 4+ letters) the chosen passage must hold.
MIN_WORD_SHARE = 0.6

_WORDS = re.compile(r"[^\W\d_]{4,}")


def _stems(text: str) -> set[str]:
    return set(stems(_WORDS.findall(fold(CITATION.sub(" ", text)))))


def attribute(answer: str, passages: dict[int, str]) -> int | None:
    """The number of the passage (lowest, i.e. best ranked, on a tie) holding every name and
    number of ``answer`` and at least ``MIN_WORD_SHARE`` of its content words, with the largest
    share; None when no passage does, or the answer already cites or states no content word."""
    if CITATION.search(answer):
        return None
    said = claims(answer)
    words = _stems(answer)
    if not words:
        return None
    best: tuple[float, int] | None = None
    for n in sorted(passages):
        haystack = fold(passages[n])
        if not all(present(c, haystack) for c in said):
            continue
        share = len(words & _stems(passages[n])) / len(words)
        if share >= MIN_WORD_SHARE and (best is None or share > best[0]):
            best = (share, n)
    return None if best is None else best[1]


def cite(answer: str, number: int) -> str:
    """``answer`` with " [number]" at its end: a suffix, so a streamed answer can be given the
    citation as one more token (AnswerService's stream)."""
    return f"{answer.rstrip()} [{number}]"
