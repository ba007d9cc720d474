"""How busy other programs keep this process's cores: /proc/stat less this process's own time.

Hearth's thread counts (core/threads.py) leave out the cores another program keeps busy: threads
that wait for each other at a barrier lose a scheduler slice each time the other's core was given
to someone else (issue 36). The figure is the CPU time every program used on the cores this
process may run on (its affinity), less this process's own, over the last second, in cores.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: Other programs' CPU use (in cores) from which a core counts as taken: a busy loop beside two
#: of our threads on 2 cores is given about 0.67 of a core, a one-thread neighbour alone 1.0.
TAKEN_FROM = 0.5
#: Seconds between two readings of /proc/stat, and the window other programs' use is averaged
#: over.
SAMPLE_EVERY_S = 0.25
WINDOW_S = 1.0


def affinity() -> set[int]:
    """The CPU numbers this process may run on (0..cpu_count-1 where affinity is unknown)."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return set(range(os.cpu_count() or 1))


@dataclass(frozen=True)
class CpuSample:
    """One reading of the CPU counters, in clock ticks: ``busy`` and ``total`` ticks of the cores
    this process may use (every program's), ``own`` ticks this process ran; ``at`` monotonic s."""

    at: float
    busy: int
    total: int
    own: int


def parse_proc_stat(text: str, cpus: set[int]) -> tuple[int, int]:
    """(busy, total) ticks of the ``cpuN`` lines of /proc/stat for N in ``cpus``.

    Busy is user, nice, system, irq, softirq and steal (time the hypervisor gave to another
    machine is taken too); idle and iowait are free. Guest time is already in user.
    """
    busy = total = 0
    for line in text.splitlines():
        if not line.startswith("cpu") or line.startswith("cpu "):
            continue
        name, *fields = line.split()
        if not name[3:].isdigit() or int(name[3:]) not in cpus:
            continue
        ticks = [int(f) for f in fields[:8]] + [0] * (8 - len(fields[:8]))
        user, nice, system, idle, iowait, irq, softirq, steal = ticks
        busy += user + nice + system + irq + softirq + steal
        total += user + nice + system + idle + iowait + irq + softirq + steal
    return busy, total


def parse_self_stat(text: str) -> int:
    """utime + stime ticks from /proc/PID/stat (fields 14 and 15; the name in parentheses may
    hold spaces)."""
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


def busy_elsewhere(old: CpuSample, new: CpuSample, cores: int) -> float:
    """Cores other programs kept busy between two samples (0 when no tick passed)."""
    ticks_per_core = (new.total - old.total) / max(1, cores)
    if ticks_per_core <= 0:
        return 0.0
    others = (new.busy - old.busy) - (new.own - old.own)
    return max(0.0, min(float(cores), others / ticks_per_core))


def cores_taken(busy: float) -> int:
    """Whole cores other programs take: their use rounded, counted from ``TAKEN_FROM``."""
    return int(busy + 1.0 - TAKEN_FROM)


class LoadWatcher:
    """Other programs' use of this process's cores, averaged over the last ``WINDOW_S`` seconds.

    A daemon thread reads /proc/stat and /proc/self/stat every ``SAMPLE_EVERY_S`` (two small
    reads); it starts on the first :meth:`busy_cores` (``background=False``: only
    :meth:`sample` reads, as tests feeding fake readings through ``read`` do). ``read`` returns
    None where /proc is missing (not Linux), and then nothing is taken.
    """

    def __init__(
        self,
        cpus: set[int] | None = None,
        read: Callable[[set[int]], CpuSample | None] | None = None,
        every_s: float = SAMPLE_EVERY_S,
        window_s: float = WINDOW_S,
        background: bool = True,
    ) -> None:
        self.cpus = cpus if cpus is not None else affinity()
        self._read = read or read_sample
        self.every_s = every_s
        self.window_s = window_s
        self._samples: deque[CpuSample] = deque()
        self._lock = threading.Lock()
        self._started = not background
        self._start_lock = threading.Lock()

    def sample(self) -> None:
        """Take one reading and drop those older than the window needs."""
        reading = self._read(self.cpus)
        if reading is None:
            return
        with self._lock:
            self._samples.append(reading)
            while len(self._samples) > 2 and reading.at - self._samples[1].at >= self.window_s:
                self._samples.popleft()

    def _run(self) -> None:
        while True:
            time.sleep(self.every_s)
            self.sample()

    def _start(self) -> None:
        """Start the sampler and wait one ``every_s`` for a first window (first call only)."""
        with self._start_lock:
            if self._started:
                return
            self.sample()
            time.sleep(self.every_s)
            self.sample()
            threading.Thread(target=self._run, name="hearth-load", daemon=True).start()
            self._started = True

    def busy_cores(self) -> float:
        """Cores other programs kept busy lately (float, 0 to the cores this process may use)."""
        if not self._started:
            self._start()
        with self._lock:
            if len(self._samples) < 2:
                return 0.0
            return busy_elsewhere(self._samples[0], self._samples[-1], len(self.cpus))


def read_sample(
    cpus: set[int], proc: Path = Path("/proc"), clock: Callable[[], float] = time.monotonic
) -> CpuSample | None:
    """A :class:`CpuSample` from ``proc``/stat and ``proc``/self/stat now (None without them)."""
    try:
        stat = (proc / "stat").read_text()
        own = (proc / "self" / "stat").read_text()
        busy, total = parse_proc_stat(stat, cpus)
        return CpuSample(clock(), busy, total, parse_self_stat(own))
    except (OSError, ValueError, IndexError):  # no /proc, or not the layout Linux writes
        return None


@dataclass(frozen=True)
class Load:
    """What a thread count was chosen from: ``cores`` this process may use, ``busy`` cores other
    programs kept busy (float), ``free`` whole cores left (at least 1)."""

    cores: int
    busy: float
    free: int

    def as_dict(self) -> dict[str, float]:
        """JSON-ready (``busy`` rounded to 0.01 core)."""
        return {"cores": self.cores, "busy": round(self.busy, 2), "free": self.free}
