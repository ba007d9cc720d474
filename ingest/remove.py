"""Taking documents out of the catalogue and every vector store."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from core.db.models import Chunk, Document, LedgerEntry
from core.knowledge import KnowledgeBase
from ingest.attachments import descendant_ids
from ingest.pipeline import FileResult


def remove_documents(kb: KnowledgeBase, paths: list[Path]) -> list[FileResult]:
    """Remove documents at these paths (a file, or every document below a folder).

    The catalogue commits first; a crash before the stores are updated is repaired at next start.
    """
    results: list[FileResult] = []
    for raw in paths:
        key = str(raw.expanduser().resolve())
        prefix = key.rstrip("/") + "/"
        with kb.db.session() as s:
            docs = list(
                s.scalars(
                    select(Document).where(
                        (Document.path == key) | Document.path.startswith(prefix)
                    )
                )
            )
            carried = descendant_ids(s, [d.id for d in docs])
            by_id = {d.id: d for d in s.scalars(select(Document).where(Document.id.in_(carried)))}
            docs = [d for d in docs if d.id not in by_id] + [by_id[i] for i in carried]
            doc_ids = [d.id for d in docs]
            ids = list(s.scalars(select(Chunk.id).where(Chunk.document_id.in_(doc_ids))))
            for doc in reversed(docs):  # carried documents first: the cascade must not race
                s.delete(doc)
                s.flush()
                s.add(
                    LedgerEntry(
                        path=doc.path,
                        sha256=doc.sha256,
                        action="removed",
                        chunk_count=doc.chunk_count,
                    )
                )
                results.append(FileResult(doc.path, "removed", doc.chunk_count))
        for store in kb.stores.values():
            store.delete(ids)
    kb.persist()
    return results
