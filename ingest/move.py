"""Moving a document to a new path without re-embedding it."""

from __future__ import annotations

from pathlib import Path

from core import catalogue
from core.catalogue import Action
from core.errors import NotFoundError
from core.knowledge import KnowledgeBase
from ingest.pipeline import FileResult
from ingest.remove import forget_documents


def move_document(kb: KnowledgeBase, old: Path, new: Path) -> FileResult:
    """Give the document at ``old`` the path ``new``; its chunks and vectors stay as they are.

    The vector stores key chunks by id and hold no path, so only the catalogue changes. The
    documents it carries (an e-mail's attachments, ``old#attachment/1/x.pdf``) move with it. A
    document already at ``new`` (a file overwritten by the move) is removed from every store
    first, with what it carries.
    """
    old_key, new_key = str(old), str(new)
    stale: list[int] = []
    with kb.db.session() as s:
        doc = catalogue.document_at(s, old_key)
        if doc is None:
            raise NotFoundError(f"{old.name}: no document at {old_key}")
        displaced = catalogue.document_at(s, new_key)
        if displaced is not None:
            stale, _ = forget_documents(s, [displaced])
        for child in catalogue.documents_by_id(s, catalogue.descendant_ids(s, [doc.id])).values():
            if child.path.startswith(old_key + "#"):
                child.path = new_key + child.path[len(old_key) :]
        doc.path = new_key
        chunks = doc.chunk_count
        for key, action in ((old_key, Action.MOVED_AWAY), (new_key, Action.MOVED)):
            catalogue.ledger(s, key, doc.sha256, action, chunks=chunks)
    kb.delete_vectors(stale)
    return FileResult(new_key, Action.MOVED, chunks)
