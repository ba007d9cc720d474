"""Documents as MCP resources: ``hearth://document/ID`` (stable while the document is in the
library), listed from the catalogue at each request; reading one gives its text, the first
``mcp.max_page_chars`` characters of it, with a line saying how to read on (``get_document``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from anyio import to_thread
from mcp_types import Resource

from core.errors import HearthError, InvalidInputError
from service.mcp.errors import resource_errors
from service.mcp.reading import page_of
from service.mcp.tools import document_uri

if TYPE_CHECKING:
    from service.mcp.server import HearthMCP
    from service.state import Hearth

#: Most documents one resources/list answer names (every document stays readable by its URI).
MAX_LISTED = 1000
TEMPLATE = "hearth://document/{document_id}"


def listed(hearth: Hearth) -> list[Resource]:
    """The library's ingested documents (at most ``MAX_LISTED``, by path) as resources."""
    docs = [d for d in hearth.library.documents() if d.chunk_count > 0][:MAX_LISTED]
    return [
        Resource(
            uri=document_uri(d.id),
            name=Path(d.path).name,
            title=d.path,
            description=f"{d.file_type} in collection {d.collection}, {d.chunk_count} chunks",
            mime_type="text/plain",
        )
        for d in docs
    ]


def document_text(hearth: Hearth, document_id: str) -> str:
    """A document's text up to ``mcp.max_page_chars``, then how to read the rest."""
    if not document_id.isdigit():
        raise InvalidInputError(f"uri: document id {document_id!r} is not a number", field="uri")
    doc, chunks = hearth.library.get(int(document_id))
    page = page_of(chunks, 0, hearth.settings.mcp.max_page_chars)
    if page.next_cursor is None:
        return page.text
    return (
        f"{page.text}\n\n[… {doc.path} goes on: call get_document with document_id={doc.id} "
        f"and cursor={page.next_cursor}]"
    )


async def document_resources(server: HearthMCP) -> list[Resource]:
    """The listed documents, read in a worker thread."""
    hearth = await server.provider()
    return await to_thread.run_sync(lambda: listed(hearth))


def register(server: HearthMCP) -> None:
    """Add the document template to ``server`` (the listing is ``HearthMCP.list_resources``)."""

    @server.resource(
        TEMPLATE,
        name="document",
        title="A document of the library",
        description="A document's text (the start of it when long; get_document pages on).",
        mime_type="text/plain",
    )
    async def document(document_id: str) -> str:
        hearth = await server.provider()
        try:
            return await to_thread.run_sync(lambda: document_text(hearth, document_id))
        except HearthError as exc:
            raise resource_errors(exc) from exc
