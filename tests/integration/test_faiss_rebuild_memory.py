"""The FAISS index changes kind holding one copy of its vectors (issue 28, item 5): ingesting a
200 MB text file peaked 1.5 GiB past the memory plan, most of it the save that turned the
268k-vector flat index into IVF with the old index, a copy of its vectors and the new index in
memory at once. Real FAISS; the peak is the kernel's high-water mark of this process, reset
before the step measured (``/proc/self/clear_refs``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from core.vectorstores.faiss_store import GROWN_FLAT, FaissStore

DIM = 384
SWITCH = 40_000
N = 100_000
META = {"document_id": 1, "collection": "default", "file_type": "text"}


def _status(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    assert match, field
    return int(match.group(1)) * 1024


def reset_peak() -> None:
    """Start a new high-water mark (VmHWM) at the current RSS."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError as exc:  # not Linux, or a kernel that refuses it
        pytest.skip(f"cannot reset the peak RSS: {exc}")


def unit_vectors(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def fill(store: FaissStore, n: int, start: int = 1) -> None:
    for first in range(0, n, 2048):
        count = min(2048, n - first)
        ids = list(range(start + first, start + first + count))
        store.add(ids, unit_vectors(count, start + first), [META] * count)


def test_a_save_that_turns_the_index_ivf_holds_one_copy_of_the_vectors(tmp_path: Path) -> None:
    store = FaissStore(tmp_path / "faiss.index", DIM, approximate_from=SWITCH)
    fill(store, int(1.5 * SWITCH))  # below GROWN_FLAT x SWITCH: still flat, turned IVF at the save
    assert store.kind == "flat"
    index_bytes = store.count() * DIM * 4
    probe = unit_vectors(2048, 1)[7]  # the vector stored under id 8 (the first batch)
    reset_peak()
    start = _status("VmRSS")
    store.persist()
    grew = _status("VmHWM") - start
    assert store.kind == "ivf" and store.count() == int(1.5 * SWITCH)
    # Before: the old index, a copy of its vectors and the new one (2x index_bytes more).
    assert grew < index_bytes, (grew, index_bytes)
    assert store.query(probe, 1)[0].chunk_id == 8
    again = FaissStore(tmp_path / "faiss.index", DIM, approximate_from=SWITCH)
    assert again.kind == "ivf" and again.ids() == set(range(1, int(1.5 * SWITCH) + 1))


def test_a_flat_index_grown_far_past_the_switch_turns_ivf_on_the_add(tmp_path: Path) -> None:
    """One large document adds every vector before the save: the flat index is rebuilt on the
    add that takes it to GROWN_FLAT times the switch, and keeps growing as IVF (retrained on
    the add that outgrows its lists), every vector kept."""
    store = FaissStore(tmp_path / "faiss.index", DIM, approximate_from=SWITCH // 8)
    fill(store, GROWN_FLAT * SWITCH // 8 - 1)
    assert store.kind == "flat"
    fill(store, 1, start=GROWN_FLAT * SWITCH // 8)
    assert store.kind == "ivf"
    lists = store._index.nlist
    fill(store, N, start=GROWN_FLAT * SWITCH // 8 + 1)
    assert store.kind == "ivf" and store._index.nlist >= 2 * lists
    assert store.ids() == set(range(1, GROWN_FLAT * SWITCH // 8 + N + 1))
    first = GROWN_FLAT * SWITCH // 8 + 1
    vectors = unit_vectors(2048, first)  # the first batch of the last fill
    assert store.query(vectors[5], 1)[0].chunk_id == first + 5
