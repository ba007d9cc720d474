"""The memory plan counts the vector indexes this process loads: FAISS and an embedded Chroma's
HNSW segment (issue 17: at a million chunks RSS was 4.4 GiB against a plan counting FAISS only).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.knowledge import KnowledgeBase
from core.settings import load_settings
from core.vectorstores.base import store_resident_bytes
from core.vectorstores.chroma import CLIENT_BYTES
from core.vectorstores.chroma import resident_estimate as chroma_estimate
from service.llm.planner import plan_from_settings

pytestmark = pytest.mark.embedded_only(
    "the plan counts indexes loaded in this process (FAISS, an embedded Chroma): one pass"
)

N = 4_000
#: Bytes of RSS the allocator may keep beyond what a loaded index holds (freed temporaries).
SLACK = 1 << 20
DIM = 384
REPO = Path(__file__).resolve().parents[2]
CHILD = """
import sys
from core.memsize import current_rss
from core.settings import load_settings
from core.vectorstores.base import STORES, open_store
import chromadb, faiss
settings = load_settings(data_dir=sys.argv[1])
STORES.names()  # the plugins' entry-point scan (~0.4 MB of metadata) is not the index's
grown = {}
for role in ("faiss", "chroma"):
    before = current_rss()
    store = open_store(role, settings, 384)
    assert store.count() == 4000
    grown[role] = current_rss() - before
print(grown["faiss"], grown["chroma"])
"""


def test_both_indexes_are_in_the_plan_and_cover_what_loading_them_takes(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    kb = KnowledgeBase(settings, dimension=DIM)
    vectors = np.random.default_rng(3).standard_normal((N, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = list(range(1, N + 1))
    meta = [{"document_id": 1, "collection": "default", "file_type": "text"}] * N
    for store in kb.stores.values():
        store.add(ids, vectors, meta)
    kb.persist()
    kb.close()

    sizes = store_resident_bytes(settings)
    assert set(sizes) == {"faiss", "chroma"}
    assert sizes["faiss"] >= N * DIM * 4 and sizes["chroma"] >= N * DIM * 4
    extras = plan_from_settings(settings).extras
    assert extras["faiss index"] == sizes["faiss"]
    assert extras["chroma index"] == sizes["chroma"]

    # A fresh process opening the knowledge base loads both indexes: the plan holds what it took.
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(settings.data_dir)],
        capture_output=True, text=True, timeout=300, cwd=REPO, check=True,
    )  # fmt: skip
    grown = dict(zip(("faiss", "chroma"), map(int, out.stdout.split()), strict=True))
    # An estimate: within 5% above, and not far below. Above it, 1 MiB more is the allocator's
    # slack, not the index's: a fresh clone's run once grew 8,339,456 bytes for the FAISS index
    # planned at 7,776,090 (1.07x), where repeated runs here grow 0.93-0.95x.
    for role in ("faiss", "chroma"):
        assert 0.5 * sizes[role] <= grown[role] <= 1.05 * sizes[role] + SLACK, (role, grown, sizes)


def test_a_chroma_server_holds_its_index_in_its_own_process(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data")
    (settings.chroma_dir / "segment").mkdir(parents=True)
    (settings.chroma_dir / "segment" / "data_level0.bin").write_bytes(b"\0" * 4096)
    assert chroma_estimate(settings) == 4096 + CLIENT_BYTES
    settings.chroma.mode = "server"
    settings.chroma.url = "http://127.0.0.1:9"
    assert "chroma" not in store_resident_bytes(settings)
