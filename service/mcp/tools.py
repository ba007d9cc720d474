"""The reading tools: ``search``, ``ask``, ``list_documents`` and ``get_document``.

Each runs the service the HTTP API runs (the retriever as the ask path does, the answer service,
the library) in a worker thread; ``ask`` streams the answer as ``/api/ask/stream`` does, reports
MCP progress as tokens arrive, and stops the generation when the client cancels the call (the
model's place goes to the next caller at once).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from anyio import to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from core.db.models import Document
from core.errors import InvalidInputError
from core.filters import Filters
from core.settings import HearthSettings
from service.answering.controllers import stream_events
from service.answering.orchestration import MAX_QUESTION_CHARS, AskOptions, validate_question
from service.library.service import valid_collection
from service.mcp.errors import as_tool_errors
from service.mcp.reading import Unit, page_of
from service.mcp.schemas import (
    AskResult,
    Citation,
    DocumentInfo,
    DocumentList,
    DocumentPage,
    Hit,
    SearchResult,
)

if TYPE_CHECKING:
    from service.mcp.server import HearthMCP
    from service.state import Hearth

#: Seconds between two progress notifications of one answer.
PROGRESS_EVERY_S = 0.2
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def ui_base(settings: HearthSettings) -> str:
    """The web UI's address for these settings (loopback when bound to every address)."""
    host = settings.server.host
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.server.port}/"


def ui_link(settings: HearthSettings, document_id: int, chunk_id: int | None = None) -> str:
    """The web UI's view of a document, with a passage highlighted when ``chunk_id`` is given."""
    query = f"?chunk={chunk_id}" if chunk_id is not None else ""
    return f"{ui_base(settings)}#/knowledge/{document_id}{query}"


def document_uri(document_id: int) -> str:
    """A document's stable MCP resource URI."""
    return f"hearth://document/{document_id}"


def document_info(doc: Document) -> DocumentInfo:
    """The MCP form of a catalogue row."""
    return DocumentInfo(
        document_id=doc.id,
        document=Path(doc.path).name,
        path=doc.path,
        collection=doc.collection,
        kind=doc.file_type,
        status=doc.status,
        chunks=doc.chunk_count,
        size_bytes=doc.size_bytes,
        uri=document_uri(doc.id),
    )


def valid_query(query: str) -> str:
    """A trimmed, non-empty query of bounded length (the limit of a question)."""
    q = (query or "").strip()
    if not q:
        raise InvalidInputError("query: must not be empty", field="query")
    if len(q) > MAX_QUESTION_CHARS:
        raise InvalidInputError(
            f"query: {len(q)} characters is over the {MAX_QUESTION_CHARS} limit", field="query"
        )
    return q


def search_filters(
    hearth: Hearth, collection: str | None, file: str | None, kind: str | None
) -> Filters:
    """Filters of a search: a collection, the documents at a path or of a file name, a file type
    (each checked: an unknown one is an error naming the argument)."""
    from ingest.loaders.base import formats

    if collection is not None:
        collection = valid_collection(collection)
    ids: tuple[int, ...] = ()
    if file is not None:
        wanted = file.strip()
        docs = hearth.library.documents()
        ids = tuple(d.id for d in docs if wanted in (d.path, Path(d.path).name))
        if not ids:
            raise InvalidInputError(f"file: no document at or named {wanted!r}", field="file")
    kinds: tuple[str, ...] = ()
    if kind is not None:
        known = sorted({f.file_type for f in formats()})
        if kind not in known:
            raise InvalidInputError(f"kind: must be one of {', '.join(known)}", field="kind")
        kinds = (kind,)
    return Filters(collection=collection, document_ids=ids, file_types=kinds)


def run_search(
    hearth: Hearth,
    query: str,
    collection: str | None = None,
    file: str | None = None,
    kind: str | None = None,
    k: int = 5,
) -> SearchResult:
    """Passages for a query, best first, as the ask path retrieves them (hybrid, cut at
    ``retrieval.min_score``); each with its document, label, text and web-UI link."""
    query = valid_query(query)
    filters = search_filters(hearth, collection, file, kind)
    found = hearth.answers.retriever.retrieve(query, k=k, filters=filters)
    settings = hearth.settings
    hits = [
        Hit(
            document_id=p.document_id,
            document=Path(p.path).name,
            path=p.path,
            label=p.label,
            provenance=p.provenance,
            text=p.text,
            score=p.score,
            chunk_id=p.chunk_id,
            link=ui_link(settings, p.document_id, p.chunk_id),
        )
        for p in found
    ]
    return SearchResult(query=query, hits=hits)


def citations(settings: HearthSettings, cited: list[dict[str, Any]]) -> list[Citation]:
    """An answer's cited passages (``Passage.as_dict`` forms) as citations with links."""
    return [
        Citation(
            number=c["number"],
            document_id=c["document_id"],
            document=c["name"],
            label=c["label"],
            text=c["text"],
            link=ui_link(settings, c["document_id"], c["chunk_id"]),
        )
        for c in cited
    ]


