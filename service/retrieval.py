"""Retrieval: embed the question, search the dense index, read the chunks from the catalogue."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from core.db.models import Chunk, Document
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from core.provenance import describe
from core.vectorstores.faiss_store import FaissStore


@dataclass(frozen=True)
class Passage:
    """A retrieved chunk as the model and the user see it, numbered from 1."""

    number: int
    chunk_id: int
    document_id: int
    path: str
    file_type: str
    provenance: dict[str, Any]
    score: float
    text: str

    @property
    def label(self) -> str:
        """``name, page 3`` / ``name, slide 2`` / ``name, sheet S, rows 4-9`` / ``name, 0:00–0:11``
        (audio) / ``name, page 1, box (30, 84)–(623, 364)`` (OCR), for prompts and citations."""
        name = Path(self.path).name
        carrier, sep, _ = self.path.partition("#attachment/")
        if sep:  # a file carried by another: name both
            name = f"{name} in {Path(carrier).name}"
        where = describe(self.provenance)
        return f"{name}, {where}" if where else name

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {**asdict(self), "name": Path(self.path).name, "label": self.label}


class Retriever:
    """Dense retrieval over the configured store, with texts and provenance from the catalogue."""

    def __init__(self, kb: KnowledgeBase, embedder: Embedder) -> None:
        self.kb = kb
        self.embedder = embedder
        self.backend = kb.settings.retrieval.dense_backend

    def retrieve(self, question: str, k: int | None = None) -> list[Passage]:
        """The top ``k`` passages for a question, best first."""
        k = k or self.kb.settings.retrieval.top_k
        store = self.kb.stores[self.backend]
        if isinstance(store, FaissStore):
            store.reload_if_changed()
        vector = self.embedder.embed([question])[0]
        hits = store.query(vector, k)
        if not hits:
            return []
        floor = hits[0].score - self.kb.settings.retrieval.relative_margin
        hits = [h for h in hits if h.score >= floor]
        with self.kb.db.session() as s:
            rows = s.execute(
                select(Chunk, Document)
                .join(Document, Chunk.document_id == Document.id)
                .where(Chunk.id.in_([h.chunk_id for h in hits]))
            ).all()
        by_id = {chunk.id: (chunk, doc) for chunk, doc in rows}
        passages: list[Passage] = []
        for hit in hits:
            if hit.chunk_id not in by_id:
                continue  # a store ahead of the catalogue; repaired at next start
            chunk, doc = by_id[hit.chunk_id]
            passages.append(
                Passage(
                    number=len(passages) + 1,
                    chunk_id=chunk.id,
                    document_id=doc.id,
                    path=doc.path,
                    file_type=doc.file_type,
                    provenance=dict(chunk.provenance or {}),
                    score=round(hit.score, 4),
                    text=chunk.text,
                )
            )
        return passages
