"""Evaluation metrics, as pure functions: retrieval (recall@k, reciprocal rank, nDCG@k), answers
(SQuAD-style containment, abstention), transcripts (word error rate) and aggregates (mean,
median, p95).

Shared by ``hearth eval`` (service/evaluation) and the benchmarks (bench/).
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Collection, Iterable, Mapping, Sequence

from core.text import DONT_KNOW

__all__ = ["DONT_KNOW"]  # re-exported: the metrics' callers compare with it


#: Phrases that mark an answer as declined. The first is the sentence the templates ask for
#: (without its final period); the others are how small models paraphrase it.
ABSTENTION_PHRASES = (
    DONT_KNOW.lower().rstrip("."),
    "i don't know",
    "i do not know",
    "your documents do not say",
    "the documents do not say",
    "the sources do not say",
    "the sources do not contain",
    "the documents do not contain",
    "not mentioned in the sources",
    "not mentioned in the documents",
    "cannot be answered from",
    "i cannot answer",
    "i can't answer",
)

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


# -- retrieval ------------------------------------------------------------------------------


def recall_at_k(ranked_ids: Sequence[str], relevant_ids: Collection[str], k: int) -> float:
    """Share of the relevant ids found in the first ``k`` ranked ids (0.0 when none is relevant).

    Repeated ids in the ranking count once.
    """
    if not relevant_ids:
        return 0.0
    found = {d for d in ranked_ids[:k] if d in relevant_ids}
    return len(found) / len(set(relevant_ids))


def reciprocal_rank(ranked_ids: Sequence[str], relevant_ids: Collection[str]) -> float:
    """1 / (1-based rank of the first relevant id); 0.0 when none is ranked."""
    for rank, doc in enumerate(ranked_ids, start=1):
        if doc in relevant_ids:
            return 1.0 / rank
    return 0.0


def dcg(gains: Iterable[float]) -> float:
    """Discounted cumulative gain: sum of gain_i / log2(i + 1), ranks i from 1."""
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))


def ndcg_at_k(ranked_ids: Sequence[str], graded_relevance: Mapping[str, int], k: int) -> float:
    """nDCG@k with graded gains (the grade itself is the gain; a repeated id gains once).

    The ideal DCG takes the ``k`` highest grades; 0.0 when nothing is relevant.
    """
    ideal = dcg(sorted((g for g in graded_relevance.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    seen: set[str] = set()
    gains: list[float] = []
    for doc in ranked_ids[:k]:
        gains.append(0.0 if doc in seen else float(graded_relevance.get(doc, 0)))
        seen.add(doc)
    return dcg(gains) / ideal


# -- transcripts ----------------------------------------------------------------------------

_NOT_WORD = re.compile(r"[^\w\s']")


def normalise_transcript(text: str) -> str:
    """Lower case, punctuation (but not apostrophes) dropped, whitespace collapsed."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def edit_distance(a: Sequence[object], b: Sequence[object]) -> int:
    """Levenshtein distance between two sequences (words or characters)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / reference words, on normalised text; a
    hypothesis against an empty reference is 1.0 unless it is empty too."""
    ref = normalise_transcript(reference).split()
    hyp = normalise_transcript(hypothesis).split()
    if not ref:
        return 0.0 if not hyp else 1.0
    return edit_distance(ref, hyp) / len(ref)


# -- answers --------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, punctuation and articles (a, an, the) dropped,
    whitespace collapsed."""
    text = text.translate(_QUOTES).lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_contains(answer: str, expected: str | Iterable[str]) -> bool:
    """True when any expected string, normalised, occurs in the normalised answer as whole
    words ("paris" is in "It is Paris.", "par" is not)."""
    options = [expected] if isinstance(expected, str) else list(expected)
    haystack = f" {normalize_answer(answer)} "
    for option in options:
        needle = normalize_answer(option)
        if needle and f" {needle} " in haystack:
            return True
    return False


def is_abstention(answer: str) -> bool:
    """True when the answer declines (empty, or one of :data:`ABSTENTION_PHRASES`); an answer
    that merely contains "not" is an answer."""
    text = " ".join(answer.translate(_QUOTES).lower().split())
    if not text:
        return True
    return any(phrase in text for phrase in ABSTENTION_PHRASES)


# -- aggregates -----------------------------------------------------------------------------


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean; None for no values."""
    items = list(values)
    return sum(items) / len(items) if items else None


def percentile(values: Iterable[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) with linear interpolation between closest ranks (numpy's
    default); None for no values."""
    items = sorted(values)
    if not items:
        return None
    pos = (len(items) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(items) - 1)
    return items[lo] + (items[hi] - items[lo]) * (pos - lo)


def median(values: Iterable[float]) -> float | None:
    """The median (50th percentile); None for no values."""
    return percentile(values, 50)


def p95(values: Iterable[float]) -> float | None:
    """The 95th percentile; None for no values."""
    return percentile(values, 95)
