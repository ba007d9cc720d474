"""Documents and collections: list, show, upload to ingest, delete."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from anyio import to_thread
from litestar import Controller, delete, get, post
from litestar.datastructures import State, UploadFile
from litestar.enums import RequestEncodingType
from litestar.params import Body

from core.db.models import Document
from core.errors import InvalidInputError
from service.library.schemas import DocumentOut
from service.library.service import Library
from service.schemas import Id


@dataclass
class DocumentUpload:
    """A file to ingest (multipart field ``file``) and the collection it joins."""

    file: UploadFile
    collection: str = "default"


@dataclass
class ChunkOut:
    """One chunk of a document."""

    id: int
    ordinal: int
    text: str
    token_count: int
    provenance: dict[str, Any]


@dataclass
class DocumentDetail:
    """A document with its chunks."""

    document: DocumentOut
    chunks: list[ChunkOut] = field(default_factory=list)


@dataclass
class UploadOut:
    """The outcome of an upload: added, updated or unchanged, and the document."""

    action: str
    chunks: int
    document: DocumentOut | None


@dataclass
class CollectionOut:
    """A collection and what it holds."""

    name: str
    documents: int
    chunks: int


def document_out(d: Document) -> DocumentOut:
    """API form of a catalogue row."""
    return DocumentOut(
        d.id,
        d.path,
        d.collection,
        d.file_type,
        d.status,
        d.error,
        d.chunk_count,
        d.size_bytes,
        d.sha256,
    )


class DocumentController(Controller):
    """What Hearth knows."""

    path = "/api/documents"
    tags = ["documents"]

    @get("/", sync_to_thread=True)
    def list_documents(self, state: State, collection: str | None = None) -> list[DocumentOut]:
        """Every document (of one collection, if given) with its status and chunk count."""
        library: Library = state.hearth.library
        return [document_out(d) for d in library.documents(collection)]

    @get("/{document_id:int}", sync_to_thread=True)
    def get_document(self, document_id: Id, state: State) -> DocumentDetail:
        """One document with its chunks and their provenance."""
        library: Library = state.hearth.library
        doc, chunks = library.get(document_id)
        return DocumentDetail(
            document_out(doc),
            [
                ChunkOut(c.id, c.ordinal, c.text, c.token_count, dict(c.provenance or {}))
                for c in chunks
            ],
        )

    @delete("/{document_id:int}", sync_to_thread=True, status_code=200)
    def delete_document(self, document_id: Id, state: State) -> dict[str, int]:
        """Remove a document (and what it carries) from every store."""
        library: Library = state.hearth.library
        return {"removed_chunks": library.delete(document_id)}

    @post("/", status_code=201)
    async def upload(
        self,
        data: Annotated[DocumentUpload, Body(media_type=RequestEncodingType.MULTI_PART)],
        state: State,
    ) -> UploadOut:
        """Upload a file (multipart ``file``, optional ``collection``) and ingest it. A file that
        cannot be read is a 4xx naming it and the reason; nothing stored before changes."""
        upload = data.file
        if not isinstance(upload, UploadFile):
            raise InvalidInputError("file: must be an uploaded file", field="file")
        content = await upload.read()
        library: Library = state.hearth.library
        done = await to_thread.run_sync(
            library.upload, upload.filename or "", content, data.collection
        )
        doc = None
        if done.document_id is not None:
            doc, _ = await to_thread.run_sync(library.get, done.document_id)
        return UploadOut(done.result.action, done.result.chunks, document_out(doc) if doc else None)


class CollectionController(Controller):
    """Collections: a document belongs to one; asking can be limited to one."""

    path = "/api/collections"
    tags = ["documents"]

    @get("/", sync_to_thread=True)
    def list_collections(self, state: State) -> list[CollectionOut]:
        """Every collection with its document and chunk counts."""
        library: Library = state.hearth.library
        return [CollectionOut(**c) for c in library.collections()]
