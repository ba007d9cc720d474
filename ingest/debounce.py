"""Debounce: a path is handed on only once it has stopped changing for a quiet period.

A file being copied or written in pieces keeps changing size or modification time; it is due
when its ``(size, mtime_ns)`` has stayed the same for ``quiet`` seconds since the last change or
file-system event. A path that disappeared is due the same way (its signature is ``None``), but is
held back while other paths are still settling (up to ``hold`` seconds), so the two halves of a
move — the old path gone, the new one created — are handed on together and can be paired.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Signature = tuple[int, int] | None


def stat_signature(path: Path) -> Signature:
    """``(size, mtime_ns)`` of a regular file, or None when there is none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if os.path.isfile(path) else None


@dataclass
class _Pending:
    signature: Signature
    since: float  # last time the signature changed or an event arrived
    first: float  # when the path became pending


class Debouncer:
    """Book-keeping of paths that changed; :meth:`due` returns those that have settled."""

    def __init__(
        self,
        quiet: float,
        *,
        hold: float | None = None,
        stat: Callable[[Path], Signature] = stat_signature,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.quiet = quiet
        self.hold = hold if hold is not None else max(5.0, 5 * quiet)
        self._stat = stat
        self._clock = clock
        self._pending: dict[Path, _Pending] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def touch(self, path: Path) -> None:
        """Note an event on ``path``: its quiet period starts again."""
        now = self._clock()
        entry = self._pending.get(path)
        signature = self._stat(path)
        if entry is None:
            self._pending[path] = _Pending(signature, now, now)
        else:
            entry.signature, entry.since = signature, now

    def due(self) -> list[Path]:
        """Paths whose signature has not changed for ``quiet`` seconds (removed from pending)."""
        now = self._clock()
        ready: list[Path] = []
        settling_files = False
        for path, entry in self._pending.items():
            signature = self._stat(path)
            if signature != entry.signature:
                entry.signature, entry.since = signature, now
            if now - entry.since >= self.quiet:
                ready.append(path)
            elif signature is not None:
                settling_files = True
        if settling_files:
            # A vanished path may be the old half of a move whose new half is still settling.
            ready = [p for p in ready if not self._held(p, now)]
        for path in ready:
            del self._pending[path]
        return sorted(ready)

    def _held(self, path: Path, now: float) -> bool:
        entry = self._pending[path]
        return entry.signature is None and now - entry.first < self.hold
