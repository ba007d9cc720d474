"""The one owner of catalogue queries: documents, their chunks and the ingest ledger are read and
written here, inside a session the caller opens (``with kb.db.session() as s``), so one
transaction can hold several of these steps.

Statuses and actions are :class:`enum.StrEnum` members: they are stored and shown as the same
strings as before ("ingested", "moved-away"), and compare equal to them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import numpy as np
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.db.models import Chunk, Document, LedgerEntry
from core.types import ChunkDraft

#: Paths asked for in one ``IN (...)`` (well under SQLite's and Postgres's parameter limits).
IN_BATCH = 500


class DocumentStatus(StrEnum):
    """``documents.status``: how a document's last ingest went."""

    PENDING = "pending"
    INGESTED = "ingested"
    EMPTY = "empty"
    FAILED = "failed"


#: A document whose last ingest finished (with or without chunks).
DONE = (DocumentStatus.INGESTED, DocumentStatus.EMPTY)


class Action(StrEnum):
    """``ingest_ledger.action``, and what happened to a file in an ingest, move or removal."""

    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    EMPTY = "empty"
    FAILED = "failed"
    REMOVED = "removed"
    MOVED = "moved"
    MOVED_AWAY = "moved-away"


def chunk_metadata(document: Document) -> dict[str, Any]:
    """Flat metadata stored beside each vector (for filtered queries)."""
    return {
        "document_id": document.id,
        "collection": document.collection,
        "file_type": document.file_type,
    }


# --- documents -------------------------------------------------------------------------------


def document_at(s: Session, path: str) -> Document | None:
    """The document at this catalogue path (a file, or ``file#attachment/N/name``), or None."""
    return s.scalar(select(Document).where(Document.path == path))


def document_id_at(s: Session, path: str) -> int | None:
    """The id of the document at this path, or None."""
    return s.scalar(select(Document.id).where(Document.path == path))


def documents_at(s: Session, paths: Iterable[str]) -> list[Document]:
    """The documents at any of these paths (asked for ``IN_BATCH`` paths at a time)."""
    keys = sorted(set(paths))
    found: list[Document] = []
    for start in range(0, len(keys), IN_BATCH):
        part = keys[start : start + IN_BATCH]
        found.extend(s.scalars(select(Document).where(Document.path.in_(part))))
    return found


def _under(path: str) -> Any:
    prefix = path.rstrip("/") + "/"
    return (Document.path == path) | Document.path.startswith(prefix)


def paths_under(s: Session, folder: str) -> list[str]:
    """Paths of the documents at ``folder`` or below it."""
    return list(s.scalars(select(Document.path).where(_under(folder))))


def documents_under(s: Session, path: str) -> list[Document]:
    """The document at ``path`` and every document below it (a folder)."""
    return list(s.scalars(select(Document).where(_under(path))))


def documents_by_id(s: Session, ids: Iterable[int]) -> dict[int, Document]:
    """Documents keyed by id."""
    return {d.id: d for d in s.scalars(select(Document).where(Document.id.in_(list(ids))))}


def descendant_ids(s: Session, parent_ids: list[int]) -> list[int]:
    """Ids of every document carried (at any depth) by these documents, nearest first."""
    found: list[int] = []
    frontier = list(parent_ids)
    while frontier:
        rows = list(s.scalars(select(Document.id).where(Document.parent_id.in_(frontier))))
        found.extend(rows)
        frontier = rows
    return found


def delete_documents(s: Session, docs: list[Document]) -> None:
    """Delete documents (their chunks go by cascade), last first: list carried ones after their
    carriers so the deepest goes first and the cascade does not race."""
    for doc in reversed(docs):
        s.delete(doc)
        s.flush()


def ingested_collections(s: Session) -> list[str]:
    """Collections holding at least one ingested document, sorted."""
    query = select(Document.collection).where(Document.status == DocumentStatus.INGESTED)
    return sorted(s.scalars(query.distinct()))


def status_counts(s: Session) -> dict[str, int]:
    """Documents per status."""
    rows = s.execute(select(Document.status, func.count(Document.id)).group_by(Document.status))
    return {status: count for status, count in rows.all()}


# --- chunks ----------------------------------------------------------------------------------


def chunk_ids_of(s: Session, document_ids: list[int]) -> list[int]:
    """Ids of the chunks of these documents."""
    return list(s.scalars(select(Chunk.id).where(Chunk.document_id.in_(document_ids))))


def chunk_count(s: Session) -> int:
    """Chunks in the catalogue."""
    return s.scalar(select(func.count(Chunk.id))) or 0


