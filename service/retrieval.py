"""Retrieval: dense and keyword search fused, filtered by collection, document and file type."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
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
    #: Other files holding the same text (merged by ``service.answering.passages``).
    copies: tuple[Passage, ...] = ()

    @property
    def label(self) -> str:
        """``name, page 3`` / ``name, slide 2`` / ``name, sheet S, rows 4-9`` / ``name, 0:00–0:11``
        (audio) / ``name, page 1, box (30, 84)–(623, 364)`` (OCR), for prompts and citations."""
        name = Path(self.path).name
        carrier, sep, _ = self.path.partition("#attachment/")
        if sep:  # a file carried by another: name both
            name = f"{name} in {Path(carrier).name}"
        where = describe(self.provenance)
        own = f"{name}, {where}" if where else name
        return "; ".join([own, *(c.label for c in self.copies)])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``copies`` lists the other files holding the same text."""
        data = asdict(self)
        data["copies"] = [c.as_dict() for c in self.copies]
        return {**data, "name": Path(self.path).name, "label": self.label}


@dataclass(frozen=True)
class Filters:
    """Which chunks a question may see: by collection, document and file type."""

    collection: str | None = None
    document_ids: tuple[int, ...] = ()
    file_types: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """True when anything is filtered."""
        return bool(self.collection or self.document_ids or self.file_types)

    def chroma_where(self) -> dict[str, Any] | None:
        """The same filter as a Chroma metadata ``where``."""
        terms: list[dict[str, Any]] = []
        if self.collection:
            terms.append({"collection": self.collection})
        if self.document_ids:
            terms.append({"document_id": {"$in": list(self.document_ids)}})
        if self.file_types:
            terms.append({"file_type": {"$in": list(self.file_types)}})
        if not terms:
            return None
        return terms[0] if len(terms) == 1 else {"$and": terms}


RRF_K = 60
METHODS = ("hybrid", "dense", "bm25")


def reciprocal_rank_fusion(rankings: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse ranked id lists: score = sum of 1 / (k + rank), best first (ties by first seen)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking, start=1):
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


class Reranker(Protocol):
    """An optional second stage that reorders the fused candidates (e.g. a cross-encoder).

    None is bundled: no cross-encoder model ships in a PyPI package that could be used here, so
    ``Retriever.reranker`` stays None unless one is configured in code.
    """

    def rerank(self, question: str, texts: list[str]) -> list[float]:
        """A relevance score per text (higher is better)."""
        ...


class Retriever:
    """Hybrid retrieval: dense (FAISS, or Chroma when filtering) and BM25, fused by reciprocal
    rank; texts, provenance and embeddings come from the catalogue.

    Every passage's ``score`` is its cosine similarity to the question, so thresholds mean the
    same whichever ranker found it. Passages below ``min_score`` or more than
    ``relative_margin`` below the best are dropped.
    """

    def __init__(self, kb: KnowledgeBase, embedder: Embedder) -> None:
        from core.bm25 import BM25Index

        self.kb = kb
        self.embedder = embedder
        self.backend = kb.settings.retrieval.dense_backend
        self.bm25 = BM25Index(kb.db)
        self.reranker: Reranker | None = None

    def _allowed(self, filters: Filters) -> set[int]:
        with self.kb.db.session() as s:
            q = select(Chunk.id).join(Document, Chunk.document_id == Document.id)
            if filters.collection:
                q = q.where(Document.collection == filters.collection)
            if filters.document_ids:
                q = q.where(Document.id.in_(filters.document_ids))
            if filters.file_types:
                q = q.where(Document.file_type.in_(filters.file_types))
            return set(s.scalars(q))

    def _dense(self, vector: Any, n: int, filters: Filters) -> list[int]:
        if filters.active:
            return [
                h.chunk_id
                for h in self.kb.stores["chroma"].query(vector, n, filters.chroma_where())
            ]
        store = self.kb.stores[self.backend]
        if isinstance(store, FaissStore):
            if self.kb.settings.shared_catalogue:
                # Other replicas write the catalogue: rebuild what changed from it.
                self.kb.refresh_local_stores()
            else:
                store.reload_if_changed()
        return [h.chunk_id for h in store.query(vector, n)]

    def retrieve(
        self,
        question: str,
        k: int | None = None,
        filters: Filters | None = None,
        method: str = "hybrid",
        cut: bool = True,
        min_score: float | None = None,
        relative_margin: float | None = None,
    ) -> list[Passage]:
        """The top ``k`` passages for a question, best first (``cut=False`` keeps every one)."""
        cfg = self.kb.settings.retrieval
        k = k or cfg.top_k
        filters = filters or Filters()
        pool = max(4 * k, 20)
        vector = self.embedder.embed([question])[0]
        rankings: list[list[int]] = []
        if method in ("hybrid", "dense"):
            rankings.append(self._dense(vector, pool, filters))
        if method in ("hybrid", "bm25"):
            allowed = self._allowed(filters) if filters.active else None
            rankings.append([h.chunk_id for h in self.bm25.search(question, pool, allowed)])
        fused = [cid for cid, _ in reciprocal_rank_fusion(rankings)][: max(k, pool)]
        if not fused:
            return []
        with self.kb.db.session() as s:
            rows = s.execute(
                select(Chunk, Document)
                .join(Document, Chunk.document_id == Document.id)
                .where(Chunk.id.in_(fused))
            ).all()
        by_id = {chunk.id: (chunk, doc) for chunk, doc in rows}
        scored = []
        for cid in fused:
            if cid not in by_id:
                continue  # a store ahead of the catalogue; repaired at next start
            chunk, doc = by_id[cid]
            cosine = float(np.frombuffer(chunk.embedding, dtype=np.float32) @ vector)
            scored.append((chunk, doc, cosine))
        if self.reranker is not None and scored:
            scores = self.reranker.rerank(question, [c.text for c, _, _ in scored])
            order = sorted(range(len(scored)), key=lambda i: -scores[i])
            scored = [scored[i] for i in order]
        scored = scored[:k]
        if cut and scored:
            best = max(c for _, _, c in scored)
            low = cfg.min_score if min_score is None else min_score
            margin = cfg.relative_margin if relative_margin is None else relative_margin
            floor = max(low, best - margin)
            scored = [item for item in scored if item[2] >= floor]
        return [
            Passage(
                number=i,
                chunk_id=chunk.id,
                document_id=doc.id,
                path=doc.path,
                file_type=doc.file_type,
                provenance=dict(chunk.provenance or {}),
                score=round(cosine, 4),
                text=chunk.text,
            )
            for i, (chunk, doc, cosine) in enumerate(scored, start=1)
        ]
