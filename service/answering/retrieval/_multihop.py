"""Two-step questions: a second retrieval bridged by the names the first passage brings.

"When did the leader of the Harbour project join the company?" finds the passage saying the
project "was led by Imogen Clarke", but not the one saying when Imogen Clarke joined: the question
does not name her. The names of the best passage that the question does not hold (capitalised
words that do not open a sentence, as the grounding check reads them) are added to the question
and retrieved again (and the names alone, when that finds nothing new); the best new passage that
holds one of the names (at most ``extra``) is appended, within ``top_k``.
Retrieval only (an embedding and a BM25 query, milliseconds); no model call.

Arithmetic questions the same way (``side_hop``): "How many days after the Lion Air Flight 610
accident did the Ethiopian Airlines Flight 302 accident happen?" found the Ethiopian accident's
date but not Lion Air's, so the difference could not be computed. Each side is searched on its
own, and the first of its passages (or pair of them) with which the inputs of both sides are
found is appended.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from core.text import claims
from service.answering.retrieval._retriever import Filters, Passage, Retriever

#: Names taken from the best passage at most (in order of appearance).
MAX_NAMES = 6
#: Passages each side's own search offers at most (best first) to complete an arithmetic question.
SIDE_CANDIDATES = 5


def bridge_names(question: str, passage: str) -> list[str]:
    """Names in ``passage`` the question does not hold (no numbers)."""
    asked = {w.lower() for w in re.findall(r"\w+", question)}
    return [c for c in claims(passage) if not c[0].isdigit() and c.lower() not in asked][:MAX_NAMES]


def second_hop(
    retriever: Retriever,
    question: str,
    passages: list[Passage],
    top_k: int,
    filters: Filters | None = None,
    extra: int = 1,
) -> list[Passage]:
    """``passages`` plus at most ``extra`` passages found for the question and the bridging names
    of the best one (none when it brings no names, or the list already holds ``top_k``)."""
    if not passages or extra <= 0 or len(passages) >= top_k:
        return passages
    names = bridge_names(question, passages[0].text)
    if not names:
        return passages
    have = {p.chunk_id for p in passages}
    folded = [n.lower() for n in names]

    def bridged(found: list[Passage]) -> list[Passage]:
        # A second step is about a bridging name: a passage without one is not it.
        return [
            p for p in found if p.chunk_id not in have and any(n in p.text.lower() for n in folded)
        ]

    # The margin is relative to the best passage, which is often the first one again.
    new = bridged(
        retriever.retrieve(f"{question} {' '.join(names)}", filters=filters, relative_margin=1.0)
    )
    if not new:  # the question's own words outranked the names (e.g. ranking without IDF)
        new = bridged(retriever.retrieve(" ".join(names), filters=filters, relative_margin=1.0))
    return _appended(passages, new[: min(extra, top_k - len(passages))])


def _appended(passages: list[Passage], new: list[Passage], kept: bool = False) -> list[Passage]:
    """``passages`` then ``new``, numbered after them and ``kept`` as given. A new passage is
    ``named`` only when its document is one the question named: a hop's own query may name
    another ("How many people died in the Ethiopian Airlines Flight 302 accident?": the hop
    for "Lion Air" came back named, and fitting gave its sentences the first passage's
    "resulting in 157 fatalities")."""
    named = {p.document_id for p in passages if p.named}
    start = _next_number(passages)
    return passages + [
        replace(p, number=start + i, named=p.document_id in named, kept=kept)
        for i, p in enumerate(new)
    ]


def _next_number(passages: Sequence[Passage]) -> int:
    """The number an appended passage takes: one past the highest of ``passages`` (not past
    their count: a caller may pass some of a search's passages, numbered as found, and two
    passages under one number would read as one in the prompt and in ``compute``)."""
    return max((p.number for p in passages), default=0) + 1


def side_hop(
    retriever: Retriever,
    passages: list[Passage],
    sides: Sequence[str],
    complete: Callable[[list[Passage]], bool],
    filters: Filters | None = None,
) -> list[Passage]:
    """``passages`` plus the fewest passages found for the ``sides`` of an arithmetic question
    (``grounding`` reads them: "the Lion Air Flight 610 accident") that make them ``complete``
    (both inputs found: ``compute`` gives a result); first one passage, then a pair, of the
    ``SIDE_CANDIDATES`` best each side's own search finds. Appended passages are ``kept``, so
    fitting to the token budget keeps them. ``passages`` unchanged when they are complete
    already or no candidate completes them."""
    if not sides or complete(passages):
        return passages
    have = {p.chunk_id for p in passages}
    offered: list[Passage] = []
    for side in sides:
        for p in retriever.retrieve(side, filters=filters, relative_margin=1.0)[:SIDE_CANDIDATES]:
            if p.chunk_id not in have:
                have.add(p.chunk_id)
                offered.append(p)

    trials = [[p] for p in offered]
    trials += [[p, q] for i, p in enumerate(offered) for q in offered[i + 1 :]]
    for extra in trials:
        candidate = _appended(passages, extra, kept=True)
        if complete(candidate):
            return candidate
    return passages
