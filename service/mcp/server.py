"""The MCP server: the SDK's ``MCPServer`` with Hearth's tools, its documents as resources and
its active templates as prompts, and Hearth's errors as MCP errors that name the argument.

Tools run the same services as the HTTP API (the retriever, the answer service, the library, the
templates); blocking calls run in worker threads. A tool's failure reaches the client as an MCP
error result with one clear line (``k: Input should be a valid integer (got str)``), never a
traceback (``service.mcp.errors``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, GetPromptResult, InputRequiredResult
from mcp_types import Prompt as MCPPrompt
from mcp_types import Resource as MCPResource
from pydantic import ValidationError

from core.errors import HearthError
from service import __version__
from service.mcp import prompts, resources, tools, writes
from service.mcp.errors import argument_errors, tool_message

if TYPE_CHECKING:
    from service.state import Hearth

#: How a tool reaches the running Hearth: ``app.state.hearth`` under ``hearth serve``; under
#: ``hearth mcp`` it waits until the Hearth loading beside the server is ready.
Provider = Callable[[], Awaitable["Hearth"]]

INSTRUCTIONS = (
    "Hearth holds the user's own documents on this machine. Use `search` to find passages "
    "(each with its document, where it is, e.g. 'page 3', and a link), `ask` for an answer the "
    "local model writes from them with numbered citations and a grounding verdict, "
    "`list_documents` / `get_document` to read what the library holds a page at a time. "
    "`ingest` and `remove` change the library only where the user allowed it."
)
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@asynccontextmanager
async def _no_lifespan(_: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    """Hearth's services live as long as the process (or the Litestar app), not a session."""
    yield {}


class HearthMCP(MCPServer[Any]):
    """``MCPServer`` over the Hearth that ``provider`` returns: argument errors name each
    argument in one line; resources and prompts are listed from the library and the templates
    at each request."""

    def __init__(self, provider: Provider, log_level: str = "WARNING") -> None:
        level = log_level.upper() if log_level.upper() in _LEVELS else "WARNING"
        super().__init__(
            "hearth",
            title="Hearth",
            description="Search, cite and read your own documents, on this machine.",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level=level,  # type: ignore[arg-type]
            lifespan=_no_lifespan,
        )
        self.provider = provider

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """``MCPServer.call_tool`` (mcp.server.mcpserver), with argument errors rewritten to
        name each argument without pydantic's internals."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_errors(exc.__cause__)) from exc.__cause__
            raise

    async def list_resources(self) -> list[MCPResource]:
        """``MCPServer.list_resources``, plus every document of the library."""
        return [*await super().list_resources(), *await resources.document_resources(self)]

    async def list_prompts(self) -> list[MCPPrompt]:
        """The active templates (``service.mcp.prompts``)."""
        return await prompts.template_prompts(self)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        """A template rendered for a question (``service.mcp.prompts``); a Hearth error is an
        invalid-params error naming the argument."""
        try:
            return await prompts.template_prompt(self, name, arguments)
        except HearthError as exc:
            raise MCPError(code=INVALID_PARAMS, message=tool_message(exc)) from exc


def create_server(provider: Provider, log_level: str = "WARNING") -> HearthMCP:
    """The MCP server over the Hearth ``provider`` returns, with every tool, the documents as
    resources and the active templates as prompts."""
    server = HearthMCP(provider, log_level)
    tools.register(server)
    writes.register(server)
    resources.register(server)
    return server
