"""Chroma as the persisted vector store (embedded directory); no default embedding function."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from core.types import Hit
from core.vectorstores.base import normalise, register_store

if TYPE_CHECKING:
    from core.settings import HearthSettings

COLLECTION = "hearth_chunks"
BATCH = 1000


class ChromaStore:
    """A persistent Chroma collection; Hearth always passes the embeddings itself."""

    name = "chroma"

    def __init__(self, path: str) -> None:
        import chromadb
        from chromadb.config import Settings

        self._client = chromadb.PersistentClient(
            path=path, settings=Settings(anonymized_telemetry=False, allow_reset=False)
        )
        # embedding_function=None on get and create alike, or Chroma falls back to its default
        # model, which it would try to download.
        self._collection = self._client.get_or_create_collection(
            COLLECTION, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )

    def add(self, ids: list[int], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
        """Upsert vectors with flat metadata (document id, collection, file type)."""
        for start in range(0, len(ids), BATCH):
            end = start + BATCH
            self._collection.upsert(
                ids=[str(i) for i in ids[start:end]],
                embeddings=np.asarray(vectors[start:end], dtype=np.float32),
                metadatas=[dict(m) for m in metadatas[start:end]] or None,
            )

    def delete(self, ids: list[int]) -> None:
        """Delete ids; unknown ids are ignored."""
        for start in range(0, len(ids), BATCH):
            self._collection.delete(ids=[str(i) for i in ids[start : start + BATCH]])

    def ids(self) -> set[int]:
        """Every stored id."""
        out: set[int] = set()
        offset = 0
        while True:
            page = self._collection.get(include=[], limit=10_000, offset=offset)
            got = page["ids"]
            out.update(int(i) for i in got)
            if len(got) < 10_000:
                return out
            offset += len(got)

    def query(self, vector: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[Hit]:
        """Nearest ids by cosine similarity (1 - cosine distance)."""
        count = self._collection.count()
        if count == 0:
            return []
        res = self._collection.query(
            query_embeddings=normalise(vector),
            n_results=min(k, count),
            where=where or None,
            include=["distances"],
        )
        ids = res["ids"][0]
        dists = (res.get("distances") or [[0.0] * len(ids)])[0]
        return [Hit(int(i), 1.0 - float(d)) for i, d in zip(ids, dists, strict=True)]

    def persist(self) -> None:
        """Chroma persists on every write."""


@register_store("chroma")
def _open(settings: HearthSettings, dimension: int) -> ChromaStore:
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    return ChromaStore(str(settings.chroma_dir))
