"""The evaluation metrics against small cases worked by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import pytest

from core.evalmetrics import (
    DONT_KNOW,
    answer_contains,
    is_abstention,
    mean,
    median,
    ndcg_at_k,
    normalize_answer,
    p95,
    percentile,
    recall_at_k,
    reciprocal_rank,
)
from core.text import DONT_KNOW as PROMPT_DONT_KNOW

# -- recall@k ---------------------------------------------------------------------------------


def test_recall_single_relevant() -> None:
    # ranked [a, b, c], relevant {b}: b is at rank 2 -> recall@1 = 0/1, recall@2 = 1/1
    assert recall_at_k(["a", "b", "c"], {"b"}, 1) == 0.0
    assert recall_at_k(["a", "b", "c"], {"b"}, 2) == 1.0
    assert recall_at_k(["a", "b", "c"], {"b"}, 10) == 1.0


def test_recall_several_relevant_k_smaller_than_list() -> None:
    # ranked [a, x, b, y, c], relevant {a, b, c, d}: top 3 holds a, b -> 2/4 = 0.5;
    # top 5 holds a, b, c -> 3/4 = 0.75 (d is never retrieved)
    ranked = ["a", "x", "b", "y", "c"]
    assert recall_at_k(ranked, {"a", "b", "c", "d"}, 3) == 0.5
    assert recall_at_k(ranked, {"a", "b", "c", "d"}, 5) == 0.75


def test_recall_repeats_count_once_and_empty_cases() -> None:
    # ranked [a, a], relevant {a, b}: only a found -> 1/2 (a repeated id is not a second hit)
    assert recall_at_k(["a", "a"], {"a", "b"}, 2) == 0.5
    assert recall_at_k([], {"a"}, 10) == 0.0  # nothing retrieved
    assert recall_at_k(["a"], set(), 10) == 0.0  # nothing relevant: defined as 0


# -- reciprocal rank --------------------------------------------------------------------------


def test_reciprocal_rank() -> None:
    # ranked [a, b, c], relevant {b} -> first hit at rank 2 -> 1/2
    assert reciprocal_rank(["a", "b", "c"], {"b"}) == 0.5
    # relevant {c, b}: the first relevant one ranked is b (rank 2), not c -> 1/2
    assert reciprocal_rank(["a", "b", "c"], {"c", "b"}) == 0.5
    # first hit at rank 1 -> 1; at rank 4 -> 0.25
    assert reciprocal_rank(["b"], {"b"}) == 1.0
    assert reciprocal_rank(["w", "x", "y", "z"], {"z"}) == 0.25
    assert reciprocal_rank(["a", "c"], {"b"}) == 0.0
    assert reciprocal_rank([], {"b"}) == 0.0


def test_mean_reciprocal_rank_of_three_queries() -> None:
    # hits at ranks 1, 3 and none -> (1 + 1/3 + 0) / 3 = 4/9 = 0.4444...
    rrs = [
        reciprocal_rank(["a", "b"], {"a"}),
        reciprocal_rank(["x", "y", "a"], {"a"}),
        reciprocal_rank(["x"], {"a"}),
    ]
    assert mean(rrs) == pytest.approx(4 / 9)


# -- nDCG@k -----------------------------------------------------------------------------------


def test_ndcg_single_relevant_at_rank_two() -> None:
    # ranked [a, b, c], grades {b: 1}: DCG = 1/log2(2+1) = 1/log2(3) = 0.6309;
    # ideal [1] -> IDCG = 1/log2(2) = 1 -> nDCG = 0.6309...
    value = ndcg_at_k(["a", "b", "c"], {"b": 1}, 10)
    assert value == pytest.approx(1 / math.log2(3))
    assert value == pytest.approx(0.63093, abs=1e-5)


def test_ndcg_graded_relevance() -> None:
    # ranked [a, b, c], grades {a: 1, b: 0, c: 2} (b judged not relevant):
    # DCG  = 1/log2(2) + 0/log2(3) + 2/log2(4) = 1 + 0 + 1 = 2
    # ideal order [c(2), a(1)] -> IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.63093 = 2.63093
    # nDCG = 2 / 2.63093 = 0.76018
    value = ndcg_at_k(["a", "b", "c"], {"a": 1, "b": 0, "c": 2}, 10)
    assert value == pytest.approx(2 / (2 + 1 / math.log2(3)))
    assert value == pytest.approx(0.76018, abs=1e-5)


def test_ndcg_perfect_and_cut_by_k() -> None:
    # the ideal order scores exactly 1
    assert ndcg_at_k(["c", "a"], {"a": 1, "c": 2}, 10) == pytest.approx(1.0)
    # k = 1: ranked [a, c], grades {a: 1, c: 2}: DCG@1 = 1/log2(2) = 1; IDCG@1 = 2 -> 0.5
    assert ndcg_at_k(["a", "c"], {"a": 1, "c": 2}, 1) == pytest.approx(0.5)
    # the relevant doc at rank 3 is beyond k = 2 -> 0
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}, 2) == 0.0


def test_ndcg_two_relevant_ideal_from_grades_not_from_the_ranking() -> None:
    # ranked [a, x, y], grades {a: 1, b: 1} (b never retrieved):
    # DCG = 1/log2(2) = 1; IDCG = 1/log2(2) + 1/log2(3) = 1.63093 -> nDCG = 0.61315
    assert ndcg_at_k(["a", "x", "y"], {"a": 1, "b": 1}, 10) == pytest.approx(
        1 / (1 + 1 / math.log2(3))
    )


def test_ndcg_empty_cases_and_repeats() -> None:
    assert ndcg_at_k(["a", "b"], {}, 10) == 0.0  # nothing relevant
    assert ndcg_at_k(["a", "b"], {"a": 0}, 10) == 0.0  # judged, but all grade 0
    assert ndcg_at_k([], {"a": 1}, 10) == 0.0  # nothing retrieved
    # ranked [a, a], grades {a: 1, b: 1}: a gains once -> DCG = 1; IDCG = 1.63093
    assert ndcg_at_k(["a", "a"], {"a": 1, "b": 1}, 10) == pytest.approx(1 / (1 + 1 / math.log2(3)))


# -- answer containment -----------------------------------------------------------------------


def test_normalize_answer_squad_style() -> None:
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert normalize_answer("An apple, a pear.") == "apple pear"
    assert normalize_answer("“Rollo’s” men") == "rollos men"


def test_answer_contains_ignores_case_punctuation_and_articles() -> None:
    assert answer_contains("Normandy is in France [1].", "France")
    assert answer_contains("It was patented by Christopher Sholes.", ["Sholes", "C. Sholes"])
    assert answer_contains("He reached the Eiffel Tower.", "Eiffel tower")  # "the" dropped
    assert answer_contains("In 1868, it was patented.", "1868")
    assert answer_contains("U.S.A.", "usa")  # punctuation inside the expected string too


def test_answer_contains_needs_whole_words() -> None:
    assert not answer_contains("The Franks settled there.", "Frank")
    assert not answer_contains("Normandy is in France.", "Germany")
    assert not answer_contains("anything", [])
    assert not answer_contains("anything", ["", "!!"])  # an empty expectation matches nothing


# -- abstention -------------------------------------------------------------------------------


def test_abstention_recognises_the_template_sentence() -> None:
    assert PROMPT_DONT_KNOW == DONT_KNOW  # one sentence, shared by prompts and metrics
    assert is_abstention(DONT_KNOW)
    assert is_abstention(f"{DONT_KNOW} [1]")
    assert is_abstention("I don’t know: your documents do not say")  # curly apostrophe
    assert is_abstention("I do not know.")
    assert is_abstention("The sources do not contain that information.")
    assert is_abstention("")
    assert is_abstention("   ")


def test_answers_that_merely_say_not_are_not_abstentions() -> None:
    assert not is_abstention("Normandy is not in Germany; it is in France [1].")
    assert not is_abstention("The Normans did not come from Spain.")
    assert not is_abstention("Do not store the pool chemicals near heat [2].")
    assert not is_abstention("I know: it is 42 [1].")


# -- aggregates -------------------------------------------------------------------------------


def test_mean_median_p95() -> None:
    assert mean([1.0, 2.0, 6.0]) == 3.0
    assert mean([]) is None
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([1.0, 2.0, 3.0, 4.0]) == 2.5  # halfway between 2 and 3
    assert median([]) is None
    # values 1..20: p95 at position (20-1) * 0.95 = 18.05 -> 19 + 0.05 * (20 - 19) = 19.05
    assert p95([float(v) for v in range(1, 21)]) == pytest.approx(19.05)
    assert p95([5.0]) == 5.0
    assert percentile([10.0, 20.0], 0) == 10.0
    assert percentile([10.0, 20.0], 100) == 20.0
