"""Passages fitted to a token budget: identical texts given once, and of each passage the
sentences that bear on the question (with their neighbours), until the budget is spent.

Prompt evaluation is most of the wait for a first token on a CPU (see NOTES.md, issue 19), so
the model is given less to read. Sentences are scored by cosine similarity to the question with
the embedder already loaded for retrieval (one batch for the question and every sentence).
A passage keeps its number order, label and provenance (its page/slide/row/time still cite
right); a passage with no sentence left is dropped, never the best one. Short passages are
kept whole, and so are tables whose rows do not name their columns (a row without its header
means nothing); rows written with their headers are chosen one by one, like sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from core.embedder import Embedder
from service.answering.retrieval import Passage

#: Marks where sentences were left out of a passage.
GAP = " … "
#: Passages of at most this many tokens are not cut.
WHOLE_BELOW = 48
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_TABLE_KEYS = ("sheet", "rows", "row", "table")


def same_text_key(text: str) -> str:
    """What makes two passages the same: their text with whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def merge_identical(passages: Sequence[Passage]) -> list[Passage]:
    """Passages with the same text given once (at the best rank), carrying the other files as
    ``copies`` so the answer cites every file that holds it; renumbered from 1."""
    first: dict[str, Passage] = {}
    order: list[str] = []
    for p in passages:
        key = same_text_key(p.text)
        if key in first:
            kept = first[key]
            if p.path != kept.path and all(c.path != p.path for c in kept.copies):
                first[key] = replace(kept, copies=(*kept.copies, p))
            continue
        first[key] = p
        order.append(key)
    return [replace(first[k], number=i) for i, k in enumerate(order, start=1)]


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of ``text`` (ends at . ! ? and their CJK forms, and line breaks)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def is_tabular(p: Passage) -> bool:
    """True for a spreadsheet/table passage (rows mean nothing without their header)."""
    if any(k in p.provenance for k in _TABLE_KEYS) or p.file_type in ("csv", "xlsx", "ods"):
        return True
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    return len(lines) >= 3 and sum(("|" in ln or "\t" in ln) for ln in lines) >= len(lines) / 2


def rows_carry_headers(p: Passage) -> bool:
    """True for a table passage whose rows each name their columns ("Item: Oak shelf | Q2 2026:
    22.4", as ingest/loaders/tables.py writes them): any row means something on its own."""
    rows = [ln for ln in p.text.splitlines() if "|" in ln]
    return bool(rows) and sum(": " in ln for ln in rows) >= len(rows) / 2


@dataclass
class _Piece:
    passage: int
    index: int
    text: str
    tokens: int
    score: float


def _score(embedder: Embedder, question: str, sentences: list[str]) -> np.ndarray:
    # On the answer's path: ahead of ingest slices, on the cores answering has now (every core
    # unless ingest runs: 41 squad sentences took 0.49 s on 2 threads, 0.89 s on 1, quiet).
    from core.threads import budget

    vectors = embedder.embed_questions([question, *sentences], threads=budget().answer_threads())
    return np.asarray(vectors[1:] @ vectors[0], dtype=np.float32)


def fit_passages(
    question: str,
    passages: Sequence[Passage],
    embedder: Embedder,
    count_tokens: Callable[[str], int],
    budget: int,
) -> list[Passage]:
    """Passages (best first) cut to at most ``budget`` tokens of text in all.

    Each passage's best sentence is taken in rank order, then the other sentences by score; a
    sentence taken brings its preceding neighbour (the one its pronouns usually point to) when
    that still fits. Passages under ``WHOLE_BELOW`` tokens and tables whose rows do not name their
    columns are whole or not at all; rows that do are pieces, like sentences.
    The first passage always keeps at least its best sentence. ``budget <= 0``, or passages
    that fit as they are: unchanged.
    """
    if budget <= 0 or not passages:
        return list(passages)
    sizes = [count_tokens(p.text) for p in passages]
    if sum(sizes) <= budget:
        return list(passages)  # everything fits: nothing to score
    units: list[list[_Piece]] = []
    flat: list[_Piece] = []
    for i, p in enumerate(passages):
        whole = sizes[i]
        if whole <= WHOLE_BELOW:
            parts = [p.text]
        elif is_tabular(p):  # rows that name their columns are chosen one by one
            rows = rows_carry_headers(p)
            parts = [ln for ln in p.text.splitlines() if ln.strip()] if rows else [p.text]
        else:
            parts = split_sentences(p.text)
        pieces = [
            _Piece(i, j, s, whole if len(parts) == 1 else count_tokens(s), 0.0)
            for j, s in enumerate(parts)
        ]
        units.append(pieces)
        flat.extend(pieces)
    for piece, score in zip(flat, _score(embedder, question, [x.text for x in flat]), strict=True):
        piece.score = float(score)
    chosen: set[tuple[int, int]] = set()
    spent = 0

    def take(piece: _Piece, force: bool = False) -> bool:
        nonlocal spent
        key = (piece.passage, piece.index)
        if key in chosen:
            return True
        if not force and spent + piece.tokens > budget:
            return False
        chosen.add(key)
        spent += piece.tokens
        return True

    best = [max(u, key=lambda x: x.score) for u in units]
    order = best + sorted((x for x in flat if x is not best[x.passage]), key=lambda x: -x.score)
    for n, piece in enumerate(order):
        if not take(piece, force=n == 0):
            continue
        if piece.index > 0:
            take(units[piece.passage][piece.index - 1])
    fitted: list[Passage] = []
    for i, p in enumerate(passages):
        kept = [x for x in units[i] if (i, x.index) in chosen]
        if not kept:
            continue
        text_parts: list[str] = []
        for k, x in enumerate(kept):
            if k and x.index != kept[k - 1].index + 1:
                text_parts.append(GAP.strip())
            text_parts.append(x.text)
        joiner = "\n" if is_tabular(p) else " "  # rows stay on their lines
        text = p.text if len(kept) == len(units[i]) else joiner.join(text_parts)
        if kept[0].index > 0:
            text = GAP.lstrip() + text
        if kept[-1].index < len(units[i]) - 1:
            text = text + GAP.rstrip()
        uncut = p.whole or (p.text if text != p.text else "")
        fitted.append(replace(p, number=len(fitted) + 1, text=text, whole=uncut))
    return fitted
