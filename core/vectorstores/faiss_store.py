"""FAISS as the fast in-memory dense index, saved to one file under the data directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.filters import Filters
from core.types import Hit
from core.vectorstores import ivf
from core.vectorstores.base import normalise
from core.vectorstores.metadata import FilterMetadata

if TYPE_CHECKING:
    from core.settings import HearthSettings


class FaissStore:
    """An inner-product index keyed by chunk id: exact (``IndexIDMap2`` over ``IndexFlatIP``)
    below ``approximate_from`` vectors, approximate (``IndexIVFFlat``, see
    :mod:`core.vectorstores.ivf`) from there on (``approximate_from=0``: always exact).

    The kind is chosen when the index is saved (:meth:`persist`, after a start-up repair and
    after each ingest batch): a flat index that reached ``approximate_from`` is rebuilt as IVF;
    an IVF index that grew about 4x past its training size is retrained; one that shrank below
    half of ``approximate_from`` becomes flat again. The saved file keeps its kind, so a start
    with the file in step rebuilds nothing.

    Changes live in memory until :meth:`persist` writes the file atomically; a reader picks up a
    newer file written by another process through :meth:`reload_if_changed`. Each id's filter
    metadata is kept beside it (``<index>.meta.npz``); an id without metadata (a file from
    before filters lived here) is dropped at load, so the start-up repair restores it.
    """

    name = "faiss"

    def __init__(
        self, path: Path, dimension: int, approximate_from: int = 0, nprobe: int = 64
    ) -> None:
        """``approximate_from``: vectors from which the index is IVF (0: never); ``nprobe``:
        lists an IVF search visits."""
        import faiss

        self._faiss: Any = faiss
        self.path = path
        self.dimension = dimension
        self.approximate_from = approximate_from
        self.nprobe = nprobe
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
                held = self._held(index)
                described = self._meta.ids()
                bare = held[~np.isin(held, described)]
                if len(bare):
                    index.remove_ids(bare)
                    self._dirty = True
                stale = described[~np.isin(described, held)]
                if len(stale):
                    self._meta.drop(stale.tolist())
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

    def _held(self, index: Any) -> np.ndarray:
        if ivf.is_ivf(index):
            return ivf.held_ids(self._faiss, index)
        return np.asarray(self._faiss.vector_to_array(index.id_map), dtype=np.int64)

    @property
    def kind(self) -> str:
        """``"flat"`` (exact) or ``"ivf"`` (approximate)."""
        return "ivf" if ivf.is_ivf(self._index) else "flat"

    def count(self) -> int:
        """How many vectors the index holds."""
        with self._lock:
            return int(self._index.ntotal)

    def ids(self) -> set[int]:
        """Every id in the index."""
        with self._lock:
            return set(self._held(self._index).tolist())

    def query(self, vector: np.ndarray, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top-k by inner product (= cosine for unit vectors), exact on a flat index, over
        ``nprobe`` lists on IVF; ``filters`` become an id selector searched inside FAISS
        (``IDSelectorBatch`` in the search parameters; IVF probes more lists for a narrow one)."""
        with self._lock:
            if self._index.ntotal == 0:
                return []
            allowed = None
            if filters is not None and filters.active:
                allowed = self._meta.matching(filters)
                if not len(allowed):
                    return []
            params: Any = None
            if ivf.is_ivf(self._index):
                params = ivf.search_params(self._faiss, self._index, self.nprobe, allowed)
            elif allowed is not None:
                params = self._faiss.SearchParameters(
                    sel=self._faiss.IDSelectorBatch(len(allowed), self._faiss.swig_ptr(allowed))
                )
            # One query is a small job: on shared cores two OpenMP threads only wait for each
            # other (100k flat: 26 ms on one thread, 88 ms on two, load average 6). The thread
            # count is per calling thread (libgomp) and put back after.
            threads = self._faiss.omp_get_max_threads()
            self._faiss.omp_set_num_threads(1)
            try:
                scores, ids = self._index.search(
                    normalise(vector), min(k, self._index.ntotal), params=params
                )
            finally:
                self._faiss.omp_set_num_threads(threads)
        return [Hit(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def persist(self) -> None:
        """Choose the index kind for its size (:meth:`fit_kind`), then write it to a temporary
        file and rename it over the old one."""
        with self._lock:
            if not self._dirty and self.path.exists():
                return
            self.fit_kind()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".tmp{os.getpid()}")
            self._faiss.write_index(self._index, str(tmp))
            with tmp.open("rb") as fh:
                os.fsync(fh.fileno())
            self._meta.save(self.meta_path)
            os.replace(tmp, self.path)
            self._mtime = self.path.stat().st_mtime
            self._dirty = False

    def fit_kind(self) -> bool:
        """Rebuild the index as the kind its size calls for; True when it did.

        Flat -> IVF at ``approximate_from`` vectors; IVF retrained once it outgrew its lists;
        IVF -> flat below half of ``approximate_from`` (or when it is 0). The rebuild holds
        every vector twice for a moment (the old index and a copy of its vectors).
        """
        with self._lock:
            index, n = self._index, self._index.ntotal
            want_ivf = bool(self.approximate_from) and (
                n >= self.approximate_from or (ivf.is_ivf(index) and 2 * n >= self.approximate_from)
            )
            if want_ivf == ivf.is_ivf(index) and not (want_ivf and ivf.needs_retrain(index)):
                return False
            if ivf.is_ivf(index):
                ids, vectors = ivf.contents(self._faiss, index)
            else:
                ids = self._held(index)
                vectors = index.index.reconstruct_n(0, n)
            if want_ivf:
                self._index = ivf.build(self._faiss, self.dimension, vectors, ids)
            else:
                self._index = self._new()
                if n:
                    self._index.add_with_ids(vectors, ids)
            self._dirty = True
            return True


#: Resident bytes per id of the filter metadata (a dict entry of a 3-tuple) and the loading: at
#: 1,000,686 ids loading took 1,820 MiB against a 1,477 MiB file (360 bytes an id), at 4,000
#: ids 400 bytes an id (tests/integration/test_index_memory_plan.py).
META_BYTES_PER_ID = 400


def resident_estimate(settings: HearthSettings) -> int:
    """Bytes the FAISS index of ``settings`` keeps in RAM once loaded: its file plus the filter
    metadata per id; 0 without one.

    Either kind is read whole and its file is what it holds: flat, 4 * dimension bytes a
    vector plus its id; IVF (``IndexIVFFlat``), the same plus the centroids (nlist x dimension
    floats, ~3 MiB at a million vectors). Not counted: the moment a save changes the kind or
    retrains (:meth:`FaissStore.fit_kind` holds the vectors twice, briefly).
    """
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


def open_faiss(settings: HearthSettings, dimension: int) -> FaissStore:
    """The FAISS index file of ``settings`` (empty when there is none yet)."""
    return FaissStore(
        settings.faiss_path,
        dimension,
        approximate_from=settings.vectors.approximate_from,
        nprobe=settings.vectors.nprobe,
    )