def all_chunk_ids(s: Session) -> set[int]:
    """Every chunk id in the catalogue."""
    return set(s.scalars(select(Chunk.id)))


def chunk_signature(s: Session) -> tuple[int, int]:
    """(chunk count, highest chunk id)."""
    count, top = s.execute(select(func.count(Chunk.id), func.max(Chunk.id))).one()
    return int(count or 0), int(top or 0)


def stored_embeddings(
    s: Session, ids: list[int]
) -> tuple[list[int], np.ndarray | None, list[dict[str, Any]]]:
    """The ids found among ``ids``, their embeddings as kept in the catalogue (one row each;
    None when none was found) and their vector metadata."""
    rows = s.execute(
        select(Chunk.id, Chunk.embedding, Document)
        .join(Document, Chunk.document_id == Document.id)
        .where(Chunk.id.in_(ids))
    ).all()
    if not rows:
        return [], None, []
    vectors = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
    return [r[0] for r in rows], vectors, [chunk_metadata(r[2]) for r in rows]


# --- the ledger ------------------------------------------------------------------------------


def ledger(
    s: Session,
    path: str,
    sha: str | None,
    action: Action,
    *,
    error: str | None = None,
    chunks: int | None = None,
    duration_ms: int | None = None,
) -> None:
    """Add one ledger entry (columns left None take the table's defaults)."""
    entry = LedgerEntry(path=path, sha256=sha, action=action, error=error)
    if chunks is not None:
        entry.chunk_count = chunks
    if duration_ms is not None:
        entry.duration_ms = duration_ms
    s.add(entry)


def action_counts(s: Session) -> dict[str, int]:
    """Ledger entries per action."""
    query = select(LedgerEntry.action, func.count(LedgerEntry.id)).group_by(LedgerEntry.action)
    return {action: count for action, count in s.execute(query).all()}


# --- one ingested version of a document ------------------------------------------------------


@dataclass(frozen=True)
class DocumentVersion:
    """A file's content, chunked and embedded, ready to replace its document's chunks.

    ``path``: the catalogue key; ``empty_reason``: the document's error when there are no
    chunks; ``vectors``: one row per draft; ``started``: ``time.perf_counter()`` when the file's
    ingest began (the ledger's duration ends at the commit); ``parent_id``: the carrier of an
    attachment.
    """

    path: str
    sha256: str
    size: int
    file_type: str
    collection: str
    drafts: list[ChunkDraft]
    vectors: np.ndarray
    title: str | None
    empty_reason: str
    started: float
    parent_id: int | None = None


@dataclass(frozen=True)
class Committed:
    """What :func:`write_version` did: the action, the document, its old and new chunk ids and
    the metadata to store beside each new vector."""

    action: Action
    document_id: int
    old_ids: list[int]
    new_ids: list[int]
    metadata: dict[str, Any]


def write_version(s: Session, version: DocumentVersion) -> Committed:
    """Replace the document's chunks with this version's and ledger it (one transaction)."""
    doc = document_at(s, version.path)
    known = doc is not None and doc.status in DONE
    if doc is None:
        doc = Document(path=version.path)
        s.add(doc)
    old_ids = chunk_ids_of(s, [doc.id]) if doc.id is not None else []
    if old_ids:
        s.execute(delete(Chunk).where(Chunk.document_id == doc.id))
    drafts = version.drafts
    doc.parent_id = version.parent_id
    doc.collection = version.collection
    doc.sha256 = version.sha256
    doc.size_bytes = version.size
    doc.file_type = version.file_type
    doc.status = DocumentStatus.INGESTED if drafts else DocumentStatus.EMPTY
    doc.error = None if drafts else version.empty_reason
    doc.chunk_count = len(drafts)
    doc.ingested_at = datetime.now(UTC)
    s.flush()
    rows = [
        Chunk(
            document_id=doc.id,
            ordinal=d.ordinal,
            text=d.text,
            title=version.title,
            token_count=d.token_count,
            provenance=d.provenance,
            embedding=version.vectors[i].astype(np.float32).tobytes(),
        )
        for i, d in enumerate(drafts)
    ]
    s.add_all(rows)
    s.flush()
    action = Action.EMPTY if not drafts else Action.UPDATED if known else Action.ADDED
    ledger(
        s,
        version.path,
        version.sha256,
        action,
        error=doc.error,
        chunks=len(rows),
        duration_ms=int((time.perf_counter() - version.started) * 1000),
    )
    return Committed(action, doc.id, old_ids, [r.id for r in rows], chunk_metadata(doc))
