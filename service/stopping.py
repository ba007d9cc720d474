"""How `hearth serve` runs and stops: on SIGTERM or SIGINT, generations first, then the rest.

Told to stop, uvicorn closes its listening sockets and waits for every open request to end
before the app's shutdown, which stops the watcher, frees the models and closes the stores
(writing their clean-close mark, ``core.knowledge.IN_STEP_MARK``); a request generating an
answer held it until its last token. Here the stop first abandons every generation
(:meth:`service.bridge.Generations.stop_all`): each ends at its next token (or half-way through
its prompt), its client gets a 503 or an SSE ``error`` event, a request still waiting for the
model leaves the queue, and writes in flight (an upload being ingested) finish.

uvicorn re-raises a signal it caught once it has shut down, so the process would end killed by
SIGTERM (status -15) or with a KeyboardInterrupt traceback; here a stop by signal that shut down
cleanly exits with status 0. A second SIGINT stops at once without waiting (uvicorn's force
exit). A server that could not start exits with uvicorn's status 3.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import Any

import uvicorn
from uvicorn.server import HANDLED_SIGNALS

log = logging.getLogger(__name__)

#: uvicorn's exit status for a server that did not start (uvicorn.main.STARTUP_FAILURE).
STARTUP_FAILURE = 3


class HearthServer(uvicorn.Server):
    """uvicorn's server, calling ``on_stop`` before it waits for open requests, and leaving a
    handled signal handled."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], object]) -> None:
        super().__init__(config)
        self._on_stop = on_stop

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop the generations (on the event loop, not inside the signal handler), then
        uvicorn's shutdown: connections drained, then the app's lifespan shutdown."""
        stopped = self._on_stop()
        log.info("stopping: %s generation(s) abandoned", stopped)
        await super().shutdown(sockets)

    @contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        """uvicorn's handlers for SIGINT and SIGTERM while serving, restored after; the signal is
        not raised again once the server has stopped (the process then exits with status 0)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in HANDLED_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


def serve_app(app: Any, host: str, port: int, on_stop: Callable[[], object]) -> None:
    """Serve ``app`` on ``host:port`` until SIGTERM or SIGINT; exit status 3 when it could not
    start (the port taken, start-up failed)."""
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="on"
    )
    server = HearthServer(config, on_stop)
    server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)
