"""How one process shares the CPU cores between answering and ingest.

Each library takes every core by default: llama.cpp (``n_threads``), torch (the embedder),
CTranslate2 (Whisper) and onnxruntime (OCR). When an answer is written while an upload or the
watcher ingests, they oversubscribe the cores and every thread waits for the others: on 2 shared
cores one llama.cpp thread generated 6.3-7.3 tok/s against 1.3-1.7 for two (issue 19), and torch
embedded ingest chunks in 72 ms on one thread against 166-181 ms on two.

:class:`CoreBudget` counts what is running. An answer or an ingest running alone gets every core.
While a prompt is read (the person waits for the first token) ingest's embedding slices wait and
the model takes every core; while the answer is then generated, it keeps ``answer_cores`` and
ingest gets the rest, so the two add up to the cores. llama.cpp's and torch's thread counts are
set before each unit of work (a generation step, an embedding slice). Whisper and OCR fix their
threads when loaded, so they get the share ingest has while an answer runs. A component's own
``n_threads`` setting, when not 0, wins. Measured with bench/threads.py (NOTES.md).

Other programs take cores too. A thread that waits for another at a barrier (ggml's between
operations, OpenMP's at the end of a parallel region) spins while the scheduler has given the
other's core to someone else: with one busy loop beside it, llama.cpp's two threads generated at
0.36x of quiet, and beside a second llama.cpp process at ~0.02x (issue 36). So the budget counts
only the cores other programs leave free (:class:`LoadWatcher`: /proc/stat over the last second
less this process's own time), read again before each unit of work (``threads.adaptive``), and
:func:`calm_spinning` bounds OpenMP's spin-wait at ``core`` import, before libgomp loads.
Measured with bench/contention.py (NOTES.md).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, MutableMapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

from core.cpuload import Load, LoadWatcher, affinity, cores_taken

#: OpenMP spin-wait before a waiting thread sleeps, in spins (libgomp's GOMP_SPINCOUNT; its
#: default is 300,000, "about 3 ms"). At 300,000, raw llama.cpp on two threads on a busy machine
#: (load average 11 on 2 cores) did not read two 208-token prompts and write 16 tokens after each
#: within 200 s; at 10,000 it did, at 0.64-0.67 tok/s (0: 1.4-2.1). 10,000 (~0.1 ms) still
#: covers the short waits between operations of a quiet machine; when a core is taken the budget
#: runs one thread, which has no barrier to wait at.
GOMP_SPINS = 10_000

#: Other programs' use (in cores) this close to a whole number reads as programs that hold whole
#: cores steadily (busy loops), which a prompt's threads leave alone (``prompt_threads``).
STEADY = 0.2

#: Environment set at ``core`` import unless the person set any of them: libgomp (llama.cpp,
#: torch, FAISS) reads it when it loads.
SPIN_ENV: dict[str, str] = {"GOMP_SPINCOUNT": str(GOMP_SPINS)}
#: Variables that, when set by the person, leave OpenMP's wait policy to them.
SPIN_OWNED = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
#: onnxruntime's session option that stops its pool's threads spinning while they wait (OCR, the
#: voice); onnxruntime reads no environment for it.
ORT_NO_SPIN = ("session.intra_op.allow_spinning", "0")


def calm_spinning(environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Bound OpenMP's spin-wait (``SPIN_ENV``) unless the person chose a wait policy; the
    variables set. Must run before libgomp loads (it reads them once): ``core`` calls it at
    import."""
    env = os.environ if environ is None else environ
    if any(name in env for name in SPIN_OWNED):
        return {}
    for name, value in SPIN_ENV.items():
        env[name] = value
    return dict(SPIN_ENV)


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    return max(1, len(affinity()))


