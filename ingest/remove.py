"""Taking documents out of the catalogue and every vector store."""

from __future__ import annotations

from pathlib import Path

from core import catalogue
from core.catalogue import Action
from core.knowledge import KnowledgeBase
from ingest.pipeline import FileResult


def remove_documents(kb: KnowledgeBase, paths: list[Path]) -> list[FileResult]:
    """Remove documents at these paths (a file, or every document below a folder).

    The catalogue commits first; a crash before the stores are updated is repaired at next start.
    """
    results: list[FileResult] = []
    for raw in paths:
        key = str(raw.expanduser().resolve())
        with kb.db.session() as s:
            docs = catalogue.documents_under(s, key)
            carried = catalogue.descendant_ids(s, [d.id for d in docs])
            by_id = catalogue.documents_by_id(s, carried)
            docs = [d for d in docs if d.id not in by_id] + [by_id[i] for i in carried]
            ids = catalogue.chunk_ids_of(s, [d.id for d in docs])
            for doc in reversed(docs):  # carried documents first: the cascade must not race
                catalogue.delete_documents(s, [doc])
                catalogue.ledger(s, doc.path, doc.sha256, Action.REMOVED, chunks=doc.chunk_count)
                results.append(FileResult(doc.path, Action.REMOVED, doc.chunk_count))
        kb.delete_vectors(ids)
    kb.persist()
    return results
