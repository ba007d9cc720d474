"""The FAISS store turns approximate (IVF) past ``vectors.approximate_from``: recall against the
exact search, filters, removal, saving and loading, and where the switch happens (real FAISS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.faiss_kinds import clustered_queries, clustered_vectors
from core.filters import Filters
from core.settings import VectorSettings, load_settings
from core.vectorstores.base import open_store
from core.vectorstores.faiss_store import FaissStore

DIM = 384
SWITCH = 4000
#: The shipped default (``vectors.nprobe``).
NPROBE = VectorSettings().nprobe


def clustered(n: int, seed: int) -> np.ndarray:
    """Clustered like text embeddings (bench/faiss_kinds.py; same centres for any seed)."""
    if seed == 1:
        return clustered_vectors(2 * SWITCH + 5000, DIM)[:n]
    return clustered_queries(2 * SWITCH + 5000, n, DIM, seed=seed)


def meta(cid: int) -> dict[str, object]:
    return {"document_id": cid // 10, "collection": ("a", "b", "c")[cid % 3], "file_type": "text"}


def filled(path: Path, n: int, approximate_from: int = SWITCH) -> tuple[FaissStore, np.ndarray]:
    store = FaissStore(path, DIM, approximate_from=approximate_from, nprobe=NPROBE)
    vectors = clustered(n, seed=1)
    ids = list(range(1, n + 1))
    for start in range(0, n, 1000):
        part = ids[start : start + 1000]
        store.add(part, vectors[start : start + 1000], [meta(i) for i in part])
    return store, vectors


def exact_top(
    vectors: np.ndarray, query: np.ndarray, k: int, keep: np.ndarray | None = None
) -> list[int]:
    scores = vectors @ query
    if keep is not None:
        scores = np.where(keep, scores, -np.inf)
    return [int(i) + 1 for i in np.argsort(-scores)[:k]]


def test_the_switch_happens_at_the_setting_when_saved_and_loads_back_as_ivf(tmp_path: Path) -> None:
    path = tmp_path / "faiss.index"
    store, _ = filled(path, SWITCH - 1)
    store.persist()
    assert store.kind == "flat"
    store.add([SWITCH], clustered(1, seed=5), [meta(SWITCH)])
    assert store.kind == "flat"  # the kind is chosen when saved, not on every add
    store.persist()
    assert store.kind == "ivf" and store.ids() == set(range(1, SWITCH + 1))
    mtime = path.stat().st_mtime_ns
    again = FaissStore(path, DIM, approximate_from=SWITCH)
    assert again.kind == "ivf" and again.ids() == store.ids()
    query = clustered(1, seed=7)[0]
    assert again.query(query, 10) == store.query(query, 10)
    again.persist()  # in step: nothing rewritten
    assert path.stat().st_mtime_ns == mtime


def test_ivf_recall_at_10_against_flat_is_at_least_098(tmp_path: Path) -> None:
    """At the shipped nprobe (8,000 vectors: 128 lists)."""
    store, vectors = filled(tmp_path / "faiss.index", 2 * SWITCH)
    store.persist()
    assert store.kind == "ivf"
    queries = clustered(200, seed=3)
    found = [[h.chunk_id for h in store.query(q, 10)] for q in queries]
    truth = [exact_top(vectors, q, 10) for q in queries]
    recall = np.mean([len(set(f) & set(t)) / 10 for f, t in zip(found, truth, strict=True)])
    assert recall >= 0.98, recall


def test_filters_and_removal_work_on_the_ivf_index(tmp_path: Path) -> None:
    n = 2 * SWITCH
    store, vectors = filled(tmp_path / "faiss.index", n)
    store.persist()
    assert store.kind == "ivf"
    ids = np.arange(1, n + 1)
    query = clustered(1, seed=11)[0]
    # one document (10 of 8,000 chunks): every list is probed, so the answer is exact
    one_doc = store.query(query, 5, Filters(document_ids=(42,)))
    assert [h.chunk_id for h in one_doc] == exact_top(vectors, query, 5, ids // 10 == 42)
    in_b = store.query(query, 10, Filters(collection="b"))
    assert len(in_b) == 10 and all(h.chunk_id % 3 == 1 for h in in_b)
    assert store.query(query, 10, Filters(file_types=("pdf",))) == []
    best = [h.chunk_id for h in store.query(query, 10)]
    store.delete(best[:3])
    assert not set(best[:3]) & store.ids()
    assert not set(best[:3]) & {h.chunk_id for h in store.query(query, 10)}
    store.add([best[0]], vectors[best[0] - 1 : best[0]], [meta(best[0])])  # replaced, not doubled
    store.add([best[0]], vectors[best[0] - 1 : best[0]], [meta(best[0])])
    assert [h.chunk_id for h in store.query(query, 10)].count(best[0]) == 1


def test_grown_ivf_is_retrained_and_shrunk_ivf_turns_flat(tmp_path: Path) -> None:
    store, _ = filled(tmp_path / "faiss.index", SWITCH)
    store.persist()
    lists = store._index.nlist
    more = clustered(5000, seed=2)
    new = list(range(SWITCH + 1, SWITCH + 5001))
    store.add(new, more, [meta(i) for i in new])
    store.persist()
    assert store.kind == "ivf" and store._index.nlist >= 2 * lists
    store.delete(list(range(1, SWITCH + 5001 - SWITCH // 2 + 1)))
    store.persist()
    assert store.kind == "flat" and len(store.ids()) == SWITCH // 2 - 1


@pytest.mark.parametrize("approximate_from", [0, 1])
def test_the_setting_reaches_the_store(tmp_path: Path, approximate_from: int) -> None:
    settings = load_settings(
        data_dir=tmp_path, vectors={"approximate_from": approximate_from, "nprobe": 7}
    )
    store = open_store("faiss", settings, DIM)
    assert isinstance(store, FaissStore) and store.nprobe == 7
    store.add([1, 2], clustered(2, seed=4), [meta(1), meta(2)])
    store.persist()
    assert store.kind == ("ivf" if approximate_from else "flat")
    assert store.ids() == {1, 2}
