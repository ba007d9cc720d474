"""The keyword postings cap (core/keywords/base.py) and the core budget (core/threads.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from core.keywords.base import FrequencyCache, cap_terms
from core.threads import CoreBudget, available_cores, budget, configure

DF = {"from": 44_000, "which": 34_000, "countries": 9_600, "norse": 960, "originate": 5_900}


def counts(table: dict[str, int]) -> Callable[[tuple[str, ...]], dict[str, int]]:
    """A batch document-frequency function over ``table``."""
    return lambda terms: {t: table[t] for t in terms}


def test_no_cap_or_a_budget_that_fits_keeps_every_term_in_order() -> None:
    terms = ("from", "which", "norse")
    assert cap_terms(terms, counts(DF), 0) == terms
    assert cap_terms(terms, counts(DF), 100_000) == terms


def test_the_commonest_terms_are_dropped_past_the_budget() -> None:
    terms = ("from", "which", "countries", "norse", "originate")
    assert cap_terms(terms, counts(DF), 20_000) == ("countries", "norse", "originate")
    assert cap_terms(terms, counts(DF), 7_000) == ("norse", "originate")


def test_the_rarest_term_is_kept_even_over_budget_and_absent_terms_go() -> None:
    df = {"common": 90_000, "commoner": 95_000, "nowhere": 0}
    assert cap_terms(("common", "commoner", "nowhere"), counts(df), 1_000) == ("common",)
    assert cap_terms(("nowhere", "common"), counts(df), 100_000) == ("common",)


def test_frequencies_are_counted_once_and_the_oldest_dropped() -> None:
    counted: list[tuple[str, ...]] = []

    def count(terms: tuple[str, ...]) -> dict[str, int]:
        counted.append(terms)
        return {t: len(t) for t in terms}

    cache = FrequencyCache(count, size=2)
    assert cache(("ab",)) == {"ab": 2} and cache(("ab",)) == {"ab": 2}
    assert counted == [("ab",)]
    cache(("abc",))
    cache(("abcd",))  # "ab" is the least recently used: dropped
    assert cache(("ab", "abcd")) == {"ab": 2, "abcd": 4}
    assert counted == [("ab",), ("abc",), ("abcd",), ("ab",)]  # only the missing, in one call


def test_frequencies_expire() -> None:
    calls: list[tuple[str, ...]] = []

    def count(terms: tuple[str, ...]) -> dict[str, int]:
        calls.append(terms)
        return dict.fromkeys(terms, 1)

    cache = FrequencyCache(count, ttl_s=0.0)
    cache(("x",))
    cache(("x",))
    assert calls == [("x",), ("x",)]


def test_answer_and_ingest_alone_get_every_core_and_together_add_up() -> None:
    b = CoreBudget(cores=2, answer_cores=1)
    assert (b.answer_threads(), b.ingest_threads()) == (2, 2)
    with b.answering():
        assert b.ingest_threads() == 1 and b.answer_threads() == 2
        with b.ingesting():
            assert b.answer_threads() + b.ingest_threads() == 2
    assert (b.answer_threads(), b.ingest_threads()) == (2, 2)
    eight = CoreBudget(cores=8, answer_cores=5)
    with eight.answering(), eight.ingesting():
        assert (eight.answer_threads(), eight.ingest_threads()) == (5, 3)
    assert eight.fixed_ingest_threads() == 3


def test_without_sharing_every_component_takes_every_core() -> None:
    b = CoreBudget(cores=4, answer_cores=2, share=False)
    with b.answering(), b.ingesting():
        assert (b.answer_threads(), b.ingest_threads(), b.fixed_ingest_threads()) == (4, 4, 4)


def test_one_core_is_never_split_below_one_thread() -> None:
    b = CoreBudget(cores=1, answer_cores=1)
    with b.answering(), b.ingesting():
        assert (b.answer_threads(), b.ingest_threads()) == (1, 1)


def test_configure_keeps_work_in_progress_and_counts_across_threads() -> None:
    old = (budget().cores, budget().answer_cores, budget().share, budget().adaptive)
    try:
        configure(cores=2, answer_cores=1, adaptive=False)  # other programs' load left out
        started, release = threading.Event(), threading.Event()

        def ingest() -> None:
            with budget().ingesting():
                started.set()
                release.wait(5)

        worker = threading.Thread(target=ingest)
        worker.start()
        started.wait(5)
        configure(cores=2, answer_cores=1, adaptive=False)  # settings loaded again mid-ingest
        assert budget().answer_threads() == 1
        release.set()
        worker.join(5)
        assert budget().answer_threads() == 2
    finally:
        configure(*old)
    assert available_cores() >= 1


def test_a_prompt_being_read_takes_every_core_and_holds_ingest_slices() -> None:
    b = CoreBudget(cores=2, answer_cores=1)
    done: list[float] = []
    with b.ingesting(), b.answering():
        assert b.answer_threads() == 1
        with b.reading_prompt():
            assert b.answer_threads() == 2  # the person waits for the first token

            def slice_() -> None:
                b.wait_for_prompts()
                done.append(1.0)

            worker = threading.Thread(target=slice_)
            worker.start()
            worker.join(0.2)
            assert not done  # the ingest slice waits for the prompt
        worker.join(5)
        assert done
        assert b.answer_threads() == 1  # generating beside ingest: its share


def test_waiting_for_prompts_is_bounded_and_off_without_sharing() -> None:
    b = CoreBudget(cores=2, answer_cores=1)
    with b.reading_prompt():
        b.wait_for_prompts(timeout_s=0.05)  # returns: a stream of questions cannot stop ingest
    unshared = CoreBudget(cores=2, answer_cores=1, share=False)
    with unshared.reading_prompt():
        unshared.wait_for_prompts(timeout_s=60)  # returns at once


def test_frequencies_counted_only_up_to_the_budget_still_cap_right() -> None:
    clamped = {"from": 1_001, "which": 1_001, "norse": 960, "were": 1_001}  # budget 1,000
    assert cap_terms(("from", "which", "norse"), counts(clamped), 1_000) == ("norse",)
    assert cap_terms(("were", "from", "which"), counts(clamped), 1_000) == ("were",)
