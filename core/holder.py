"""A lazily loaded model that frees itself after an idle time, or stays resident.

Whisper and OCR are needed only while recordings or images are read, so they are loaded on first
use and dropped again when nothing has used them for ``idle_seconds`` (``0`` drops them as soon as
the last user is done). ``resident=True`` keeps a model once loaded. Each holder also carries an
estimate of the bytes the model keeps resident, for the memory planner.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from core.memsize import trim_heap

T = TypeVar("T")

log = logging.getLogger(__name__)


class ModelHolder(Generic[T]):
    """Loads ``factory()`` on first :meth:`use`; unloads after ``idle_seconds`` unless resident."""

    def __init__(
        self,
        name: str,
        factory: Callable[[], T],
        *,
        idle_seconds: float,
        resident: bool,
        resident_bytes: int,
    ) -> None:
        self.name = name
        self.resident_bytes = resident_bytes
        self._factory = factory
        self._idle = idle_seconds
        self._resident = resident
        self._lock = threading.Lock()
        self._model: T | None = None
        self._users = 0
        self._timer: threading.Timer | None = None
        self.loads = 0

    @property
    def loaded(self) -> bool:
        """True while the model is in memory."""
        return self._model is not None

    @contextmanager
    def use(self) -> Iterator[T]:
        """The model, loaded if needed; it is not freed while any caller is inside this block."""
        with self._lock:
            self._cancel_timer()
            if self._model is None:
                log.info("loading %s", self.name)
                self._model = self._factory()
                self.loads += 1
            self._users += 1
            model = self._model
        try:
            yield model
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0 and not self._resident:
                    self._schedule_unload()

    def _schedule_unload(self) -> None:
        if self._idle <= 0:
            self._drop()
            return
        self._timer = threading.Timer(self._idle, self._unload_if_idle)
        self._timer.daemon = True
        self._timer.name = f"hearth-unload-{self.name}"
        self._timer.start()

    def _unload_if_idle(self) -> None:
        with self._lock:
            if self._users == 0 and not self._resident:
                self._drop()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _drop(self) -> None:
        if self._model is not None:
            log.info("freeing idle %s", self.name)
            self._model = None
            gc.collect()
            trim_heap()

    def unload(self) -> None:
        """Free the model now (it reloads on next use); waits for no one but is safe to call."""
        with self._lock:
            self._cancel_timer()
            if self._users == 0:
                self._drop()
