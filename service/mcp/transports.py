"""The two ways Hearth's MCP server is reached.

- **stdio** (``hearth mcp``): the client starts the process and speaks JSON-RPC on its stdin and
  stdout. The SDK points file descriptor 1 at stderr while it serves, so nothing a library prints
  can corrupt the protocol. The server answers ``initialize`` at once while Hearth loads beside
  it; a call that needs Hearth waits for it. Hearth failing to start ends the process with its
  message; the client closing stdin ends it cleanly.
- **streamable HTTP** at ``/mcp`` of ``hearth serve``: an ASGI mount inside the Litestar app, so
  every app middleware applies to it (the Host/Origin guard, the access-token gate: no token and
  a loopback bind is open, else ``Authorization: Bearer``; 401 otherwise). The SDK's session
  manager runs for as long as the app (a Litestar lifespan step, after Hearth has started).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from anyio import to_thread
from litestar import Litestar
from litestar.handlers import ASGIRouteHandler, asgi
from litestar.types import Receive, Scope, Send
from mcp.server.transport_security import TransportSecuritySettings

from core.settings import HearthSettings
from service.mcp.server import HearthMCP, create_server

if TYPE_CHECKING:
    from service.state import Hearth

MOUNT = "/mcp"
#: Open HTTP sessions at once; one more is answered 503 until one ends or idles out.
MAX_SESSIONS = 64
#: A session no request has used for this long is closed (the client starts a new one).
SESSION_IDLE_S = 1800.0


class Loading:
    """Hearth starting in a worker thread beside the stdio server; awaiting it gives the Hearth
    (or raises the error that stopped its start)."""

    def __init__(self, settings: HearthSettings) -> None:
        self.settings = settings
        self.hearth: Hearth | None = None
        self.error: BaseException | None = None
        self.ready = anyio.Event()

    async def load(self) -> None:
        """Start Hearth; an error is kept for the callers and raised here."""
        from service.state import Hearth

        try:
            self.hearth = await to_thread.run_sync(Hearth.start, self.settings)
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.ready.set()

    async def __call__(self) -> Hearth:
        await self.ready.wait()
        if self.hearth is None:
            raise RuntimeError("Hearth did not start") from self.error
        return self.hearth


def run_stdio(settings: HearthSettings) -> None:
    """Serve MCP on stdin/stdout until the client closes them; Hearth is closed after."""
    loading = Loading(settings)
    server = create_server(loading, settings.log_level)

    async def main() -> None:
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(loading.load)
                await server.run_stdio_async()
                tg.cancel_scope.cancel()  # the client went: stop waiting for anything
        finally:
            if loading.hearth is not None:
                await to_thread.run_sync(loading.hearth.close)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # the task group's: raise the first real error
        raise group.exceptions[0] from None


class HttpMount:
    """The streamable HTTP transport of one Litestar app: its route handler and lifespan step.

    Sessions are stateful (progress notifications and cancellation go with a session); the SDK's
    own DNS-rebinding check is off because the app's guard checks Host and Origin on every route,
    this one included.
    """

    def __init__(self, settings: HearthSettings) -> None:
        self.state: Any = None
        self.server: HearthMCP = create_server(self._current, settings.log_level)
        # Builds the SDK's session manager (its Starlette app is not used: Litestar routes).
        self.server.streamable_http_app(
            streamable_http_path="/",
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_sessions=MAX_SESSIONS,
            session_idle_timeout=SESSION_IDLE_S,
        )
        self.manager = self.server.session_manager

    async def _current(self) -> Hearth:
        hearth: Hearth = self.state.hearth
        return hearth

    @asynccontextmanager
    async def lifespan(self, app: Litestar) -> AsyncIterator[None]:
        """Run the session manager while the app runs (after Hearth's own start-up step)."""
        self.state = app.state
        async with self.manager.run():
            yield

    def handler(self) -> ASGIRouteHandler:
        """``/mcp`` (and below) handed to the session manager."""
        manager = self.manager

        @asgi(MOUNT, is_mount=True, copy_scope=True)
        async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
            """The MCP streamable HTTP endpoint (POST JSON-RPC, GET the event stream, DELETE
            the session)."""
            await manager.handle_request(scope, receive, send)  # type: ignore[arg-type]

        return mcp_endpoint
