"""Taking messages out of every store: the message documents at given catalogue keys and the
attachments they carry (``imap://`` keys are no file paths, so :mod:`ingest.remove`, which makes
paths absolute, does not apply)."""

from __future__ import annotations

from core import catalogue
from core.catalogue import Action
from core.knowledge import KnowledgeBase
from ingest.pipeline import FileResult


def remove_messages(kb: KnowledgeBase, keys: list[str]) -> list[FileResult]:
    """Remove the documents at ``keys`` with what they carry, in one transaction; the vector
    stores follow (a crash between is repaired at the next start). One result per document."""
    if not keys:
        return []
    with kb.db.session() as s:
        docs = catalogue.documents_at(s, keys)
        own = {d.id for d in docs}
        carried = [i for i in catalogue.descendant_ids(s, list(own)) if i not in own]
        by_id = catalogue.documents_by_id(s, carried)
        every = docs + [by_id[i] for i in carried]
        chunk_ids = catalogue.chunk_ids_of(s, [d.id for d in every])
        results = [FileResult(d.path, Action.REMOVED, d.chunk_count) for d in every]
        for doc in every:
            catalogue.ledger(s, doc.path, doc.sha256, Action.REMOVED, chunks=doc.chunk_count)
        catalogue.delete_documents(s, every)  # carried ones listed last: deleted first
    kb.delete_vectors(chunk_ids)
    kb.persist()
    return results
