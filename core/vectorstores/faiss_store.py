"""FAISS as the fast in-memory dense index, saved to one file under the data directory."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from core.filters import Filters
from core.types import Hit
from core.vectorstores import ivf
from core.vectorstores.base import normalise
from core.vectorstores.metadata import FilterMetadata

if TYPE_CHECKING:
    from core.settings import HearthSettings


#: A flat index that an add takes to this many times ``approximate_from`` turns IVF at once: a
#: large document adds all its vectors before the save, and a flat index grows by copying (its
#: vector of codes doubles, the old one held until the copy ends; 268k vectors written alone:
#: peak 1,442 MiB past the start against a planned 498, with the save's rebuild).
GROWN_FLAT = 2


class FaissStore:
    """An inner-product index keyed by chunk id: exact (``IndexIDMap2`` over ``IndexFlatIP``)
    below ``approximate_from`` vectors, approximate (``IndexIVFFlat``, see
    :mod:`core.vectorstores.ivf`) from there on (``approximate_from=0``: always exact).

    The kind is chosen when the index is saved (:meth:`persist`, after a start-up repair and
    after each ingest batch): a flat index that reached ``approximate_from`` is rebuilt as IVF;
    an IVF index that grew about 4x past its training size is retrained; one that shrank below
    half of ``approximate_from`` becomes flat again. The saved file keeps its kind, so a start
    with the file in step rebuilds nothing. An add does it at once when a save is far off: a
    flat index at ``GROWN_FLAT`` times ``approximate_from`` or an IVF index due for retraining
    (one large document adds all its vectors before the save). A rebuild holds one copy of the
    vectors in memory (:meth:`fit_kind`).

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
        #: Entries each IVF list can take before it is reallocated (``ivf.add``); None when
        #: the index was just read or built (its lists are allocated at their lengths).
        self._room: np.ndarray | None = None
        self._index: Any = self._load_or_new()

    def _new(self) -> Any:
        return self._faiss.IndexIDMap2(self._faiss.IndexFlatIP(self.dimension))

    def _load_or_new(self) -> Any:
        self._meta = FilterMetadata()
        self._room = None
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
            if ivf.is_ivf(self._index):  # its lists grown by an eighth, not doubled
                self._room = ivf.add(self._faiss, self._index, vectors, arr, self._room)
            else:
                self._index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), arr)
            self._meta.set(ids, metadatas)
            self._dirty = True
            if self._outgrown():
                self.fit_kind()

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
        IVF -> flat below half of ``approximate_from`` (or when it is 0). The rebuild holds one
        copy of the vectors in memory (:meth:`_rebuild`).
        """
        with self._lock:
            n = self._index.ntotal
            is_ivf = ivf.is_ivf(self._index)
            want_ivf = bool(self.approximate_from) and (
                n >= self.approximate_from or (is_ivf and 2 * n >= self.approximate_from)
            )
            if want_ivf == is_ivf and not (want_ivf and ivf.needs_retrain(self._index)):
                return False
            self._rebuild(want_ivf)
            self._dirty = True
            return True

    def _outgrown(self) -> bool:
        """A flat index at ``GROWN_FLAT`` times ``approximate_from``, or an IVF index due for
        retraining: rebuilt by :meth:`add` itself rather than at the next save."""
        if not self.approximate_from:
            return False
        if ivf.is_ivf(self._index):
            return ivf.needs_retrain(self._index)
        return bool(self._index.ntotal >= GROWN_FLAT * self.approximate_from)

    def _rebuild(self, want_ivf: bool) -> None:
        """Rebuild as IVF (trained for the size) or flat with one copy of the vectors in
        memory: they are written to an unlinked temporary file beside the index, the old index
        is freed, and the new one is read from the file a slice at a time (``ivf.SLICE``).
        Building from the index in memory held the vectors three times (the old index, a copy
        of its vectors and the new index: 1.2 GiB for 268k vectors of 384). On a failure the
        index is rebuilt flat from the file, so no vector is lost, and the error raised."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=self.path.parent, prefix=f"{self.path.name}.") as spill:
            ids = self._spill(spill)
            spill.flush()
            self._room = None
            self._index = self._new()  # the old index is freed here
            rows = _file_rows(spill.fileno(), self.dimension)
            try:
                if want_ivf:
                    self._index = ivf.build_from(self._faiss, self.dimension, ids, rows)
                else:
                    self._index = self._flat_from(ids, rows)
            except BaseException:
                self._index = self._flat_from(ids, rows)
                raise

    def _spill(self, out: IO[bytes]) -> np.ndarray:
        """Write every vector to ``out`` (float32 rows); their ids in the same order."""
        index = self._index
        if ivf.is_ivf(index):
            return ivf.spill(self._faiss, index, out)
        n = index.ntotal
        for start in range(0, n, ivf.SLICE):
            out.write(memoryview(index.index.reconstruct_n(start, min(ivf.SLICE, n - start))))
        return self._held(index)

    def _flat_from(self, ids: np.ndarray, rows: ivf.Rows) -> Any:
        index = self._new()
        for start in range(0, len(ids), ivf.SLICE):
            end = min(len(ids), start + ivf.SLICE)
            index.add_with_ids(np.ascontiguousarray(rows(start, end)), ids[start:end])
        return index


def _file_rows(fd: int, dimension: int) -> ivf.Rows:
    """``rows(start, end)`` of a file of float32 rows ``dimension`` wide (read, not mapped:
    the pages stay in the page cache, outside this process's RSS)."""
    width = 4 * dimension

    def rows(start: int, end: int) -> np.ndarray:
        raw = os.pread(fd, (end - start) * width, start * width)
        return np.frombuffer(raw, dtype=np.float32).reshape(end - start, dimension)

    return rows


#: Resident bytes per id of the filter metadata (a dict entry of a 3-tuple) and the loading: at
#: 1,000,686 ids loading took 1,820 MiB against a 1,477 MiB file (360 bytes an id), at 4,000
#: ids 400 bytes an id (tests/integration/test_index_memory_plan.py).
META_BYTES_PER_ID = 400


def resident_estimate(settings: HearthSettings) -> int:
    """Bytes the FAISS index of ``settings`` keeps in RAM once loaded: its file plus the filter
    metadata per id; 0 without one.

    Either kind is read whole and its file is what it holds: flat, 4 * dimension bytes a
    vector plus its id; IVF (``IndexIVFFlat``), the same plus the centroids (nlist x dimension
    floats, ~3 MiB at a million vectors). Not counted: while the kind changes or the index is
    retrained, one slice of vectors and the k-means sample (``ivf.build_from``); between
    rebuilds, the room an IVF list is given beyond its vectors when it grows, at most an eighth
    (``ivf.add``; 268k vectors written in 2,048s peaked 490 MiB past the start against this
    estimate's 498 MiB, the metadata's share being generous).
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
