"""A bounded FIFO in front of one model context: one generation at a time, fair order.

``admit()`` runs before a response starts, so a full queue becomes a 429 with Retry-After.
A ticket that is cancelled (client gone) or times out leaves the queue at once and wakes the
others; the generation it was running stops at its next token.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from core.errors import OverloadedError, UnavailableError

RECENT = 200


class Abandoned(UnavailableError):
    """A generation was stopped before its end: its client went away, or Hearth is stopping
    (503; a client that left never reads it)."""


@dataclass
class RequestStats:
    """What one request saw: queue depth when it arrived, waiting, TTFT and its parts (retrieval,
    condensing a follow-up, prompt tokens in all and reused, prompt evaluation), speed, outcome."""

    model: str
    queue_depth: int
    wait_s: float = 0.0
    ttft_s: float | None = None
    tokens: int = 0
    tokens_per_s: float = 0.0
    retrieval_s: float | None = None
    condense_s: float | None = None
    prompt_tokens: int | None = None
    prompt_cached_tokens: int | None = None
    prompt_eval_s: float | None = None
    #: llama.cpp threads of the prompt and of the generation, and the cores other programs
    #: kept busy when it started, of ``cores`` (core/cpuload.py); None where not reported.
    threads: int | None = None
    generation_threads: int | None = None
    cores: int | None = None
    cores_busy: float | None = None
    outcome: str = "waiting"
    started: float = field(default_factory=time.monotonic)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {k: v for k, v in self.__dict__.items() if k != "started"}


class Ticket:
    """One request's place in a :class:`FairQueue`."""

    def __init__(self, queue: FairQueue, stats: RequestStats, deadline: float) -> None:
        self.queue = queue
        self.stats = stats
        self.deadline = deadline
        self.done = False
        self.reported = False  # its figures went to the pool's observers

    def wait(self, stop: threading.Event) -> bool:
        """Block until it is this ticket's turn; False if stopped or timed out (place freed)."""
        return self.queue._wait(self, stop)

    @property
    def running(self) -> bool:
        """True while this ticket holds its model's turn."""
        return self.queue._running is self

    def expired(self) -> bool:
        """True once the request's deadline has passed."""
        return time.monotonic() >= self.deadline

    def release(self, outcome: str = "done") -> None:
        """Leave the queue (waiting or running); idempotent."""
        self.queue._release(self, outcome)


class FairQueue:
    """FIFO of tickets; the head runs, at most ``max_waiting`` others wait."""

    def __init__(self, name: str, max_waiting: int, timeout_s: float) -> None:
        self.name = name
        self.max_waiting = max_waiting
        self.timeout_s = timeout_s
        self._cond = threading.Condition()
        self._line: deque[Ticket] = deque()
        self._running: Ticket | None = None
        self.recent: deque[RequestStats] = deque(maxlen=RECENT)
        self.rejected = 0
        self._avg_s = 5.0

    @property
    def depth(self) -> int:
        """Requests waiting (not counting the one generating)."""
        return len(self._line)

    def admit(self) -> Ticket:
        """A place at the back of the line, or ``OverloadedError`` when the line is full."""
        with self._cond:
            inside = len(self._line) + (self._running is not None)
            if inside > self.max_waiting:  # one generating + max_waiting waiting
                self.rejected += 1
                retry = max(1, round(self._avg_s * inside / 2))
                raise OverloadedError(
                    f"model {self.name}: {inside - 1} requests are already waiting "
                    f"(llm.queue_size={self.max_waiting}); retry in {retry} s",
                    retry_after=retry,
                )
            stats = RequestStats(self.name, queue_depth=len(self._line))
            ticket = Ticket(self, stats, time.monotonic() + self.timeout_s)
            self._line.append(ticket)
            self.recent.append(stats)
            return ticket

    def _wait(self, ticket: Ticket, stop: threading.Event) -> bool:
        with self._cond:
            while True:
                if ticket.done:
                    return False
                if stop.is_set() or ticket.expired():
                    self._drop(ticket, "cancelled" if stop.is_set() else "timeout")
                    return False
                for stale in [t for t in self._line if t is not ticket and t.expired()]:
                    self._drop(stale, "timeout")
                if self._running is None and self._line and self._line[0] is ticket:
                    self._line.popleft()
                    self._running = ticket
                    ticket.stats.wait_s = round(time.monotonic() - ticket.stats.started, 4)
                    ticket.stats.outcome = "running"
                    return True
                self._cond.wait(timeout=0.05)

    def _drop(self, ticket: Ticket, outcome: str) -> None:
        if ticket.done:
            return
        ticket.done = True
        if ticket.stats.outcome in ("waiting", "running"):
            ticket.stats.outcome = outcome
        if self._running is ticket:
            self._running = None
            elapsed = time.monotonic() - ticket.stats.started - ticket.stats.wait_s
            self._avg_s = 0.8 * self._avg_s + 0.2 * elapsed
        elif ticket in self._line:
            self._line.remove(ticket)
        self._cond.notify_all()

    def _release(self, ticket: Ticket, outcome: str) -> None:
        with self._cond:
            self._drop(ticket, outcome)

    def snapshot(self) -> dict[str, Any]:
        """Depth, bound, rejections and the recent requests' figures."""
        with self._cond:
            return {
                "waiting": len(self._line),
                "running": self._running is not None,
                "max_waiting": self.max_waiting,
                "rejected": self.rejected,
                "recent": [s.as_dict() for s in self.recent],
            }
