"""Lexical scores of texts against a question, computed here and not by a keyword backend (so
the same on SQLite FTS5 BM25 and Postgres ``ts_rank``): passage fitting ranks sentences with it,
and retrieval picks the best chunk of a kind a question names alone."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core.keywords.base import query_terms, text_words
from core.text import spelled_out
from core.text import stems as stem_words


def stems_of(text: str) -> set[str]:
    """The stems of ``text``'s words and of the words its abbreviations stand for ("Bill no.
    3139" holds "number": held-out dev h106 lost that line to the bill's amount)."""
    return set(stem_words([*text_words(text), *spelled_out(text)]))


def lexical_scores(question: str, sentences: Sequence[str]) -> np.ndarray:
    """Per sentence, the share (0-1) of the question's words it holds, each word weighted by
    ``log(1 + n / df)`` over the ``n`` sentences (a word every sentence holds weighs least).

    Words are English stop-word-free and Snowball-stemmed; CJK text counts by its character
    trigrams (and 2-character runs) as substrings, like the keyword index. Shape ``(n,)``.
    """
    terms = query_terms(question)
    stems_asked = set(stem_words(terms.words))
    cjk = (*terms.trigrams, *terms.short_cjk)
    held = [
        {w for w in stems_asked if w in stems} | {c for c in cjk if c in s}
        for s, stems in ((s, stems_of(s)) for s in sentences)
    ]
    keys = stems_asked | set(cjk)
    if not keys or not sentences:
        return np.zeros(len(sentences), dtype=np.float32)
    n = len(sentences)
    weight = {k: math.log(1 + n / max(sum(k in h for h in held), 1)) for k in keys}
    total = sum(weight.values())
    return np.asarray([sum(weight[k] for k in h) / total for h in held], dtype=np.float32)
