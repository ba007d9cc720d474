"""FAISS index kinds at library scale: flat vs IVF (flat / SQ8 lists) vs HNSW, measured.

Vectors are drawn at random but CLUSTERED like sentence embeddings (384-d, unit length, inner
product): each point is a cluster centre plus noise, cosine ~0.6 to its centre, so a question's
nearest neighbours sit in a few regions as with MiniLM; queries are fresh points of the same
clusters. Per kind it prints build time (training + adding), query time (one query at a time,
as Hearth asks), recall@10 against the exact (flat) result, removal of 1% of the ids, and the
index's size. This chose the approximate kind and its parameters (core/vectorstores/ivf.py).

    .venv/bin/python bench/faiss_kinds.py [--sizes 100000,1000000] [--queries 200] [--hnsw-max N]
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

DIM = 384
#: Points' spread around their sub-topic (noise of this norm added to a unit centre).
SPREAD = 1.5


def clustered_vectors(n: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    """``n`` unit float32 vectors drawn around the sub-topics of :func:`_subtopics`.

    Two levels, as in a library: topics (one per 1,000 vectors), sub-topics around them (one
    per 20) and points around those. A point's nearest neighbour has cosine ~0.36 and its tenth
    ~0.31 (MiniLM sentences of squad_dev: ~0.57 and ~0.45); with ``SPREAD`` 2.0 the tenth
    neighbour (~0.22) is no closer than the best of 100,000 unrelated vectors (~4.3 sigma of
    1/sqrt(384)), which no index can find but by scanning everything."""
    rng = np.random.default_rng(seed)
    subs = _subtopics(n, dim)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        out[start : start + m] = _around(subs[rng.integers(0, len(subs), m)], SPREAD, rng)
    return out


def clustered_batches(n: int, batch: int, dim: int = DIM, seed: int = 0) -> Iterator[np.ndarray]:
    """:func:`clustered_vectors`'s distribution in blocks of ``batch`` (bounded memory)."""
    rng = np.random.default_rng(seed)
    subs = _subtopics(n, dim)
    for start in range(0, n, batch):
        m = min(batch, n - start)
        yield _around(subs[rng.integers(0, len(subs), m)], SPREAD, rng)


def clustered_queries(n: int, queries: int, dim: int = DIM, seed: int = 1) -> np.ndarray:
    """Fresh points from the sub-topics of ``clustered_vectors(n, dim)``."""
    rng = np.random.default_rng(seed)
    subs = _subtopics(n, dim)
    return _around(subs[rng.integers(0, len(subs), queries)], SPREAD, rng)


