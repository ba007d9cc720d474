"""One bridge from blocking generation work to an async caller, and the one way a generation is
stopped before its end.

The work (an answer, a chat completion, a replay, a voice answer) runs in a worker thread with a
stop flag; its items are handed over through an asyncio queue (the SSE answer stream, the OpenAI
chat stream and every whole response use it). The flag is set, so the model stops at its next
token and a request still waiting in its model's queue leaves it without running, when:

- the consumer goes away (Litestar closes a streamed response whose client left),
- the client disconnects while a whole response is being made (``request`` given: its
  connection is watched for ``http.disconnect``),
- the process is stopping (:meth:`Generations.stop_all`, called on SIGTERM and SIGINT).

In the last two cases the consumer waits until the work has ended (so the model is free when it
returns) and gets :class:`Abandoned`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import aclosing, suppress
from typing import Any, TypeVar

from litestar import Request

from service.llm.queue import Abandoned, Ticket

T = TypeVar("T")
__all__ = ["Abandoned", "Generations", "in_thread", "run_in_thread"]

#: Seconds a stopped work may take to end before its consumer stops waiting for it: a token, or
#: a prompt evaluation cut short, takes well under one.
STOP_WAIT_S = 30.0
GONE = "the client went away"
STOPPING = "Hearth is stopping: the answer was cut short"


class Generations:
    """The generations this process is running, each by the callable that abandons it, so that
    a stopping process stops them all (:meth:`stop_all`). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[Callable[[str], None]] = set()
        self.stopping = False

    def add(self, abandon: Callable[[str], None]) -> None:
        """Track one generation; abandoned at once when the process is already stopping."""
        with self._lock:
            self._live.add(abandon)
            stopping = self.stopping
        if stopping:
            abandon(STOPPING)

    def discard(self, abandon: Callable[[str], None]) -> None:
        """Stop tracking a generation that ended."""
        with self._lock:
            self._live.discard(abandon)

    def stop_all(self) -> int:
        """Abandon every generation, and every one started from now on; how many were live."""
        with self._lock:
            self.stopping = True
            live = list(self._live)
        for abandon in live:
            abandon(STOPPING)
        return len(live)


async def _watch_disconnect(
    request: Request[Any, Any, Any], abandon: Callable[[str], None]
) -> None:
    """Wait for the client to disconnect (the body was read before: the next ASGI message is
    ``http.disconnect``), then abandon the work."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            abandon(GONE)
            return


async def in_thread(
    work: Callable[[threading.Event], Iterator[T]],
    ticket: Ticket | None,
    name: str = "hearth-stream",
    *,
    request: Request[Any, Any, Any] | None = None,
    generations: Generations | None = None,
) -> AsyncGenerator[T, None]:
    """Run ``work(stop)`` in a daemon thread called ``name`` and yield its items; an error it
    raises is raised here. ``stop`` is set when the consumer goes away (the work stops at its
    next item, the ticket's queue place is freed at once), and when ``request``'s client
    disconnects or ``generations`` stops everything: then :class:`Abandoned` is raised here once
    the work has ended (at most :data:`STOP_WAIT_S` later)."""
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def put(kind: str, item: Any) -> None:
        with suppress(RuntimeError):  # the loop has closed: nobody is left to tell
            loop.call_soon_threadsafe(queue.put_nowait, (kind, item))

    def runner() -> None:
        try:
            for item in work(stop):
                if stop.is_set():  # the generator is closed here: nothing after it runs
                    break
                put("item", item)
        except BaseException as exc:  # handed to the consumer, which raises it
            put("error", exc)
        finally:
            put("end", None)

    def abandon(reason: str) -> None:  # from any thread, once or more
        stop.set()
        put("abandoned", reason)

    watcher = asyncio.create_task(_watch_disconnect(request, abandon)) if request else None
    if generations is not None:
        generations.add(abandon)
    threading.Thread(target=runner, name=name, daemon=True).start()
    try:
        while True:
            kind, item = await queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            if kind == "abandoned":
                await _until_end(queue)
                raise Abandoned(item)
            yield item
    finally:
        stop.set()
        if watcher is not None:
            watcher.cancel()
        if generations is not None:
            generations.discard(abandon)
        if ticket is not None:
            ticket.release("cancelled")


async def _until_end(queue: asyncio.Queue[tuple[str, Any]]) -> None:
    """Drop what a stopped work still hands over until it has ended (bounded)."""
    try:
        async with asyncio.timeout(STOP_WAIT_S):
            while (await queue.get())[0] != "end":
                pass
    except TimeoutError:
        pass


async def run_in_thread(
    work: Callable[[threading.Event], T],
    ticket: Ticket | None,
    name: str,
    *,
    request: Request[Any, Any, Any] | None = None,
    generations: Generations | None = None,
) -> T:
    """``work(stop)``'s result, computed in a worker thread that is stopped as :func:`in_thread`
    stops its work (a whole response: a replay, a voice answer)."""

    def once(stop: threading.Event) -> Iterator[T]:
        yield work(stop)

    async with aclosing(
        in_thread(once, ticket, name, request=request, generations=generations)
    ) as items:
        async for item in items:
            return item
    raise Abandoned(STOPPING)  # pragma: no cover - ``once`` yields exactly one item
