"""Chunks: their ids, counts, text in order, and the embeddings kept for the vector stores."""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.db.models import Chunk, Document


def chunk_metadata(document: Document) -> dict[str, Any]:
    """Flat metadata stored beside each vector (for filtered queries)."""
    return {
        "document_id": document.id,
        "collection": document.collection,
        "file_type": document.file_type,
    }


def chunk_ids_of(s: Session, document_ids: list[int]) -> list[int]:
    """Ids of the chunks of these documents."""
    return list(s.scalars(select(Chunk.id).where(Chunk.document_id.in_(document_ids))))


def chunks_of(s: Session, document_id: int) -> list[Chunk]:
    """A document's chunks in order."""
    query = select(Chunk).where(Chunk.document_id == document_id).order_by(Chunk.ordinal)
    return list(s.scalars(query))


def first_chunks(
    s: Session, document_ids: list[int] | None = None
) -> dict[int, tuple[str, dict[str, Any]]]:
    """Each document's first chunk (of ``document_ids`` only, when given): document id ->
    (its text, its provenance). What a document's head says of it (an e-mail's sender and date,
    a memo's FROM and date line, a filing's cover: "FORM 10-K")."""
    first_of = select(Chunk.document_id, func.min(Chunk.ordinal).label("ordinal"))
    if document_ids is not None:
        first_of = first_of.where(Chunk.document_id.in_(document_ids))
    first = first_of.group_by(Chunk.document_id).subquery()
    rows = s.execute(
        select(Chunk.document_id, Chunk.text, Chunk.provenance).join(
            first,
            (Chunk.document_id == first.c.document_id) & (Chunk.ordinal == first.c.ordinal),
        )
    ).all()
    return {doc: (text, dict(prov or {})) for doc, text, prov in rows}


def chunks_with_documents(s: Session, ids: list[int]) -> dict[int, tuple[Chunk, Document]]:
    """The chunks among ``ids`` that the catalogue holds, each with its document, by id."""
    rows = s.execute(
        select(Chunk, Document)
        .join(Document, Chunk.document_id == Document.id)
        .where(Chunk.id.in_(ids))
    ).all()
    return {chunk.id: (chunk, doc) for chunk, doc in rows}


def chunks_around(
    s: Session, ids: list[int], reach: int
) -> tuple[list[Chunk], dict[tuple[int, int], Chunk]]:
    """The chunks among ``ids``, and the chunks up to ``reach`` places before and after each in
    its document, by (document id, ordinal)."""
    own = list(s.scalars(select(Chunk).where(Chunk.id.in_(ids))))
    wanted = {(c.document_id, c.ordinal + d) for c in own for d in range(-reach, reach + 1) if d}
    if not wanted:
        return own, {}
    rows = s.scalars(
        select(Chunk).where(
            Chunk.document_id.in_({doc for doc, _ in wanted}),
            Chunk.ordinal.in_({n for _, n in wanted}),
        )
    )
    return own, {(c.document_id, c.ordinal): c for c in rows}


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
