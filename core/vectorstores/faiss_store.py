"""FAISS as the fast in-memory dense index, saved to one file under the data directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.filters import Filters
from core.types import Hit
from core.vectorstores.base import normalise, register_store
from core.vectorstores.metadata import FilterMetadata

if TYPE_CHECKING:
    from core.settings import HearthSettings


class FaissStore:
    """An exact inner-product index (``IndexIDMap2`` over ``IndexFlatIP``) keyed by chunk id.

    Changes live in memory until :meth:`persist` writes the file atomically; a reader picks up a
    newer file written by another process through :meth:`reload_if_changed`. Each id's filter
    metadata is kept beside it (``<index>.meta.npz``); an id without metadata (a file from
    before filters lived here) is dropped at load, so the start-up repair restores it.
    """

    name = "faiss"

    def __init__(self, path: Path, dimension: int) -> None:
        import faiss

        self._faiss: Any = faiss
        self.path = path
        self.dimension = dimension
        self._lock = threading.RLock()
        self._mtime = 0.0
        self._dirty = False
        self.meta_path = path.with_name(path.name + ".meta.npz")
        self._meta = FilterMetadata()
        self._index: Any = self._load_or_new()

    def _new(self) -> Any:
        return self._faiss.IndexIDMap2(self._faiss.IndexFlatIP(self.dimension))

    def _load_or_new(self) -> Any:
        self._meta = FilterMetadata()
        if self.path.exists():
            index = self._faiss.read_index(str(self.path))
            self._mtime = self.path.stat().st_mtime
            if index.d == self.dimension:
                self._meta = FilterMetadata.load(self.meta_path)
                held = self._faiss.vector_to_array(index.id_map)
                bare = held[~np.isin(held, np.fromiter(self._meta.rows, dtype=np.int64))]
                if len(bare):
                    index.remove_ids(bare)
                    self._dirty = True
                self._meta.drop(list(set(self._meta.rows) - set(held.tolist())))
                return index
        return self._new()

    def refresh(self) -> None:
        """:meth:`reload_if_changed`."""
        self.reload_if_changed()

    def reload_if_changed(self) -> None:
        """Re-read the index file if another process saved a newer one."""
        with self._lock:
            if self._dirty or not self.path.exists():
                return
            if self.path.stat().st_mtime != self._mtime:
                self._index = self._load_or_new()

    def add(self, ids: list[int], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
        """Add (or replace) vectors under ``ids``."""
        if not ids:
            return
        with self._lock:
            arr = np.asarray(ids, dtype=np.int64)
            self._index.remove_ids(arr)
            self._index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), arr)
            self._meta.set(ids, metadatas)
            self._dirty = True

    def delete(self, ids: list[int]) -> None:
        """Remove ids; unknown ones are ignored."""
        if not ids:
            return
        with self._lock:
            self._index.remove_ids(np.asarray(ids, dtype=np.int64))
            self._meta.drop(ids)
            self._dirty = True

    def ids(self) -> set[int]:
        """Every id in the index."""
        with self._lock:
            return {int(i) for i in self._faiss.vector_to_array(self._index.id_map)}

    def query(self, vector: np.ndarray, k: int, filters: Filters | None = None) -> list[Hit]:
        """Exact top-k by inner product (= cosine for unit vectors); ``filters`` become an id
        selector searched inside FAISS (``faiss.SearchParameters(sel=IDSelectorBatch)``)."""
        with self._lock:
            if self._index.ntotal == 0:
                return []
            params = None
            if filters is not None and filters.active:
                allowed = self._meta.matching(filters)
                if not len(allowed):
                    return []
                params = self._faiss.SearchParameters(
                    sel=self._faiss.IDSelectorBatch(len(allowed), self._faiss.swig_ptr(allowed))
                )
            scores, ids = self._index.search(
                normalise(vector), min(k, self._index.ntotal), params=params
            )
        return [Hit(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def persist(self) -> None:
        """Write the index to a temporary file and rename it over the old one."""
        with self._lock:
            if not self._dirty and self.path.exists():
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".tmp{os.getpid()}")
            self._faiss.write_index(self._index, str(tmp))
            with tmp.open("rb") as fh:
                os.fsync(fh.fileno())
            self._meta.save(self.meta_path)
            os.replace(tmp, self.path)
            self._mtime = self.path.stat().st_mtime
            self._dirty = False


#: Resident bytes per id of the filter metadata (a dict entry of a 3-tuple, measured ~250).
META_BYTES_PER_ID = 300


def resident_estimate(settings: HearthSettings) -> int:
    """Bytes the FAISS index of ``settings`` keeps in RAM once loaded: its file (a flat index
    is its vectors and ids, read whole) plus the filter metadata per id; 0 without one."""
    if not settings.retrieval.faiss or not settings.faiss_path.exists():
        return 0
    size = settings.faiss_path.stat().st_size
    meta = settings.faiss_path.with_name(settings.faiss_path.name + ".meta.npz")
    try:
        with np.load(meta, allow_pickle=False) as data:
            count = len(data["ids"])
    except (OSError, ValueError, KeyError):
        count = 0
    return size + META_BYTES_PER_ID * count


@register_store("faiss")
def _open(settings: HearthSettings, dimension: int) -> FaissStore:
    return FaissStore(settings.faiss_path, dimension)
