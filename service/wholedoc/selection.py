"""Which documents a whole-document request reads: by catalogue id, path, folder, file name or
collection; each with every chunk in order and the label a citation shows."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import catalogue
from core.catalogue import DocumentStatus
from core.db.models import Document
from core.errors import InvalidInputError, NotFoundError
from core.knowledge import KnowledgeBase
from core.provenance import describe

#: Documents one request may read at most (a folder or collection beyond it is refused).
MAX_DOCUMENTS = 50
#: Chunks one request may read at most (about 2,000 pages).
MAX_CHUNKS = 20_000


@dataclass(frozen=True)
class ChunkText:
    """One chunk as the map step reads it and a citation shows it."""

    chunk_id: int
    document_id: int
    ordinal: int
    path: str
    text: str
    provenance: dict[str, Any]
    file_type: str = ""

    @property
    def label(self) -> str:
        """``name, page 3`` (the chunk's file name and where in it, as answers cite)."""
        where = describe(self.provenance)
        name = Path(self.path).name
        return f"{name}, {where}" if where else name

    def source(self, number: int) -> dict[str, Any]:
        """The JSON source of citation ``number``."""
        return {
            "number": number,
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "path": self.path,
            "name": Path(self.path).name,
            "label": self.label,
            "file_type": self.file_type,
            "provenance": self.provenance,
            "score": 1.0,
            "text": self.text,
        }


@dataclass(frozen=True)
class DocumentText:
    """A document (its version: content sha256) and its chunks in order."""

    document_id: int
    path: str
    sha256: str
    chunks: tuple[ChunkText, ...]

    @property
    def name(self) -> str:
        """The file name."""
        return Path(self.path).name

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: id, path, name, sha256, chunk count."""
        return {
            "id": self.document_id,
            "path": self.path,
            "name": self.name,
            "sha256": self.sha256,
            "chunks": len(self.chunks),
        }


def version_key(documents: list[DocumentText]) -> str:
    """A hash of the documents' paths, versions and chunk counts: changes when any changes."""
    text = "\n".join(f"{d.path}\0{d.sha256}\0{len(d.chunks)}" for d in documents)
    return hashlib.sha256(text.encode()).hexdigest()


def _find(kb: KnowledgeBase, ref: str) -> list[Document]:
    """Documents a reference names: an id, a path (a file or a folder), else a file name."""
    ref = ref.strip()
    with kb.db.session() as s:
        if ref.isdigit():
            doc = catalogue.document_by_id(s, int(ref))
            if doc is not None:
                return [doc]
        path = str(Path(ref).expanduser().resolve()) if not ref.startswith("imap://") else ref
        for candidate in dict.fromkeys((ref, path)):
            doc = catalogue.document_at(s, candidate)
            if doc is not None:
                return [doc]
            below = catalogue.documents_under(s, candidate)
            if below:
                return sorted(below, key=lambda d: d.path)
        by_name = [d for d in catalogue.documents_in(s) if Path(d.path).name == ref]
    if len(by_name) > 1:
        listed = ", ".join(d.path for d in by_name[:5])
        raise InvalidInputError(
            f"documents: {ref!r} names {len(by_name)} documents ({listed}); give a path or id",
            field="documents",
        )
    return by_name


def select(
    kb: KnowledgeBase,
    refs: list[str],
    collection: str | None = None,
    *,
    max_documents: int = MAX_DOCUMENTS,
) -> list[DocumentText]:
    """The ingested documents ``refs`` name (or, with no refs, every one of ``collection``), in
    the order named, each with its chunks. ``NotFoundError`` (404, field ``documents`` or
    ``collection``) for a reference matching nothing or nothing to read; ``InvalidInputError``
    (400, field ``documents``) for more than ``max_documents`` documents or an ambiguous name."""
    found: dict[int, Document] = {}
    if refs:
        for ref in refs:
            docs = _find(kb, str(ref))
            if not docs:
                raise NotFoundError(
                    f"documents: no document {ref!r} in the library", field="documents"
                )
            for doc in docs:
                found.setdefault(doc.id, doc)
    else:
        with kb.db.session() as s:
            found = {d.id: d for d in catalogue.documents_in(s, collection)}
        if not found:
            where = f"collection {collection!r}" if collection else "the library"
            raise NotFoundError(f"{where} holds no documents", field="collection")
    docs = [d for d in found.values() if d.status == DocumentStatus.INGESTED and d.chunk_count]
    if not docs:
        named = ", ".join(repr(d.path) for d in list(found.values())[:3])
        raise NotFoundError(
            f"documents: nothing to read in {named} (empty or failed)", field="documents"
        )
    if len(docs) > max_documents:
        raise InvalidInputError(
            f"documents: {len(docs)} documents is over the {max_documents} one request reads; "
            "name fewer or a smaller folder",
            field="documents",
        )
    out = []
    total = 0
    with kb.db.session() as s:
        for doc in docs:
            chunks = tuple(
                ChunkText(
                    c.id,
                    doc.id,
                    c.ordinal,
                    doc.path,
                    c.text,
                    dict(c.provenance or {}),
                    doc.file_type,
                )
                for c in catalogue.chunks_of(s, doc.id)
            )
            total += len(chunks)
            out.append(DocumentText(doc.id, doc.path, doc.sha256 or "", chunks))
    if total > MAX_CHUNKS:
        raise InvalidInputError(
            f"documents: {total} chunks is over the {MAX_CHUNKS} one request reads",
            field="documents",
        )
    return out
