"""ModelHolder: lazy load, idle unload, resident models, no unload while in use."""

from __future__ import annotations

import threading

from core.holder import ModelHolder


def make(idle: float, resident: bool = False) -> tuple[ModelHolder[object], list[int]]:
    calls: list[int] = []

    def factory() -> object:
        calls.append(1)
        return object()

    return ModelHolder("m", factory, idle_seconds=idle, resident=resident, resident_bytes=7), calls


def test_nothing_loads_until_used() -> None:
    holder, calls = make(idle=60)
    assert not holder.loaded and calls == []
    assert holder.resident_bytes == 7


def test_idle_zero_frees_after_use_and_reloads() -> None:
    holder, calls = make(idle=0)
    with holder.use() as first:
        assert holder.loaded
    assert not holder.loaded
    with holder.use() as second:
        assert second is not first
    assert len(calls) == 2


def test_resident_model_stays() -> None:
    holder, calls = make(idle=0, resident=True)
    with holder.use():
        pass
    with holder.use():
        pass
    assert holder.loaded and len(calls) == 1


def test_kept_while_reused_within_idle_time() -> None:
    holder, calls = make(idle=3600)
    for _ in range(3):
        with holder.use():
            pass
    assert holder.loaded and len(calls) == 1
    holder.unload()
    assert not holder.loaded


def test_idle_timer_frees_the_model() -> None:
    holder, _ = make(idle=0.01)
    with holder.use():
        pass
    timer = holder._timer
    assert timer is not None
    timer.join(timeout=30)
    assert not holder.loaded


def test_not_freed_while_another_user_holds_it() -> None:
    holder, calls = make(idle=0)
    inside = threading.Event()
    release = threading.Event()

    def long_user() -> None:
        with holder.use():
            inside.set()
            release.wait(30)

    t = threading.Thread(target=long_user)
    t.start()
    inside.wait(30)
    with holder.use():
        pass
    holder.unload()  # someone is still using it: must stay
    assert holder.loaded
    release.set()
    t.join(30)
    assert not holder.loaded
    assert len(calls) == 1
