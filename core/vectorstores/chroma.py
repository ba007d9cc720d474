"""Chroma as the persisted vector store, embedded (a directory) or a Chroma server (HTTP).

Hearth always passes its own embeddings: Chroma's default embedding function is never used (it
would download a model), and telemetry is off for both clients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from core.filters import Filters
from core.types import Hit
from core.vectorstores.base import normalise

if TYPE_CHECKING:
    from core.settings import HearthSettings

COLLECTION = "hearth_chunks"
BATCH = 1000
#: The files of an HNSW segment Chroma reads whole into RAM when it loads a collection.
HNSW_FILES = ("data_level0.bin", "link_lists.bin", "length.bin", "header.bin")
#: RAM of an HNSW segment's id maps (and what else loading it brings) per byte of their pickle:
#: at 1,000,686 ids loading took 1,926 MiB, 316 MiB more than the HNSW files (pickle 30 MiB).
ID_MAP_RATIO = 10.5
#: The embedded client itself (its runtime and caches): 16 MiB at both 4,000 and 1M ids.
CLIENT_BYTES = 20 << 20


class ChromaStore:
    """A persistent Chroma collection; Hearth always passes the embeddings itself."""

    name = "chroma"

    def __init__(self, client: Any, collection: str = COLLECTION) -> None:
        self._client = client
        # embedding_function=None on get and create alike, or Chroma falls back to its default
        # model, which it would try to download.
        self._collection = client.get_or_create_collection(
            collection, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )

    @classmethod
    def embedded(cls, path: str, collection: str = COLLECTION) -> ChromaStore:
        """A store on a persistent Chroma directory in this process."""
        import chromadb

        return cls(chromadb.PersistentClient(path=path, settings=client_settings()), collection)

    @classmethod
    def server(cls, url: str, collection: str = COLLECTION) -> ChromaStore:
        """A store on a Chroma server (``chroma run``), shared by every replica."""
        import chromadb

        from core.errors import HearthError

        parts = urlsplit(url)
        try:
            client = chromadb.HttpClient(
                host=parts.hostname or "127.0.0.1",
                port=parts.port or (443 if parts.scheme == "https" else 8000),
                ssl=parts.scheme == "https",
                settings=client_settings(),
            )
            return cls(client, collection)
        except Exception as exc:  # chromadb raises plain Exception/ValueError when unreachable
            raise HearthError(f"cannot reach the Chroma server at {url}: {exc}") from exc

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

    def count(self) -> int:
        """How many vectors the collection holds."""
        return int(self._collection.count())

    def ids(self) -> set[int]:
        """Every stored id: one call (1,000,661 ids in 1.6 s here, where pages of 10,000 took
        0.34 s each, 34 s in all); in pages when a server returns fewer than it holds."""
        every = self._collection.get(include=[])["ids"]
        if len(every) >= self._collection.count():
            return {int(i) for i in every}
        out: set[int] = set()
        offset = 0
        while True:
            page = self._collection.get(include=[], limit=10_000, offset=offset)
            got = page["ids"]
            out.update(int(i) for i in got)
            if len(got) < 10_000:
                return out
            offset += len(got)

    def query(self, vector: np.ndarray, k: int, filters: Filters | None = None) -> list[Hit]:
        """Nearest ids by cosine similarity (1 - cosine distance), filtered by Chroma itself."""
        count = self._collection.count()
        if count == 0:
            return []
        res = self._collection.query(
            query_embeddings=normalise(vector),
            n_results=min(k, count),
            where=chroma_where(filters),
            include=["distances"],
        )
        ids = res["ids"][0]
        dists = (res.get("distances") or [[0.0] * len(ids)])[0]
        return [Hit(int(i), 1.0 - float(d)) for i, d in zip(ids, dists, strict=True)]

    def persist(self) -> None:
        """Chroma persists on every write."""

    def refresh(self) -> None:
        """Chroma reads its current state on every query."""


def chroma_where(filters: Filters | None) -> dict[str, Any] | None:
    """The filter as a Chroma metadata ``where`` (None when nothing is filtered)."""
    if filters is None:
        return None
    terms: list[dict[str, Any]] = []
    if filters.collection:
        terms.append({"collection": filters.collection})
    if filters.document_ids:
        terms.append({"document_id": {"$in": list(filters.document_ids)}})
    if filters.file_types:
        terms.append({"file_type": {"$in": list(filters.file_types)}})
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else {"$and": terms}


def client_settings() -> Any:
    """Chroma client settings: no telemetry, no reset."""
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


def open_embedded(settings: HearthSettings, dimension: int) -> ChromaStore:
    """The embedded Chroma directory of ``settings`` (made if missing)."""
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    return ChromaStore.embedded(str(settings.chroma_dir), settings.chroma.collection)


def resident_estimate(settings: HearthSettings) -> int:
    """Bytes an embedded Chroma keeps in RAM once its collection is loaded: every HNSW segment's
    vectors and links (the files it reads whole), its id maps (``ID_MAP_RATIO`` times their
    pickle) and the client (``CLIENT_BYTES``); 0 before anything was stored. A Chroma server
    holds them in its own process."""
    total = 0
    if not settings.chroma_dir.is_dir():
        return 0
    for segment in settings.chroma_dir.iterdir():
        if not segment.is_dir():
            continue
        for name in HNSW_FILES:
            path = segment / name
            if path.exists():
                total += path.stat().st_size
        pickle = segment / "index_metadata.pickle"
        if pickle.exists():
            total += int(ID_MAP_RATIO * pickle.stat().st_size)
    return total + CLIENT_BYTES if total else 0


def open_server(settings: HearthSettings, dimension: int) -> ChromaStore:
    """A client of the Chroma server at ``chroma.url`` (ValueError when it is not set)."""
    url = settings.chroma.url
    if not url:
        raise ValueError("chroma.mode is server but chroma.url is not set")
    return ChromaStore.server(url, settings.chroma.collection)
