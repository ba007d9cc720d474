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
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class CoreBudget:
    """Thread counts for answering and ingest that add up to ``cores`` while both run.

    ``share=False`` gives every component every core (the libraries' own behaviour).
    """

    cores: int
    answer_cores: int
    share: bool = True
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

    def answer_threads(self) -> int:
        """Threads for the answer's model now: every core while it reads a prompt (ingest
        slices wait) or nothing is ingested, else ``answer_cores``."""
        if not self.share or not self._ingests or self._prompts:
            return self.cores
        return self.answer_cores

    def ingest_threads(self) -> int:
        """Threads for an ingest step now: every core unless an answer is being written."""
        if not self.share or not self._answers:
            return self.cores
        return self.ingest_cores

    def fixed_ingest_threads(self) -> int:
        """Threads for a model that fixes its count when loaded (Whisper, OCR)."""
        return self.ingest_cores if self.share else self.cores

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
    return CoreBudget(cores=cores, answer_cores=(cores + 1) // 2)


_budget = _default_budget()


def budget() -> CoreBudget:
    """The process's core budget."""
    return _budget


def configure(cores: int = 0, answer_cores: int = 0, share: bool = True) -> CoreBudget:
    """Set the process's core budget (0: every available core / half of them, rounded up).

    The budget is changed in place, so work in progress is still counted (settings may be
    loaded again while an ingest runs).
    """
    total = max(1, cores or available_cores())
    with _budget._lock:
        _budget.cores = total
        _budget.answer_cores = min(max(1, answer_cores or (total + 1) // 2), total)
        _budget.share = share
    return _budget
