"""Stopping llama.cpp inside a prompt evaluation, which can take seconds on a long prompt.

llama.cpp asks a context's abort callback after every node of the compute graph (a thousand or
more per ``llama_decode``); when it says yes, the decode returns 2 and llama-cpp-python raises
``RuntimeError("llama_decode returned 2")``. The tokens of the batches evaluated before stay in
the KV cache, consistent with ``n_tokens`` (the next ``eval`` drops the cells past it).

A Python callback would take the GIL at every node, and wait for it while other Python threads
run. The callback here is the C library's ``strlen`` over a two-byte buffer: 0 while the first
byte is 0 ("go on"), 1 once it is set ("abort"), read as the C ``bool`` the callback returns
(the low byte of the return register on x86-64 and arm64, where a ``size_t`` of 0 or 1 is that
``bool``) — no Python and no GIL on the way. A watcher thread sets the byte once the
generation's stop flag is set. Where no C library can be loaded, prompt evaluations run to
their end (a generation still stops at its next token).
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

#: How often the watcher looks at a generation's stop flag (seconds).
WATCH_S = 0.05


def _strlen() -> Any:
    """libc's ``strlen`` as a ctypes function, or None."""
    try:
        return ctypes.CDLL(None).strlen
    except (OSError, AttributeError):
        return None


class AbortFlag:
    """The abort callback of one llama.cpp context and the byte it reads."""

    def __init__(self, ctx: Any) -> None:
        """``ctx``: the ``llama_context`` pointer (``Llama._ctx.ctx``)."""
        import llama_cpp

        self._byte = ctypes.create_string_buffer(2)
        strlen = _strlen()
        address = ctypes.cast(strlen, ctypes.c_void_p).value if strlen is not None else None
        self.enabled = address is not None
        if address is None:
            log.warning("no C library to call: prompt evaluations cannot be stopped half-way")
            return
        # Kept on self: llama.cpp holds the pointers for the context's life.
        self._callback = llama_cpp.ggml_abort_callback(address)
        llama_cpp.llama_set_abort_callback(
            ctx, self._callback, ctypes.cast(self._byte, ctypes.c_void_p)
        )

    @property
    def raised(self) -> bool:
        """True while llama.cpp is told to abort."""
        return self._byte.raw[0] != 0

    def clear(self) -> None:
        """Let evaluations run again."""
        self._byte[0] = b"\x00"

    def raise_(self) -> None:
        """Abort the evaluation running now (and any next one until :meth:`clear`)."""
        self._byte[0] = b"\x01"

    @contextmanager
    def watching(self, stop: threading.Event) -> Iterator[None]:
        """While inside, abort the context's evaluation once ``stop`` is set; cleared after."""
        self.clear()
        if not self.enabled:
            yield
            return
        done = threading.Event()

        def watch() -> None:
            while not done.wait(WATCH_S):
                if stop.is_set():
                    self.raise_()
                    return

        watcher = threading.Thread(target=watch, name="hearth-abort", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()
            self.clear()
