"""``hearth mcp``: the MCP server over stdio, for clients that start it as a subprocess."""

from __future__ import annotations

import click

from core.settings import HearthSettings


@click.command("mcp")
@click.pass_obj
def mcp_command(settings: HearthSettings) -> None:
    """Serve the library to an MCP client over stdio (its config starts `hearth mcp`).

    Tools: search, ask, list_documents, get_document, and ingest/remove where
    ``mcp.allow_writes`` and ``mcp.write_folders`` allow it; documents as hearth://document/ID
    resources; the active prompt templates as prompts. Logs go to stderr (WARNING; no user text).
    The same server is at /mcp of `hearth serve` (streamable HTTP).
    """
    from service.mcp.transports import run_stdio

    run_stdio(settings)
