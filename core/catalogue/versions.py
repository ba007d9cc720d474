"""Writing one ingested version of a document: its row, its chunks and the ledger entry in one
transaction."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import delete
from sqlalchemy.orm import Session

from core.catalogue.chunks import chunk_ids_of, chunk_metadata
from core.catalogue.documents import document_at, ledger
from core.catalogue.kinds import DONE, Action, DocumentStatus
from core.catalogue.speakers import speaker_names_of, with_speaker_name
from core.db.models import Chunk, Document
from core.types import ChunkDraft


@dataclass(frozen=True)
class DocumentVersion:
    """A file's content, chunked and embedded, ready to replace its document's chunks.

    ``path``: the catalogue key; ``empty_reason``: the document's error when there are no
    chunks; ``vectors``: one row per draft; ``started``: ``time.perf_counter()`` when the file's
    ingest began (the ledger's duration ends at the commit); ``parent_id``: the carrier of an
    attachment; ``reading``: what read it (``documents.reading``, ingest/reading.py);
    ``batches``: the chunks as (drafts, vectors) batches in order, read once inside
    the commit, instead of ``drafts`` and ``vectors`` (a streamed file: one batch in memory).
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
    reading: str | None = None
    batches: Iterable[tuple[list[ChunkDraft], np.ndarray]] | None = None

    def chunk_batches(self) -> Iterator[tuple[list[ChunkDraft], np.ndarray]]:
        """The version's chunks and their vectors, a batch at a time."""
        if self.batches is None:
            yield self.drafts, self.vectors
        else:
            yield from self.batches


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
        doc = Document(path=version.path, status=DocumentStatus.PENDING)
        s.add(doc)
    old_ids = chunk_ids_of(s, [doc.id]) if doc.id is not None else []
    if old_ids:
        s.execute(delete(Chunk).where(Chunk.document_id == doc.id))
    doc.parent_id = version.parent_id
    doc.collection = version.collection
    doc.sha256 = version.sha256
    doc.size_bytes = version.size
    doc.file_type = version.file_type
    doc.reading = version.reading
    doc.ingested_at = datetime.now(UTC)
    s.flush()
    named = speaker_names_of(s, doc.id)  # names given to a recording's speakers are kept
    new_ids: list[int] = []
    for drafts, vectors in version.chunk_batches():
        rows = [
            Chunk(
                document_id=doc.id,
                ordinal=d.ordinal,
                text=d.text,
                title=version.title,
                token_count=d.token_count,
                provenance=with_speaker_name(d.provenance, named),
                embedding=vectors[i].astype(np.float32).tobytes(),
            )
            for i, d in enumerate(drafts)
        ]
        s.add_all(rows)
        s.flush()
        new_ids.extend(r.id for r in rows)
        for row in rows:  # written: a large document's rows need not stay in the session
            s.expunge(row)
    doc.status = DocumentStatus.INGESTED if new_ids else DocumentStatus.EMPTY
    doc.error = None if new_ids else version.empty_reason
    doc.chunk_count = len(new_ids)
    s.flush()
    action = Action.EMPTY if not new_ids else Action.UPDATED if known else Action.ADDED
    ledger(
        s,
        version.path,
        version.sha256,
        action,
        error=doc.error,
        chunks=len(new_ids),
        duration_ms=int((time.perf_counter() - version.started) * 1000),
    )
    return Committed(action, doc.id, old_ids, new_ids, chunk_metadata(doc))
