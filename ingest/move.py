"""Moving a document to a new path without re-embedding it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from core.db.models import Chunk, Document, LedgerEntry
from core.errors import NotFoundError
from core.knowledge import KnowledgeBase
from ingest.pipeline import FileResult


def move_document(kb: KnowledgeBase, old: Path, new: Path) -> FileResult:
    """Give the document at ``old`` the path ``new``; its chunks and vectors stay as they are.

    The vector stores key chunks by id and hold no path, so only the catalogue changes. A document
    already at ``new`` (a file overwritten by the move) is removed from every store first.
    """
    old_key, new_key = str(old), str(new)
    stale: list[int] = []
    with kb.db.session() as s:
        doc = s.scalar(select(Document).where(Document.path == old_key))
        if doc is None:
            raise NotFoundError(f"{old.name}: no document at {old_key}")
        displaced = s.scalar(select(Document).where(Document.path == new_key))
        if displaced is not None:
            stale = list(s.scalars(select(Chunk.id).where(Chunk.document_id == displaced.id)))
            s.add(
                LedgerEntry(
                    path=new_key,
                    sha256=displaced.sha256,
                    action="removed",
                    chunk_count=displaced.chunk_count,
                )
            )
            s.delete(displaced)
            s.flush()
        doc.path = new_key
        chunks = doc.chunk_count
        for key, action in ((old_key, "moved-away"), (new_key, "moved")):
            s.add(LedgerEntry(path=key, sha256=doc.sha256, action=action, chunk_count=chunks))
    for store in kb.stores.values():
        store.delete(stale)
    return FileResult(new_key, "moved", chunks)
