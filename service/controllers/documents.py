"""Documents in the catalogue."""

from __future__ import annotations

from litestar import Controller, get
from litestar.datastructures import State
from sqlalchemy import select

from core.db.models import Document
from service.schemas import DocumentOut


class DocumentController(Controller):
    """What Hearth knows."""

    path = "/api/documents"
    tags = ["documents"]

    @get("/", sync_to_thread=True)
    def list_documents(self, state: State) -> list[DocumentOut]:
        """Every document with its ingest status and chunk count."""
        with state.hearth.kb.db.session() as s:
            docs = s.scalars(select(Document).order_by(Document.path)).all()
            return [
                DocumentOut(
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
                for d in docs
            ]
