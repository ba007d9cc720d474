"""Thread counts from the load other programs put on the cores (core/cpuload.py, core/threads.py),
fed fake /proc readings, and the OpenMP spin bound set at ``core`` import."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from core.cpuload import (
    CpuSample,
    LoadWatcher,
    busy_elsewhere,
    cores_taken,
    parse_proc_stat,
    parse_self_stat,
    read_sample,
)
from core.threads import SPIN_ENV, CoreBudget, calm_spinning

#: /proc/stat of a machine with 3 CPUs (fields: user nice system idle iowait irq softirq steal).
STAT = """cpu  900 0 90 3000 30 0 9 30 0 0
cpu0 300 0 30 1000 10 0 3 10 0 0
cpu1 {cpu1} 0 0 {idle1} 0 0 0 0 0 0
cpu2 300 0 30 1000 10 0 3 10 0 0
intr 123 0 0
"""
#: /proc/self/stat: utime is field 14, stime field 15; the name may hold spaces and ")".
SELF = "4242 (python3 -c x) y) R 1 4242 4242 0 -1 4194560 500 0 0 0 {utime} {stime} 0 0 20 0 3\n"


class FakeProc:
    """A /proc folder whose counters the test moves on: ``tick`` adds what happened in
    ``seconds`` on a machine of ``cpus`` CPUs at 100 ticks a second."""

    def __init__(self, root: Path, cpus: int = 2) -> None:
        self.root = root
        (root / "self").mkdir(parents=True)
        self.now = 0.0
        self.cpu = [[0, 0] for _ in range(cpus)]  # per CPU: busy ticks, idle ticks
        self.own = 0
        self._write()

    def _write(self) -> None:
        lines = ["cpu  0 0 0 0 0 0 0 0 0 0"]
        for n, (busy, idle) in enumerate(self.cpu):
            # busy spread over user, system and steal, as a real machine's
            lines.append(
                f"cpu{n} {busy - busy // 4 - busy // 8} 0 {busy // 4} {idle} 0 0 0 {busy // 8} 0 0"
            )
        (self.root / "stat").write_text("\n".join(lines) + "\n")
        (self.root / "self" / "stat").write_text(SELF.format(utime=self.own, stime=0))

    def tick(self, seconds: float, others: float, ours: float) -> None:
        """``others`` and ``ours``: cores kept busy during ``seconds``."""
        ticks = round(100 * seconds)
        busy = round((others + ours) * ticks)
        for n in range(len(self.cpu)):
            share = min(ticks, busy - n * ticks) if busy > n * ticks else 0
            self.cpu[n][0] += share
            self.cpu[n][1] += ticks - share
        self.own += round(ours * ticks)
        self.now += seconds
        self._write()

    def watcher(self) -> LoadWatcher:
        read = functools.partial(read_sample, proc=self.root, clock=lambda: self.now)
        cpus = set(range(len(self.cpu)))
        return LoadWatcher(cpus=cpus, read=read, window_s=1.0, background=False)


def test_proc_stat_counts_the_allowed_cpus_and_steal_as_busy() -> None:
    busy, total = parse_proc_stat(STAT.format(cpu1=500, idle1=500), {0, 1})
    assert busy == (300 + 30 + 3 + 10) + 500  # user, system, softirq, steal; iowait is idle
    assert total == busy + 1000 + 10 + 500
    assert parse_proc_stat(STAT.format(cpu1=1, idle1=1), {2}) == (343, 1353)
    assert parse_self_stat(SELF.format(utime=70, stime=5)) == 75


def test_other_programs_use_is_what_the_cores_did_less_this_process() -> None:
    old = CpuSample(0.0, busy=0, total=0, own=0)
    # 1 s on 2 cores (200 ticks): 150 busy, of which this process 80 -> others 0.7 core
    assert busy_elsewhere(old, CpuSample(1.0, 150, 200, 80), cores=2) == pytest.approx(0.7)
    assert busy_elsewhere(old, CpuSample(1.0, 0, 0, 0), cores=2) == 0.0  # no tick passed
    assert busy_elsewhere(old, CpuSample(1.0, 50, 200, 60), cores=2) == 0.0  # never below 0
    # a busy loop beside our two threads gets ~0.67 core: it counts as one core taken
    assert [cores_taken(b) for b in (0.0, 0.3, 0.49, 0.5, 0.67, 1.0, 1.4, 1.6)] == [
        0,
        0,
        0,
        1,
        1,
        1,
        1,
        2,
    ]


def test_threads_leave_out_the_cores_other_programs_keep_busy(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    watcher = proc.watcher()
    b = CoreBudget(cores=2, answer_cores=1, watcher=watcher)
    watcher.sample()
    proc.tick(1.0, others=0.05, ours=0.0)  # quiet
    watcher.sample()
    assert b.load().free == 2 and b.answer_threads() == 2
    proc.tick(1.0, others=0.67, ours=1.33)  # a busy loop beside our two threads
    watcher.sample()
    load = b.load()
    assert load.busy == pytest.approx(0.67, abs=0.02) and load.free == 1
    assert b.answer_threads(load) == 1 and b.ingest_threads(load) == 1
    proc.tick(1.0, others=1.0, ours=1.0)  # ... then beside our one thread
    watcher.sample()
    assert b.answer_threads() == 1
    proc.tick(0.5, others=2.0, ours=0.0)  # two busy loops: still one thread, never none
    watcher.sample()
    assert b.load().free == 1 and b.fixed_ingest_threads() == 1
    proc.tick(1.0, others=0.0, ours=1.0)  # they stopped: re-checked, every core again
    watcher.sample()
    proc.tick(0.5, others=0.0, ours=1.0)
    watcher.sample()
    assert b.answer_threads() == 2


def test_with_ingest_running_the_answer_and_ingest_share_what_is_free(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc", cpus=8)
    watcher = proc.watcher()
    eight = CoreBudget(cores=8, answer_cores=5, watcher=watcher)
    watcher.sample()
    proc.tick(1.0, others=2.0, ours=0.0)  # a two-thread program: 6 cores free
    watcher.sample()
    assert eight.load().busy == pytest.approx(2.0) and eight.load().free == 6
    with eight.answering(), eight.ingesting():
        assert (eight.answer_threads(), eight.ingest_threads()) == (5, 1)
    with eight.answering():
        assert eight.answer_threads() == 6  # alone: every free core


def test_not_adaptive_reports_the_load_but_takes_every_core(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    watcher = proc.watcher()
    b = CoreBudget(cores=2, answer_cores=1, watcher=watcher, adaptive=False)
    watcher.sample()
    proc.tick(1.0, others=1.0, ours=1.0)
    watcher.sample()
    load = b.load()
    assert load.busy == pytest.approx(1.0) and load.free == 2 and b.answer_threads() == 2


def test_a_prompt_leaves_a_core_only_to_a_steady_program_that_leaves_one(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    watcher = proc.watcher()
    b = CoreBudget(cores=2, answer_cores=1, watcher=watcher)
    every = CoreBudget(cores=2, answer_cores=1, watcher=watcher, prompt_every_core=True)
    seen = []
    for others in (1.0, 1.4, 2.0, 0.0):  # a busy loop, a llama.cpp neighbour, two loops, none
        for _ in range(5):
            proc.tick(0.25, others=others, ours=0.0)
            watcher.sample()
        with b.answering(), b.reading_prompt():
            seen.append((b.prompt_threads(), b.answer_threads(), every.prompt_threads()))
    assert seen == [(1, 1, 2), (2, 1, 2), (2, 1, 2), (2, 2, 2)]


def test_the_window_forgets_load_older_than_a_second(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    watcher = proc.watcher()
    watcher.sample()
    proc.tick(1.0, others=2.0, ours=0.0)
    for _ in range(5):  # 1.25 s quiet in quarter-second readings
        watcher.sample()
        proc.tick(0.25, others=0.0, ours=0.0)
    watcher.sample()
    assert watcher.busy_cores() == pytest.approx(0.0)


def test_without_proc_nothing_is_taken(tmp_path: Path) -> None:
    read = functools.partial(read_sample, proc=tmp_path / "missing")
    watcher = LoadWatcher(cpus={0, 1}, read=read, background=False)
    assert read({0, 1}) is None
    assert CoreBudget(cores=2, answer_cores=1, watcher=watcher).load().free == 2


def test_spinning_is_bounded_unless_the_person_chose_a_policy() -> None:
    env: dict[str, str] = {}
    assert calm_spinning(env) == SPIN_ENV and env == SPIN_ENV
    chosen = {"OMP_WAIT_POLICY": "active"}
    assert calm_spinning(chosen) == {} and chosen == {"OMP_WAIT_POLICY": "active"}
    own = {"GOMP_SPINCOUNT": "300000"}
    assert calm_spinning(own) == {} and own == {"GOMP_SPINCOUNT": "300000"}
