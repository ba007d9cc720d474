"""Retrieval at library scale: catalogues of 10k, 100k (and with --sizes, more) chunks.

Each catalogue is built from real squad_dev sentences recombined into chunks of ~5 sentences,
written straight into the catalogue (the keyword index fills itself by trigger, as in ingest)
and mirrored into FAISS and Chroma. Embeddings are DRAWN AT RANDOM (unit vectors, 384-d):
embedding 100k chunks with MiniLM on this machine would take hours; questions are embedded by
the real embedder, so the timing of every step is real, not its quality (bench/retrieval.py
measures quality). Then a fresh process per size measures:

- start-up: open the catalogue and stores, repair, build the Retriever (ready to answer), s;
- question p50 / p95 over 50 squad questions (embed + keyword + vector + fuse + fetch), ms;
- ingest of one more file (the real pipeline), ms, and the first question after it, ms;
- RSS of that process after the questions, MiB;
- beside them, the old in-memory BM25's rebuild (bm25s over every chunk), which the first
  question after any change used to pay.

    .venv/bin/python bench/scale.py [--sizes 10000,100000] [--plot PATH] [--no-old]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.common import SHARED, load_beir, rss_mib

DIM = 384
SENTENCES_PER_CHUNK = 5
CHUNKS_PER_DOC = 20


def sentences() -> list[str]:
    """Every sentence of squad_dev's corpus."""
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    out: list[str] = []
    for doc in beir.corpus.values():
        out += [s.strip() + "." for s in doc["text"].split(". ") if len(s.strip()) > 20]
    return out


def build(data: Path, size: int, seed: int = 7) -> float:
    """A catalogue of ``size`` chunks in ``data``; returns the seconds it took."""
    from sqlalchemy import insert

    from core.db.models import Chunk, Document
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings

    t0 = time.perf_counter()
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    pool = sentences()
    kb = KnowledgeBase(load_settings(data_dir=data))
    collections = ("default", "work", "home")
    for first in range(0, size, 10_000):
        n = min(10_000, size - first)
        docs, chunks, metas = [], [], []
        vectors = nrng.standard_normal((n, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        for i in range(n):
            cid = first + i + 1
            doc_id = (cid - 1) // CHUNKS_PER_DOC + 1
            coll = collections[doc_id % 3]
            if (cid - 1) % CHUNKS_PER_DOC == 0:
                docs.append(
                    {
                        "id": doc_id,
                        "path": f"/library/doc{doc_id:07d}.txt",
                        "collection": coll,
                        "file_type": "text",
                        "status": "ingested",
                        "chunk_count": CHUNKS_PER_DOC,
                        "size_bytes": 1,
                    }
                )
            text = " ".join(rng.sample(pool, SENTENCES_PER_CHUNK))
            chunks.append(
                {
                    "id": cid,
                    "document_id": doc_id,
                    "ordinal": (cid - 1) % CHUNKS_PER_DOC,
                    "text": text,
                    "title": f"Document {doc_id}",
                    "token_count": 120,
                    "provenance": {},
                    "embedding": vectors[i].tobytes(),
                }
            )
            metas.append({"document_id": doc_id, "collection": coll, "file_type": "text"})
        with kb.db.session() as s:
            if docs:
                s.execute(insert(Document), docs)
            s.execute(insert(Chunk), chunks)
        ids = [c["id"] for c in chunks]
        for store in kb.stores.values():
            store.add(ids, vectors, metas)
    kb.close()
    return time.perf_counter() - t0


def child(data: Path, extra_file: Path, old: bool) -> dict[str, Any]:
    """Measured in a fresh process: start-up, question latency, one more file, RSS."""
    from core.embedder import create_embedder
    from core.settings import load_settings
    from core.vectorstores.faiss_store import resident_estimate

    settings = load_settings(data_dir=data)
    embedder = create_embedder(settings.embedder)  # loaded before the clock: not the index
    embedder.embed(["warm up"])
    t0 = time.perf_counter()
    from core.knowledge import KnowledgeBase
    from service.retrieval import Retriever

    kb = KnowledgeBase(settings)
    kb.repair()
    retriever = Retriever(kb, embedder)
    startup = time.perf_counter() - t0
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    questions = list(beir.queries.values())[:50]
    retriever.retrieve(questions[0])  # first touch of each index
    times = []
    for q in questions:
        t = time.perf_counter()
        retriever.retrieve(q, k=5)
        times.append(1000 * (time.perf_counter() - t))
    from ingest.pipeline import IngestPipeline

    t = time.perf_counter()
    IngestPipeline(kb, embedder).ingest_file(extra_file)
    kb.persist()
    ingest_ms = 1000 * (time.perf_counter() - t)
    t = time.perf_counter()
    retriever.retrieve(questions[1], k=5)
    after_ms = 1000 * (time.perf_counter() - t)
    out = {
        "startup_s": startup,
        "p50_ms": statistics.median(times),
        "p95_ms": float(np.percentile(times, 95)),
        "ingest_ms": ingest_ms,
        "first_after_change_ms": after_ms,
        "rss_mib": rss_mib(),
        "faiss_plan_mib": resident_estimate(settings) / 2**20,
    }
    if old:
        from bench.legacy_bm25 import BM25Index

        t = time.perf_counter()
        BM25Index(kb.db).refresh()
        out["old_bm25_rebuild_s"] = time.perf_counter() - t
    kb.close()
    return out


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """One panel per figure against catalogue size (log x)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [
        ("p50_ms", "question p50 (ms)"),
        ("p95_ms", "question p95 (ms)"),
        ("first_after_change_ms", "first question after a change (ms)"),
        ("ingest_ms", "ingest one more file (ms)"),
        ("startup_s", "start-up to ready (s)"),
        ("rss_mib", "RSS (MiB)"),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    sizes = [r["size"] for r in rows]
    for ax, (key, label) in zip(axes.flat, keys, strict=True):
        ax.plot(sizes, [r[key] for r in rows], marker="o")
        ax.set_xscale("log")
        ax.set_xlabel("chunks")
        ax.set_title(label)
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--plot", type=Path, default=Path("bench/scale.png"))
    ap.add_argument("--no-old", action="store_true", help="Skip timing the old BM25 rebuild.")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--extra", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.extra, not args.no_old)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        extra = Path(tmp) / "one-more.txt"
        extra.write_text(" ".join(sentences()[:40]))
        for size in (int(s) for s in args.sizes.split(",")):
            data = Path(tmp) / f"data{size}"
            built = build(data, size)
            cmd = [sys.executable, __file__, "--child", str(data), "--extra", str(extra)]
            if args.no_old:
                cmd.append("--no-old")
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            row = {"size": size, "build_s": built, **json.loads(res.stdout.splitlines()[-1])}
            rows.append(row)
            print(json.dumps(row), flush=True)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"\n# Scale (random embeddings, real sentences; {load})\n")
    print(
        "| chunks | start-up s | p50 ms | p95 ms | first after change ms | ingest 1 file ms "
        "| RSS MiB | old BM25 rebuild s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        old = f"{r['old_bm25_rebuild_s']:.1f}" if "old_bm25_rebuild_s" in r else ""
        print(
            f"| {r['size']:,} | {r['startup_s']:.2f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} "
            f"| {r['first_after_change_ms']:.1f} | {r['ingest_ms']:.0f} | {r['rss_mib']:.0f} "
            f"| {old} |"
        )
    plot(rows, args.plot)
    print(f"\nplot: {args.plot}")


if __name__ == "__main__":
    main()