@dataclass
class CoreBudget:
    """Thread counts for answering and ingest that add up to ``cores`` while both run.

    ``share=False`` gives every component every core (the libraries' own behaviour). With a
    ``watcher``, the load other programs put on the cores is read; ``adaptive`` then leaves the
    cores they keep busy out first (else it is only reported).
    """

    cores: int
    answer_cores: int
    share: bool = True
    watcher: LoadWatcher | None = None
    adaptive: bool = True
    prompt_every_core: bool = False
    _answers: int = field(default=0, repr=False)
    _ingests: int = field(default=0, repr=False)
    _prompts: int = field(default=0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _prompt_done: threading.Condition = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.cores = max(1, self.cores)
        self.answer_cores = min(max(1, self.answer_cores), self.cores)
        self._prompt_done = threading.Condition(self._lock)

    @property
    def ingest_cores(self) -> int:
        """Cores ingest keeps while an answer runs (at least 1)."""
        return max(1, self.cores - self.answer_cores)

    def load(self) -> Load:
        """The cores free now: ``cores`` less those other programs keep busy (at least 1;
        all of them when not ``adaptive``)."""
        if self.watcher is None:
            return Load(self.cores, 0.0, self.cores)
        busy = self.watcher.busy_cores()
        if not self.adaptive:
            return Load(self.cores, busy, self.cores)
        free = min(self.cores, len(self.watcher.cpus) - cores_taken(busy))
        return Load(self.cores, busy, max(1, free))

    def answer_threads(self, load: Load | None = None) -> int:
        """Threads for the answer's model now: every free core while it reads a prompt (ingest
        slices wait) or nothing is ingested, else ``answer_cores`` of them."""
        free = (load or self.load()).free
        if not self.share or not self._ingests or self._prompts:
            return free
        return min(self.answer_cores, free)

    def prompt_threads(self, load: Load | None = None) -> int:
        """Threads for reading a prompt (a batch of tokens).

        A prompt is long matrix products with few barriers between them, so a thread on a
        core another program uses still adds its share, unlike in generation (a barrier per
        operation). It leaves a core to others only when they hold whole cores steadily (a
        busy loop: their use within ``STEADY`` of a whole number) and a core of its own is
        left: beside a single busy loop one thread read 76-86 tokens/s, two 62-73; beside a
        second llama.cpp process or two busy loops two threads read 63-72 against 54-60
        (bench/contention.py, NOTES.md). ``prompt_every_core`` always takes every core; while
        ingest runs :meth:`answer_threads` applies (ingest slices wait for prompts, so that
        is every free core).
        """
        load = load or self.load()
        free = self.answer_threads(load)
        if self.prompt_every_core:
            return self.cores
        if not self.adaptive or free >= self.cores:
            return free
        steady = abs(load.busy - round(load.busy)) < STEADY
        own_core_left = self.cores - load.busy >= 1.0 - STEADY
        return free if steady and own_core_left else self.cores

    def ingest_threads(self, load: Load | None = None) -> int:
        """Threads for an ingest step now: every free core unless an answer is being written,
        else what the answer leaves of them (at least 1)."""
        free = (load or self.load()).free
        if not self.share or not self._answers:
            return free
        return max(1, min(self.ingest_cores, free - min(self.answer_cores, free)))

    def fixed_ingest_threads(self) -> int:
        """Threads for a model that fixes its count when loaded (Whisper, OCR): ingest's share
        of the cores free when it loads."""
        free = self.load().free
        return min(self.ingest_cores if self.share else self.cores, free)

    @contextmanager
    def _counted(self, name: str) -> Iterator[None]:
        """Count one more of ``name`` (an attribute) for the block; waiters are told when a
        count falls."""
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)
        try:
            yield
        finally:
            with self._lock:
                setattr(self, name, getattr(self, name) - 1)
                self._prompt_done.notify_all()

    def answering(self) -> AbstractContextManager[None]:
        """Mark an answer (a generation) as running for the duration of the block."""
        return self._counted("_answers")

    def reading_prompt(self) -> AbstractContextManager[None]:
        """Mark a prompt being evaluated: the person waits for its first token, so ingest
        slices wait (:meth:`wait_for_prompts`) and the model takes every core."""
        return self._counted("_prompts")

    def wait_for_prompts(self, timeout_s: float = 30.0) -> None:
        """Before an ingest step: wait while a prompt is evaluated (at most ``timeout_s``, so
        a stream of questions cannot stop ingest altogether)."""
        if not self.share:
            return
        with self._lock:
            self._prompt_done.wait_for(lambda: not self._prompts, timeout=timeout_s)

    def ingesting(self) -> AbstractContextManager[None]:
        """Mark ingest work (embedding a batch, transcribing, OCR) as running."""
        return self._counted("_ingests")


def _default_budget() -> CoreBudget:
    cores = available_cores()
    return CoreBudget(cores=cores, answer_cores=(cores + 1) // 2, watcher=_watcher)


_watcher = LoadWatcher()
_budget = _default_budget()


def budget() -> CoreBudget:
    """The process's core budget."""
    return _budget


def configure(
    cores: int = 0,
    answer_cores: int = 0,
    share: bool = True,
    adaptive: bool = True,
    prompt_every_core: bool = False,
) -> CoreBudget:
    """Set the process's core budget (0: every available core / half of them, rounded up;
    ``adaptive``: leave out the cores other programs keep busy; ``prompt_every_core``: read
    prompts on every core all the same).

    The budget is changed in place, so work in progress is still counted (settings may be
    loaded again while an ingest runs).
    """
    total = max(1, cores or available_cores())
    with _budget._lock:
        _budget.cores = total
        _budget.answer_cores = min(max(1, answer_cores or (total + 1) // 2), total)
        _budget.share = share
        _budget.adaptive = adaptive
        _budget.prompt_every_core = prompt_every_core
    return _budget
