"""The one thread bridge: items, errors, and stopping when the consumer goes away."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from service.bridge import Abandoned, Generations, in_thread, run_in_thread


def test_items_arrive_in_order_and_errors_are_raised_in_the_caller() -> None:
    def work(stop: threading.Event) -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("boom")

    async def consume() -> list[int]:
        return [i async for i in in_thread(work, None)]

    with pytest.raises(ValueError, match="boom"):
        asyncio.run(consume())

    async def collect() -> list[int]:
        return [i async for i in in_thread(lambda stop: iter([1, 2, 3]), None)]

    assert asyncio.run(collect()) == [1, 2, 3]


def test_consumer_leaving_stops_the_work() -> None:
    seen: list[threading.Event] = []

    def work(stop: threading.Event) -> Iterator[int]:
        seen.append(stop)
        n = 0
        while not stop.wait(0.01):
            n += 1
            yield n

    async def first_two() -> list[int]:
        out = []
        gen = in_thread(work, None)
        async for i in gen:
            out.append(i)
            if len(out) == 2:
                break
        await gen.aclose()
        return out

    assert asyncio.run(first_two()) == [1, 2]
    assert seen[0].is_set(), "the consumer left but the work was not told to stop"


def test_stopping_everything_ends_the_work_first_then_raises_abandoned() -> None:
    ended = threading.Event()

    def work(stop: threading.Event) -> Iterator[int]:
        try:
            n = 0
            while not stop.wait(0.01):
                n += 1
                yield n
        finally:
            ended.set()

    async def run(generations: Generations) -> None:
        async for i in in_thread(work, None, generations=generations):
            if i == 3:
                assert generations.stop_all() == 1

    generations = Generations()
    with pytest.raises(Abandoned, match="stopping"):
        asyncio.run(run(generations))
    assert ended.is_set(), "Abandoned was raised before the work had ended"
    # Once stopping, a generation that starts is stopped at once.
    with pytest.raises(Abandoned):
        asyncio.run(run_in_thread(lambda stop: stop.wait(5), None, "t", generations=generations))


def test_a_whole_result_comes_back_from_its_thread() -> None:
    assert asyncio.run(run_in_thread(lambda stop: 42, None, "t", generations=Generations())) == 42
