"""One bridge from a blocking generator to an async caller: the generator runs in a worker thread
and its items are handed over through an asyncio queue (the SSE answer stream and the OpenAI
chat stream both use it)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Any, TypeVar

from service.llm.queue import Ticket

T = TypeVar("T")


async def in_thread(
    work: Callable[[threading.Event], Iterator[T]],
    ticket: Ticket | None,
    name: str = "hearth-stream",
) -> AsyncGenerator[T, None]:
    """Run ``work(stop)`` in a daemon thread called ``name`` and yield its items; an error it
    raises is raised here. If the consumer goes away, ``stop`` is set (the work stops after its
    current item) and the ticket's queue place is freed at once."""
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def put(kind: str, item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, (kind, item))

    def runner() -> None:
        try:
            for item in work(stop):
                put("item", item)
                if stop.is_set():
                    break
        except BaseException as exc:  # handed to the consumer, which raises it
            put("error", exc)
        finally:
            put("end", None)

    threading.Thread(target=runner, name=name, daemon=True).start()
    try:
        while True:
            kind, item = await queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        if ticket is not None:
            ticket.release("cancelled")
