"""Taking documents out of the catalogue and every vector store."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sqlalchemy.orm import Session

from core import catalogue
from core.catalogue import Action
from core.db.models import Document
from core.knowledge import KnowledgeBase
from ingest.files import catalogue_path
from ingest.pipeline import FileResult


def remove_documents(kb: KnowledgeBase, paths: list[Path]) -> list[FileResult]:
    """Remove documents at these catalogue paths (a file, or every document below a folder:
    that exact path and what lies below it, byte for byte). A path is taken as written (made
    absolute), not resolved: a document recorded under a link's path is found by that path.

    The catalogue commits first; a crash before the stores are updated is repaired at next start.
    """
    results: list[FileResult] = []
    for raw in paths:
        key = os.path.abspath(raw.expanduser())
        with kb.db.session() as s:
            ids, removed = forget_documents(s, catalogue.documents_under(s, key))
            results += removed
        kb.delete_vectors(ids)
    kb.persist()
    return results


def forget_documents(s: Session, docs: list[Document]) -> tuple[list[int], list[FileResult]]:
    """Delete ``docs`` and every document they carry from the catalogue in session ``s``, each
    recorded as removed in the ledger; returns their chunk ids (for the vector stores) and a
    ``removed`` result per document."""
    carried = catalogue.descendant_ids(s, [d.id for d in docs])
    by_id = catalogue.documents_by_id(s, carried)
    docs = [d for d in docs if d.id not in by_id] + [by_id[i] for i in carried]
    ids = catalogue.chunk_ids_of(s, [d.id for d in docs])
    results: list[FileResult] = []
    for doc in reversed(docs):  # carried documents first: the cascade must not race
        catalogue.delete_documents(s, [doc])
        catalogue.ledger(s, doc.path, doc.sha256, Action.REMOVED, chunks=doc.chunk_count)
        results.append(FileResult(doc.path, Action.REMOVED, doc.chunk_count))
    return ids, results


def named_path(kb: KnowledgeBase, raw: Path) -> Path:
    """The catalogue path a person means by ``raw`` (`hearth remove`): the path as written when
    documents lie there, else the one `hearth ingest` records for it (folders above resolved,
    a link's own name kept), else its real path (a catalogue from before links kept their
    names). Shape: an absolute path; the first of the three when none holds documents."""
    written = Path(os.path.abspath(raw.expanduser()))
    candidates = [written, catalogue_path(raw)]
    with contextlib.suppress(OSError, RuntimeError):  # RuntimeError: 3.11's "Symlink loop"
        candidates.append(written.resolve())
    with kb.db.session() as s:
        for path in candidates:
            if catalogue.any_under(s, str(path)):
                return path
    return written
