"""The fair queue and the router, with no model behind them."""

from __future__ import annotations

import threading

import pytest

from core.errors import ConfigError, InvalidInputError, NotFoundError, OverloadedError
from service.llm.config import Router
from service.llm.queue import FairQueue


def test_fifo_one_at_a_time_and_bound() -> None:
    q = FairQueue("m", max_waiting=2, timeout_s=60)
    stop = threading.Event()
    a, b, c = q.admit(), q.admit(), q.admit()
    with pytest.raises(OverloadedError) as err:
        q.admit()
    assert err.value.retry_after >= 1
    assert q.rejected == 1
    assert a.wait(stop)  # head runs
    got: list[str] = []
    tb = threading.Thread(target=lambda: got.append("b") if b.wait(stop) else None)
    tb.start()
    tb.join(0.3)
    assert tb.is_alive()  # b waits while a runs
    a.release()
    tb.join(5)
    assert got == ["b"]
    b.release()
    assert c.wait(stop)
    c.release()
    assert [s.outcome for s in q.recent] == ["done", "done", "done"]


def test_cancel_frees_place_at_once() -> None:
    q = FairQueue("m", max_waiting=1, timeout_s=60)
    running, waiting = q.admit(), q.admit()
    assert running.wait(threading.Event())
    with pytest.raises(OverloadedError):
        q.admit()
    waiting.release("cancelled")  # the client went away
    third = q.admit()  # its place is free without waiting for the generation
    assert waiting.stats.outcome == "cancelled"
    running.release()
    assert third.wait(threading.Event())


def test_stop_and_timeout_leave_the_line() -> None:
    q = FairQueue("m", max_waiting=3, timeout_s=0.2)
    head = q.admit()
    assert head.wait(threading.Event())
    stopped, late = q.admit(), q.admit()
    stop = threading.Event()
    stop.set()
    assert not stopped.wait(stop)
    assert not late.wait(threading.Event())  # deadline passes while head runs
    assert (stopped.stats.outcome, late.stats.outcome) == ("cancelled", "timeout")
    assert q.depth == 0


def test_router() -> None:
    r = Router(["small", "coder"], {"code": "coder"}, "small")
    assert r.pick(task="code") == "coder"
    assert r.pick(task="qa") == "small"
    assert r.pick(model="coder", task="qa") == "coder"
    assert r.pick() == "small"
    with pytest.raises(NotFoundError, match="model"):
        r.pick(model="huge")
    with pytest.raises(InvalidInputError, match="task"):
        r.pick(task="poem")
    with pytest.raises(ConfigError, match=r"llm\.routes"):
        Router(["small"], {"code": "missing"}, None)
