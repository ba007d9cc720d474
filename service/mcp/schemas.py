"""The results of Hearth's MCP tools: pydantic models, so the SDK publishes their JSON schemas as
each tool's ``outputSchema`` and sends them as structured content (and as JSON text)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Hit(BaseModel):
    """One passage found by ``search``, best first."""

    document_id: int = Field(description="The document's id (get_document, hearth://document/ID).")
    document: str = Field(description="The document's file name.")
    path: str = Field(description="The document's path on this machine.")
    label: str = Field(description="Where the passage is: 'report.pdf, page 3', '0:00–0:11'.")
    provenance: dict[str, Any] = Field(description="page, slide, start/end (s), sheet, rows...")
    text: str = Field(description="The passage's text.")
    score: float = Field(description="Cosine similarity to the query, -1..1.")
    chunk_id: int = Field(description="The passage's chunk id.")
    link: str = Field(description="The web UI's source view of this passage.")


class SearchResult(BaseModel):
    """Passages for a query."""

    query: str
    hits: list[Hit]


class Citation(BaseModel):
    """A passage an answer cites, by its number in the answer's text ([1], [2], ...)."""

    number: int
    document_id: int
    document: str
    label: str
    text: str
    link: str


class AskResult(BaseModel):
    """A cited answer from the local model."""

    answer: str = Field(description="The answer; [n] marks cite the citations of that number.")
    citations: list[Citation]
    grounding: dict[str, Any] = Field(
        description="The grounding verdict: 'verified', and what could not be checked."
    )
    answer_id: int | None = Field(description="The stored answer (its recipe can be replayed).")
    conversation_id: int | None
    model: str


class DocumentInfo(BaseModel):
    """A document of the library."""

    document_id: int
    document: str = Field(description="File name.")
    path: str
    collection: str
    kind: str = Field(description="File type: pdf, docx, audio, image, text, ...")
    status: str = Field(description="ingested, empty, failed or pending.")
    chunks: int
    size_bytes: int
    uri: str = Field(description="The document as an MCP resource.")


class DocumentList(BaseModel):
    """One page of the library's documents."""

    documents: list[DocumentInfo]
    total: int = Field(description="Documents matching, over all pages.")
    next_offset: int | None = Field(description="Offset of the next page; null on the last.")


class DocumentPage(BaseModel):
    """Part of a document's text, at most ``max_chars`` characters."""

    document: DocumentInfo
    text: str = Field(description="The text, each part headed by where it is: [page 3].")
    chunks: list[int] = Field(description="Ordinals of the chunks this page holds.")
    next_cursor: int | None = Field(description="Cursor of the next page; null on the last.")
    total_chunks: int = Field(description="Chunks of the document within the range asked for.")


class WriteResult(BaseModel):
    """What ``ingest`` or ``remove`` did to the files of one path."""

    path: str
    files: list[dict[str, Any]] = Field(
        description="Per file: path, action (added, updated, unchanged, empty, failed, removed), "
        "chunks, error."
    )
