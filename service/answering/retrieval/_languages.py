"""A language a question names as the part of a text to read ("the German part of the
recording", "the Portuguese sentence of the scan"): the chunks holding text in it are kept by
retrieval, and the passages are narrowed to their sentences in it before fitting.

Held-out dev h162: the OCR of eurotext.tif holds one sentence in each of six languages; given
the whole page, the 1.5B answered "renard brun" (French) for the Portuguese word for the dog.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from core.languages import languages_named, written_in
from service.answering.retrieval._sentences import GAP, split_sentences

if TYPE_CHECKING:
    from service.answering.retrieval._retriever import Passage


def _in(sentence: str, languages: Sequence[str]) -> bool:
    return any(written_in(sentence, language) for language in languages)


def in_named_languages(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """``passages`` narrowed to their sentences in the languages ``question`` names as the part
    to read: a passage with none of them is left out, runs of sentences left out become a
    gap mark. Unchanged when the question names no language, or when no passage holds a
    sentence in one (the checks then find the language unmentioned)."""
    languages = languages_named(question)
    if not languages or not passages:
        return list(passages)
    narrowed: list[Passage] = []
    for p in passages:
        sentences = split_sentences(p.text)
        held = [i for i, s in enumerate(sentences) if _in(s, languages)]
        if not held:
            continue
        text = sentences[held[0]]
        for before, i in itertools.pairwise(held):
            text += (" " if i == before + 1 else GAP) + sentences[i]
        narrowed.append(replace(p, text=text))
    return narrowed or list(passages)
