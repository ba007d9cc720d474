"""Hearth as a Model Context Protocol server: the library's tools, documents and prompt templates
for any MCP client, over stdio (``hearth mcp``) or streamable HTTP (``/mcp`` of ``hearth serve``).

``server`` builds the MCP server; ``tools`` (search, ask, list/get documents), ``writes`` (ingest,
remove), ``resources`` (documents as ``hearth://document/ID``) and ``prompts`` (the active
templates) register on it; ``reading`` pages a document's text; ``schemas`` are the results'
shapes; ``transports`` runs it over stdio or mounts it in the Litestar app; ``commands`` is
``hearth mcp``.
"""