async def run_ask(
    hearth: Hearth,
    question: str,
    ctx: Context[Any, Any] | None,
    conversation_id: int | None = None,
    collection: str | None = None,
) -> AskResult:
    """An answer streamed as ``/api/ask/stream`` streams it, progress reported per token (at most
    every ``PROGRESS_EVERY_S``); cancelling the awaiting task stops the generation and frees the
    model's place (``service.bridge.in_thread``)."""
    service = hearth.answers
    question = validate_question(question)
    if conversation_id is not None:
        await to_thread.run_sync(service.conversations.get, conversation_id)
    options = AskOptions(
        conversation_id=conversation_id,
        collection=valid_collection(collection) if collection is not None else None,
    )
    service.check_request(question, None, None, options)
    ticket = service.admit()
    total = float(hearth.settings.llm.max_tokens)
    done: dict[str, Any] = {}
    tokens, reported = 0, 0.0
    async for event in stream_events(service, question, ticket, options):
        if event.kind == "sources" and ctx is not None:
            found = len(event.data["sources"])
            await ctx.report_progress(0, total, f"{found} passages found; writing the answer")
        elif event.kind == "token":
            tokens += 1
            now = time.monotonic()
            if ctx is not None and now - reported >= PROGRESS_EVERY_S:
                reported = now
                await ctx.report_progress(min(tokens, total), total, f"{tokens} tokens written")
        elif event.kind == "error":
            raise ToolError(str(event.data.get("detail") or "the answer failed"))
        elif event.kind == "done":
            done = event.data
    if ctx is not None:
        await ctx.report_progress(total, total, "answered")
    return AskResult(
        answer=done.get("answer", ""),
        citations=citations(hearth.settings, done.get("citations") or []),
        grounding=done.get("grounding") or {},
        answer_id=done.get("answer_id"),
        conversation_id=done.get("conversation_id"),
        model=done.get("model", ""),
    )


def list_page(hearth: Hearth, collection: str | None, offset: int, limit: int) -> DocumentList:
    """One page of the documents (of a collection), by path."""
    docs = hearth.library.documents(collection)
    chosen = docs[offset : offset + limit]
    following = offset + len(chosen)
    return DocumentList(
        documents=[document_info(d) for d in chosen],
        total=len(docs),
        next_offset=following if following < len(docs) else None,
    )


def read_page(
    hearth: Hearth,
    document_id: int,
    cursor: int,
    max_chars: int,
    unit: Unit | None = None,
    start: float | None = None,
    end: float | None = None,
) -> DocumentPage:
    """A page of a document's text (``service.mcp.reading.page_of``) with the document."""
    limit = hearth.settings.mcp.max_page_chars
    if max_chars > limit:
        raise InvalidInputError(
            f"max_chars: {max_chars} is over mcp.max_page_chars ({limit})", field="max_chars"
        )
    doc, chunks = hearth.library.get(document_id)
    page = page_of(chunks, cursor, max_chars, unit, start, end)
    return DocumentPage(
        document=document_info(doc),
        text=page.text,
        chunks=page.ordinals,
        next_cursor=page.next_cursor,
        total_chunks=page.total,
    )


Query = Annotated[str, Field(description="What to look for, in the user's words.")]
Collection = Annotated[str | None, Field(description="Only this collection.")]


def register(server: HearthMCP) -> None:
    """Add the reading tools to ``server``."""

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def search(
        query: Query,
        collection: Collection = None,
        file: Annotated[
            str | None, Field(description="Only the document at this path, or of this file name.")
        ] = None,
        kind: Annotated[
            str | None, Field(description="Only this kind of file: pdf, docx, audio, image, ...")
        ] = None,
        k: Annotated[int, Field(ge=1, le=50, description="How many passages, at most.")] = 5,
    ) -> SearchResult:
        """Passages of the user's documents for a query, best first: each with its document,
        where it is (page, slide, time range), its text and a link the web UI opens."""
        with as_tool_errors("an MCP search"):
            hearth = await server.provider()
            return await to_thread.run_sync(
                lambda: run_search(hearth, query, collection, file, kind, k)
            )

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
        structured_output=True,
    )
    async def ask(
        question: Annotated[str, Field(description="The question, in the user's words.")],
        ctx: Context[Any, Any],
        conversation_id: Annotated[
            int | None, Field(description="Continue this conversation (its id).")
        ] = None,
        collection: Collection = None,
    ) -> AskResult:
        """An answer to a question from the user's documents, written by the local model, with
        numbered citations ([1]) of the passages it used and a grounding verdict. Takes seconds
        to a minute; reports progress and stops when cancelled. Stored with its recipe."""
        with as_tool_errors("an MCP answer"):
            hearth = await server.provider()
            return await run_ask(hearth, question, ctx, conversation_id, collection)

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def list_documents(
        collection: Collection = None,
        offset: Annotated[int, Field(ge=0, description="Skip this many documents.")] = 0,
        limit: Annotated[int, Field(ge=1, le=200, description="Documents per page.")] = 50,
    ) -> DocumentList:
        """What the library holds, a page at a time: each document with its id, kind, status,
        chunk count and resource URI."""
        with as_tool_errors("listing documents over MCP"):
            hearth = await server.provider()
            return await to_thread.run_sync(lambda: list_page(hearth, collection, offset, limit))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    async def get_document(
        document_id: Annotated[int, Field(description="The document's id (list_documents).")],
        cursor: Annotated[
            int, Field(ge=0, description="next_cursor of the previous page; 0 for the first.")
        ] = 0,
        max_chars: Annotated[
            int, Field(ge=500, description="Most characters of text in this page.")
        ] = 8000,
        unit: Annotated[
            Unit | None,
            Field(description="Only part of the document: page, slide or second (time)."),
        ] = None,
        start: Annotated[float | None, Field(description="First page/slide, or second.")] = None,
        end: Annotated[float | None, Field(description="Last page/slide, or second.")] = None,
    ) -> DocumentPage:
        """A document's text a page at a time (next_cursor continues it), or only a page,
        slide or time range of it (unit with start and/or end; the cursor then counts within
        the range). Each part is headed by where it is, e.g. [page 3]."""
        with as_tool_errors("reading a document over MCP"):
            hearth = await server.provider()
            return await to_thread.run_sync(
                lambda: read_page(hearth, document_id, cursor, max_chars, unit, start, end)
            )
