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
from typing import Any

import numpy as np

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


def build(faiss: Any, dimension: int, vectors: np.ndarray, ids: np.ndarray) -> Any:
    """A trained ``IndexIVFFlat`` (inner product) holding ``vectors`` under ``ids``.

    Cost: k-means on ``POINTS_PER_LIST * nlist`` vectors plus assigning every vector to its list
    (n x nlist inner products); measured in NOTES.md (issue 17).
    """
    nlist = default_nlist(len(ids))
    index = faiss.IndexIVFFlat(
        faiss.IndexFlatIP(dimension), dimension, nlist, faiss.METRIC_INNER_PRODUCT
    )
    index.cp.niter = TRAIN_ITERATIONS
    sample = min(len(ids), POINTS_PER_LIST * nlist)
    pick = np.random.default_rng(0).choice(len(ids), sample, replace=False)
    index.train(np.ascontiguousarray(vectors[np.sort(pick)], dtype=np.float32))
    for start in range(0, len(ids), 65536):  # bounded temporary memory while assigning
        end = start + 65536
        index.add_with_ids(np.ascontiguousarray(vectors[start:end]), ids[start:end])
    return index


def contents(faiss: Any, index: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) held by an IVFFlat index, read list by list (copies)."""
    lists = index.invlists
    ids: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    for number in range(index.nlist):
        size = lists.list_size(number)
        if size:
            ids.append(faiss.rev_swig_ptr(lists.get_ids(number), size).copy())
            codes = faiss.rev_swig_ptr(lists.get_codes(number), size * index.code_size)
            vectors.append(np.frombuffer(codes, dtype=np.float32).reshape(size, index.d).copy())
    if not ids:
        return np.empty(0, dtype=np.int64), np.empty((0, index.d), dtype=np.float32)
    return np.concatenate(ids), np.concatenate(vectors)


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
