"""The approximate FAISS index (IVF) and its parameters, chosen by measurement.

``IndexIVFFlat`` on inner product: vectors are kept whole (scores are exact for the lists that
are searched), ids are its own (``add_with_ids``/``remove_ids`` work without an id map), and a
search takes an ``IDSelector`` in ``SearchParametersIVF``, so filters stay inside FAISS. HNSW was
measured too and left out: it cannot remove ids, builds 5x slower and recalled less at the same
query time (``bench/faiss_kinds.py``; NOTES.md, issue 17).

Parameters: ``nlist`` about 2 * sqrt(n) lists (a power of two), trained by k-means on at most
40 vectors per list (10 iterations), searched with ``nprobe`` lists (setting
``vectors.nprobe``). A filter that keeps a share ``f`` of the vectors probes ``nprobe / f``
lists (all of them for a narrow filter), so a filtered question finds as many candidates as an
unfiltered one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import IO, Any

import numpy as np

from core.memsize import trim_heap

#: Retrain once the size calls for this many times the lists the index was trained with (the
#: list count follows sqrt(n), so about 4x the vectors it was trained on).
RETRAIN_FACTOR = 2
#: k-means sample per list and iterations (faiss warns below 39 per list).
POINTS_PER_LIST = 40
TRAIN_ITERATIONS = 10


def default_nlist(count: int) -> int:
    """Inverted lists for ``count`` vectors: about 2 * sqrt(count) (a power of two, at most
    65,536), fewer when k-means would get under ``POINTS_PER_LIST`` vectors a list."""
    target = 2 ** round(math.log2(2 * math.sqrt(max(count, 1))))
    return int(max(1, min(65536, target, count // POINTS_PER_LIST)))


def is_ivf(index: Any) -> bool:
    """True for an IVF index (as opposed to the exact ``IndexIDMap2`` over a flat index)."""
    return hasattr(index, "nlist")


def needs_retrain(index: Any) -> bool:
    """True when the IVF index has grown far past the size it was trained for."""
    return bool(default_nlist(index.ntotal) >= RETRAIN_FACTOR * index.nlist)


#: Vectors read, assigned and added at a time while an index is built (16,384 x 384 floats:
#: 24 MiB), so a build holds the index, the training sample and one slice.
SLICE = 16384
#: ``rows(start, end)``: the vectors ``start`` to ``end`` (float32, one row each) of a build.
Rows = Callable[[int, int], np.ndarray]


def build(faiss: Any, dimension: int, vectors: np.ndarray, ids: np.ndarray) -> Any:
    """A trained ``IndexIVFFlat`` (inner product) holding ``vectors`` under ``ids``
    (:func:`build_from` over the array).

    Cost: k-means on ``POINTS_PER_LIST * nlist`` vectors plus assigning every vector to its list
    (n x nlist inner products); measured in NOTES.md (issue 17).
    """
    return build_from(faiss, dimension, ids, lambda start, end: vectors[start:end])


def build_from(faiss: Any, dimension: int, ids: np.ndarray, rows: Rows) -> Any:
    """A trained ``IndexIVFFlat`` (inner product) holding ``len(ids)`` vectors read with
    ``rows`` (from a file, say) a slice at a time under ``ids``.

    Memory: the index at its final size and no more (every vector is assigned to its list
    first, then each list is allocated once at its length: lists grown entry by entry reserve
    up to twice what they hold), or the training sample (``POINTS_PER_LIST * nlist`` vectors)
    while k-means runs, plus one slice of ``SLICE`` vectors. The sample is the one
    :func:`build` always drew (``default_rng(0)``), so a build is the same from an array or a
    file.
    """
    n = len(ids)
    nlist = default_nlist(n)
    index = faiss.IndexIVFFlat(
        faiss.IndexFlatIP(dimension), dimension, nlist, faiss.METRIC_INNER_PRODUCT
    )
    index.cp.niter = TRAIN_ITERATIONS
    sample = min(n, POINTS_PER_LIST * nlist)
    pick = np.sort(np.random.default_rng(0).choice(n, sample, replace=False))
    index.train(_gather(rows, n, pick))
    lists = np.empty(n, dtype=np.int64)
    for start, end in _slices(n):
        lists[start:end] = index.quantizer.assign(_floats(rows(start, end)), 1).ravel()
    counts = np.bincount(lists, minlength=nlist)
    invlists = index.invlists
    for number in np.flatnonzero(counts).tolist():
        invlists.resize(number, int(counts[number]))  # its final length, allocated once
        invlists.resize(number, 0)  # the capacity stays
    for start, end in _slices(n):
        vectors = _floats(rows(start, end))
        part_ids = np.ascontiguousarray(ids[start:end], dtype=np.int64)
        part_lists = np.ascontiguousarray(lists[start:end])
        index.add_core(
            end - start,
            faiss.swig_ptr(vectors),
            faiss.swig_ptr(part_ids),
            faiss.swig_ptr(part_lists),
        )
    return index


#: Room an inverted list is given when an add outgrows it: its new length plus an eighth (at
#: least ``GROW_MIN`` entries), allocated at that size. Left to faiss, a list grows as a
#: ``std::vector`` does, to twice its length: 268k vectors added 2,048 at a time to lists
#: built for 131k held ~190 MiB more than their 393 MiB of vectors.
GROW_SHARE = 8
GROW_MIN = 8
#: An add whose reallocations freed this many bytes hands the heap's free pages back
#: (``malloc_trim``): glibc keeps the old lists' buffers, and with lists of 200-400 KiB they
#: add up between trims (110 MiB at 268k vectors trimmed every 16 adds).
TRIM_FROM = 8 << 20


def add(
    faiss: Any, index: Any, vectors: np.ndarray, ids: np.ndarray, room: np.ndarray | None
) -> np.ndarray:
    """Add ``vectors`` (float32, ``(n, d)``) under ``ids`` (int64) to an ``IndexIVFFlat``,
    each list that outgrows its room reallocated once at its new length plus an eighth; returns
    the room of every list after the add (int64, one per list), to pass to the next add.

    ``room``: what the previous add returned for this same index, or None for an index read
    from a file or built by :func:`build_from` (their lists are allocated at their lengths).
    Memory: the lists hold at most an eighth (``1 / GROW_SHARE``) more than their vectors plus
    ``GROW_MIN`` entries a list, where ``add_with_ids`` doubles a full list (up to twice as
    much); an add holds a copy of one list at a time besides.
    """
    if room is None or len(room) != index.nlist:
        held = index.invlists
        room = np.array([held.list_size(n) for n in range(index.nlist)], dtype=np.int64)
    n = len(ids)
    if not n:
        return room
    vectors = _floats(vectors)
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    lists = np.ascontiguousarray(index.quantizer.assign(vectors, 1).ravel(), dtype=np.int64)
    invlists = index.invlists
    counts = np.bincount(lists, minlength=index.nlist)
    sizes = {number: invlists.list_size(number) for number in np.flatnonzero(counts).tolist()}
    grow = [number for number, size in sizes.items() if size + counts[number] > room[number]]
    if grow:
        # One buffer for every list's entries while it moves (fresh arrays cost page faults).
        largest = max(sizes[number] for number in grow)
        ids_buf = np.empty(largest, dtype=np.int64)
        codes_buf = np.empty(largest * index.code_size, dtype=np.uint8)
        freed = 0
        for number in grow:
            size = sizes[number]
            need = size + int(counts[number])
            freed += int(room[number]) * (index.code_size + 8)
            room[number] = need + max(need // GROW_SHARE, GROW_MIN)
            _reallocate(faiss, invlists, number, size, int(room[number]), ids_buf, codes_buf)
        if freed >= TRIM_FROM:
            trim_heap()
    index.add_core(n, faiss.swig_ptr(vectors), faiss.swig_ptr(ids), faiss.swig_ptr(lists))
    return room


def _reallocate(
    faiss: Any,
    lists: Any,
    number: int,
    size: int,
    room: int,
    ids_buf: np.ndarray,
    codes_buf: np.ndarray,
) -> None:
    """Give list ``number`` (``size`` entries) a buffer of exactly ``room`` entries, its entries
    kept (copied through ``ids_buf`` and ``codes_buf`` meanwhile). A ``std::vector`` resized
    from empty allocates just what is asked and frees the old buffer; resized down, it keeps its
    buffer."""
    code_bytes = size * lists.code_size
    if size:
        ids_buf[:size] = faiss.rev_swig_ptr(lists.get_ids(number), size)
        codes_buf[:code_bytes] = faiss.rev_swig_ptr(lists.get_codes(number), code_bytes)
    lists.resize(number, 0)
    lists.resize(number, room)  # from empty: exactly ``room``, the old buffer freed
    lists.resize(number, 0)  # the capacity stays
    if size:
        lists.add_entries(number, size, faiss.swig_ptr(ids_buf), faiss.swig_ptr(codes_buf))


def _slices(n: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, SLICE):
        yield start, min(n, start + SLICE)


def _floats(vectors: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(vectors, dtype=np.float32)


def _gather(rows: Rows, n: int, pick: np.ndarray) -> np.ndarray:
    """The rows at the sorted positions ``pick``, read a slice at a time."""
    parts = []
    for start, end in _slices(n):
        lo, hi = np.searchsorted(pick, [start, end])
        if hi > lo:
            parts.append(_floats(rows(start, end))[pick[lo:hi] - start])
    return np.ascontiguousarray(np.concatenate(parts))


def spill(faiss: Any, index: Any, out: IO[bytes]) -> np.ndarray:
    """Write every vector of an IVFFlat index to ``out`` (float32 rows, list by list) and
    return their ids in the same order (int64); one list in memory at a time."""
    lists = index.invlists
    ids: list[np.ndarray] = []
    for number in range(index.nlist):
        size = lists.list_size(number)
        if size:
            ids.append(faiss.rev_swig_ptr(lists.get_ids(number), size).copy())
            out.write(faiss.rev_swig_ptr(lists.get_codes(number), size * index.code_size))
    return np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)


def held_ids(faiss: Any, index: Any) -> np.ndarray:
    """Every id an IVF index holds (int64)."""
    lists = index.invlists
    parts = [
        faiss.rev_swig_ptr(lists.get_ids(n), lists.list_size(n)).copy()
        for n in range(index.nlist)
        if lists.list_size(n)
    ]
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def search_params(faiss: Any, index: Any, nprobe: int, allowed: np.ndarray | None) -> Any:
    """``SearchParametersIVF``: ``nprobe`` lists, or for a filter keeping ``len(allowed)`` of the
    vectors, ``nprobe / share`` lists (at most all), with the ids as an ``IDSelectorBatch``."""
    if allowed is None:
        return faiss.SearchParametersIVF(nprobe=min(nprobe, index.nlist))
    share = max(len(allowed), 1) / max(index.ntotal, 1)
    probe = min(index.nlist, math.ceil(nprobe / share))
    selector = faiss.IDSelectorBatch(len(allowed), faiss.swig_ptr(allowed))
    params = faiss.SearchParametersIVF(sel=selector, nprobe=probe)
    params._keep = selector  # the parameters hold a raw pointer; keep the selector alive
    return params