def _subtopics(n: int, dim: int) -> np.ndarray:
    rng = np.random.default_rng(12345)
    topics = _unit(rng.standard_normal((max(1, n // 1000), dim), dtype=np.float32))
    return _around(topics[rng.integers(0, len(topics), max(1, n // 20))], 1.0, rng)


def _around(centres: np.ndarray, spread: float, rng: np.random.Generator) -> np.ndarray:
    noise = _unit(rng.standard_normal(centres.shape, dtype=np.float32))
    return np.ascontiguousarray(_unit(centres + spread * noise), dtype=np.float32)


def _unit(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean share of the true top-k found (rows of ids)."""
    k = truth.shape[1]
    return float(np.mean([len(set(f) & set(t)) / k for f, t in zip(found, truth, strict=True)]))


def one_by_one(
    index: Any, q: np.ndarray, k: int = 10, params: Any = None, threads: int = 1
) -> tuple[np.ndarray, float]:
    """Search each query alone (as Hearth does) on ``threads`` OpenMP threads; returns ids and
    mean ms per query."""
    faiss: Any = importlib.import_module("faiss")

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(threads)
    out = np.empty((len(q), k), dtype=np.int64)
    t = time.perf_counter()
    for i in range(len(q)):
        _, ids = index.search(q[i : i + 1], k, params=params)
        out[i] = ids[0]
    faiss.omp_set_num_threads(before)
    return out, 1000 * (time.perf_counter() - t) / len(q)


def measure(n: int, queries: int, hnsw_max: int) -> list[dict[str, Any]]:
    faiss: Any = importlib.import_module("faiss")

    from core.vectorstores import ivf

    xb = clustered_vectors(n)
    xq = clustered_queries(n, queries)
    ids = np.arange(1, n + 1, dtype=np.int64)
    rows: list[dict[str, Any]] = []

    t = time.perf_counter()
    flat = faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
    flat.add_with_ids(xb, ids)
    build = time.perf_counter() - t
    truth, ms = one_by_one(flat, xq)
    _, ms_all = one_by_one(flat, xq, threads=faiss.omp_get_max_threads())
    rows.append(
        {
            "kind": f"flat ({faiss.omp_get_max_threads()} threads)",
            "n": n,
            "build_s": build,
            "ms": ms_all,
            "recall10": 1.0,
            "mib": _mib(faiss, flat),
        }
    )
    rows.append(
        _removal(
            faiss,
            flat,
            ids,
            {
                "kind": "flat",
                "n": n,
                "build_s": build,
                "ms": ms,
                "recall10": 1.0,
                "mib": _mib(faiss, flat),
            },
        )
    )

    nlist = ivf.default_nlist(n)
    for kind in ("ivf-flat", "ivf-sq8"):
        t = time.perf_counter()
        if kind == "ivf-flat":  # Hearth's own build (core/vectorstores/ivf.py)
            index = ivf.build(faiss, DIM, xb, ids)
        else:  # the same lists and training, codes of one byte a dimension
            index = faiss.IndexIVFScalarQuantizer(
                faiss.IndexFlatIP(DIM),
                DIM,
                nlist,
                faiss.ScalarQuantizer.QT_8bit,
                faiss.METRIC_INNER_PRODUCT,
            )
            index.cp.niter = ivf.TRAIN_ITERATIONS
            pick = np.random.default_rng(0).choice(n, min(n, ivf.POINTS_PER_LIST * nlist), False)
            index.train(xb[np.sort(pick)])
            index.add_with_ids(xb, ids)
        build = time.perf_counter() - t
        for nprobe in (16, 32, 64, 128):
            found, ms = one_by_one(index, xq, params=faiss.SearchParametersIVF(nprobe=nprobe))
            rows.append(
                {
                    "kind": kind,
                    "n": n,
                    "nlist": nlist,
                    "nprobe": nprobe,
                    "build_s": build,
                    "ms": ms,
                    "recall10": recall(found, truth),
                    "mib": _mib(faiss, index),
                }
            )
        _removal(faiss, index, ids, rows[-1])

    if n <= hnsw_max:
        index = faiss.IndexHNSWFlat(DIM, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 40
        t = time.perf_counter()
        index.add(xb)
        build = time.perf_counter() - t
        for ef in (32, 64, 128):
            found, ms = one_by_one(index, xq, params=faiss.SearchParametersHNSW(efSearch=ef))
            rows.append(
                {
                    "kind": "hnsw32",
                    "n": n,
                    "efSearch": ef,
                    "build_s": build,
                    "ms": ms,
                    "recall10": recall(found + 1, truth),
                    "mib": _mib(faiss, index),
                    "remove_ms": "none (no remove_ids)",
                }
            )
    return rows


def _removal(faiss: Any, index: Any, ids: np.ndarray, row: dict[str, Any]) -> dict[str, Any]:
    gone = ids[::100]
    t = time.perf_counter()
    index.remove_ids(gone)
    row["remove_ms"] = round(1000 * (time.perf_counter() - t), 1)
    return row


def _mib(faiss: Any, index: Any) -> float:
    return len(faiss.serialize_index(index)) / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--hnsw-max", type=int, default=100_000, help="Skip HNSW above this size.")
    args = ap.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        rows = measure(n, args.queries, args.hnsw_max)
        load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        print(f"\n# {n:,} clustered random vectors, {args.queries} queries ({load})\n")
        print("| kind | params | build s | ms/query | recall@10 | remove 1% ms | MiB |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            params = ", ".join(f"{k}={r[k]}" for k in ("nlist", "nprobe", "efSearch") if k in r)
            print(
                f"| {r['kind']} | {params} | {r['build_s']:.1f} | {r['ms']:.2f} "
                f"| {r['recall10']:.4f} | {r.get('remove_ms', '')} | {r['mib']:.0f} |"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
