"""A scripted runtime: the :class:`~service.llm.base.LLMRuntime` Protocol with no model behind it.

It yields pieces given in advance, optionally ``delay`` seconds apart, so fast unit tests of the
answer flow (queueing, stopping, timeouts) and benchmarks that isolate Hearth's own overhead share
one stand-in, kept next to the Protocol it implements (as httpx ships its ``MockTransport``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator

from service.llm.base import ChatMessage, SamplingParams


class ScriptedRuntime:
    """Yields ``pieces`` in order; ``produced`` counts the pieces handed out so far.

    Tokens are counted as whitespace-separated words (at least 1). ``stream_chat`` stops early
    once ``stop`` is set, as a real runtime does.
    """

    model_path = "scripted.gguf"
    n_ctx = 4096

    def __init__(self, pieces: Iterable[str], name: str = "scripted", delay: float = 0.0) -> None:
        self.model_name = name
        self.pieces = pieces
        self.delay = delay
        self.produced = 0

    @classmethod
    def words(cls, n: int, name: str = "scripted", delay: float = 0.0) -> ScriptedRuntime:
        """A runtime replying ``"w0 w1 ... w{n-1} "``, one word per piece."""
        return cls([f"w{i} " for i in range(n)], name, delay)

    def model_sha256(self) -> str:
        """No file: 64 zeros."""
        return "0" * 64

    def count_tokens(self, text: str) -> int:
        """Whitespace-separated words of ``text``, at least 1."""
        return max(1, len(text.split()))

    def stream_chat(
        self, messages: list[ChatMessage], params: SamplingParams, stop: threading.Event
    ) -> Iterator[str]:
        """Yield the scripted pieces, ``delay`` seconds apart, until ``stop`` is set."""
        for piece in self.pieces:
            if stop.is_set():
                return
            if self.delay:
                time.sleep(self.delay)
            self.produced += 1
            yield piece

    def close(self) -> None:
        """Nothing to free."""
