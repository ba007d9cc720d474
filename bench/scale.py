"""Retrieval at library scale: catalogues of 10k, 100k and 1M chunks (``--sizes``).

Each catalogue is built from real squad_dev sentences recombined into chunks of 5 sentences,
written through the catalogue's own tables in batches of 10,000 rows (SQLAlchemy Core
``insert``; the keyword index fills itself by trigger, as in ingest) and mirrored into FAISS and
Chroma through their stores' ``add``. Embeddings are DRAWN AT RANDOM, clustered like text
(``bench/faiss_kinds.py``: 384-d unit vectors around sub-topics): MiniLM would take hours here
(about 100 chunks/s on these 2 cores, so ~3 h for 1M); questions are embedded by the real
embedder, so each step's time is real, not its quality (bench/retrieval.py measures that). The
FAISS index turns approximate (IVF) past ``vectors.approximate_from`` when the build saves it,
as Hearth does. Then a fresh process per size measures:

- start-up to ready: open the catalogue and stores, repair as ``hearth serve`` does (trusting a
  clean close: the previous measuring process closed cleanly), build the Retriever, s (and that
  nothing was rebuilt: repair changed nothing and the FAISS file was not rewritten), and the
  size check of the stores that answer no query (Chroma beside FAISS), which a trusted start
  leaves to their first write;
- question p50 / p95 over 50 squad questions (spread over its articles), ms, and the median
  of each part (embed, keyword, vector; fuse + fetch is the rest);
- the keyword postings cap (``retrieval.keyword_postings``) against no cap: time, the overlap
  of their top 10, and the recall@10 of 200 questions' own squad_dev paragraphs, which are
  added to every catalogue as needles among the recombined chunks;
- ingest of one more file (the real pipeline, saving FAISS), ms, and the first question after
  it, ms;
- RSS (now and peak) of that process, MiB, and what the memory plan holds for its parts (the
  embedder, the FAISS index and the embedded Chroma's HNSW segment);
- with ``--old``, the old in-memory BM25's rebuild (bm25s over every chunk), which the first
  question after any change used to pay.

    .venv/bin/python bench/scale.py [--sizes 10000,100000,1000000] [--plot PATH] [--old]

Building 1M chunks takes long (Chroma inserts dominate: 138 of 186 s at 100k); the catalogues
are kept under ``--keep DIR`` to be measured again without rebuilding.
"""

from __future__ import annotations

import argparse
import json
import os
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
from bench.faiss_kinds import clustered_batches

DIM = 384
SENTENCES_PER_CHUNK = 5
CHUNKS_PER_DOC = 20
BATCH = 10_000


def sentences() -> list[str]:
    """Every sentence of squad_dev's corpus."""
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    out: list[str] = []
    for doc in beir.corpus.values():
        out += [s.strip() + "." for s in doc["text"].split(". ") if len(s.strip()) > 20]
    return out


def build(data: Path, size: int, seed: int = 7) -> dict[str, float]:
    """A catalogue of ``size`` chunks in ``data``; seconds spent on each part."""
    from sqlalchemy import insert

    from core.db.models import Chunk, Document
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings

    spent = {"build_sql_s": 0.0, "build_faiss_s": 0.0, "build_chroma_s": 0.0}
    t0 = time.perf_counter()
    rng = random.Random(seed)
    pool = sentences()
    kb = KnowledgeBase(load_settings(data_dir=data), dimension=DIM)
    collections = ("default", "work", "home")
    for first, vectors in zip(range(0, size, BATCH), clustered_batches(size, BATCH), strict=True):
        n = len(vectors)
        docs, chunks, metas = [], [], []
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
            chunks.append(
                {
                    "id": cid,
                    "document_id": doc_id,
                    "ordinal": (cid - 1) % CHUNKS_PER_DOC,
                    "text": " ".join(rng.sample(pool, SENTENCES_PER_CHUNK)),
                    "title": f"Document {doc_id}",
                    "token_count": 120,
                    "provenance": {},
                    "embedding": vectors[i].tobytes(),
                }
            )
            metas.append({"document_id": doc_id, "collection": coll, "file_type": "text"})
        t = time.perf_counter()
        with kb.db.session() as s:
            if docs:
                s.execute(insert(Document), docs)
            s.execute(insert(Chunk), chunks)
        spent["build_sql_s"] += time.perf_counter() - t
        ids = [c["id"] for c in chunks]
        for role, store in kb.stores.items():
            t = time.perf_counter()
            store.add(ids, vectors, metas)
            spent[f"build_{role}_s"] += time.perf_counter() - t
        if first and first % 100_000 == 0:
            print(f"  built {first:,} chunks in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    t = time.perf_counter()
    kb.close()  # saves FAISS: IVF is trained here past vectors.approximate_from
    spent["build_faiss_s"] += time.perf_counter() - t
    spent["build_s"] = time.perf_counter() - t0
    return spent


NEEDLE_PREFIX = "/squad/"


def add_needles(data: Path) -> int:
    """squad_dev's 646 real paragraphs, one chunk each, added to a built catalogue once (their
    embeddings drawn at random like the rest): each question's own paragraph is a needle among
    the recombined chunks, so the keyword arm's recall@10 on it measures what the postings cap
    costs in quality. Returns how many were added (0 when already there)."""
    from sqlalchemy import func, insert, select

    from core.db.models import Chunk, Document
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings

    kb = KnowledgeBase(load_settings(data_dir=data), dimension=DIM)
    try:
        kb.repair(trust_clean_close=True)  # as a start does: the close then leaves the mark
        with kb.db.session() as s:
            if s.scalar(select(func.count()).where(Document.path.like(NEEDLE_PREFIX + "%"))):
                return 0
            first_doc = int(s.scalar(select(func.max(Document.id))) or 0) + 1
            first_chunk = int(s.scalar(select(func.max(Chunk.id))) or 0) + 1
        beir = load_beir(SHARED / "retrieval" / "squad_dev")
        rng = np.random.default_rng(3)
        vectors = rng.standard_normal((len(beir.corpus), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        docs, chunks, metas = [], [], []
        for i, (pid, para) in enumerate(beir.corpus.items()):
            doc_id, cid = first_doc + i, first_chunk + i
            docs.append(
                {
                    "id": doc_id,
                    "path": f"{NEEDLE_PREFIX}{pid}.txt",
                    "collection": "default",
                    "file_type": "text",
                    "status": "ingested",
                    "chunk_count": 1,
                    "size_bytes": len(para["text"]),
                }
            )
            chunks.append(
                {
                    "id": cid,
                    "document_id": doc_id,
                    "ordinal": 0,
                    "text": para["text"],
                    "title": para.get("title", ""),
                    "token_count": 150,
                    "provenance": {},
                    "embedding": vectors[i].tobytes(),
                }
            )
            metas.append({"document_id": doc_id, "collection": "default", "file_type": "text"})
        with kb.db.session() as s:
            s.execute(insert(Document), docs)
            s.execute(insert(Chunk), chunks)
        for store in kb.stores.values():
            store.add([c["id"] for c in chunks], vectors, metas)
        return len(chunks)
    finally:
        kb.close()


def needle_recall(kb: Any, index: Any, n: int = 200) -> float:
    """Keyword recall@10 of each question's own squad_dev paragraph (see add_needles)."""
    from sqlalchemy import select

    from core.db.models import Chunk, Document

    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    with kb.db.session() as s:
        rows = s.execute(
            select(Document.path, Chunk.id)
            .join(Chunk, Chunk.document_id == Document.id)
            .where(Document.path.like(NEEDLE_PREFIX + "%"))
        ).all()
    chunk_of = {path[len(NEEDLE_PREFIX) : -len(".txt")]: cid for path, cid in rows}
    ids = list(beir.queries)
    ids = ids[:: max(1, len(ids) // n)][:n]
    found = 0
    for qid in ids:
        want = {chunk_of[p] for p in beir.qrels[qid] if p in chunk_of}
        got = {h.chunk_id for h in index.search(beir.queries[qid], 10)}
        found += bool(want & got)
    return found / len(ids)


def child(data: Path, extra_file: Path, old: bool) -> dict[str, Any]:
    """Measured in a fresh process: start-up, question latency, one more file, RSS."""
    from core.embedder import create_embedder
    from core.memsize import current_rss, parse_size
    from core.settings import load_settings
    from core.vectorstores.base import store_resident_bytes

    settings = load_settings(data_dir=data)
    embedder = create_embedder(settings.embedder)  # loaded before the clock: not the index
    embedder.embed(["warm up"])
    saved = settings.faiss_path.stat().st_mtime_ns
    t0 = time.perf_counter()
    from core.knowledge import KnowledgeBase
    from service.answering.retrieval import Retriever

    kb = KnowledgeBase(settings)
    opened = time.perf_counter() - t0
    report = kb.repair(trust_clean_close=True)  # as `hearth serve` does
    retriever = Retriever(kb, embedder)
    startup = time.perf_counter() - t0
    # A trusted start leaves the size of the stores that answer no query (Chroma beside FAISS)
    # to be checked before their first write: timed here, apart (ingest pays it).
    t = time.perf_counter()
    kb.check_deferred()
    deferred_check = time.perf_counter() - t
    rebuilt = report.changed or settings.faiss_path.stat().st_mtime_ns != saved
    faiss_store: Any = kb.stores["faiss"]
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    every = list(beir.queries.values())
    questions = every[:: len(every) // 51][:51]  # spread over the articles
    retriever.retrieve(questions[-1])  # first touch of each index
    times: list[float] = []
    parts: dict[str, list[float]] = {"embed": [], "keyword": [], "vector": []}
    for q in questions[:50]:
        t = time.perf_counter()
        retriever.retrieve(q, k=5)
        times.append(1000 * (time.perf_counter() - t))
        t = time.perf_counter()
        vector = embedder.embed([q])[0]
        parts["embed"].append(1000 * (time.perf_counter() - t))
        t = time.perf_counter()
        retriever.keywords.search(q, 20, None)
        parts["keyword"].append(1000 * (time.perf_counter() - t))
        t = time.perf_counter()
        faiss_store.query(vector, 20)
        parts["vector"].append(1000 * (time.perf_counter() - t))
    # The keyword postings cap (retrieval.keyword_postings) against no cap: time, and how much
    # of the uncapped top 10 the capped search still returns in its top 10.
    from core.keywords import open_keyword_index

    uncapped = open_keyword_index(kb.db, 0)
    plain: list[float] = []
    overlap: list[float] = []
    for q in questions[:50]:
        t = time.perf_counter()
        full = [h.chunk_id for h in uncapped.search(q, 10)]
        plain.append(1000 * (time.perf_counter() - t))
        capped = {h.chunk_id for h in retriever.keywords.search(q, 10)}
        if full:
            overlap.append(len(capped.intersection(full)) / len(full))
    needles = {
        "needle_recall10_capped": needle_recall(kb, retriever.keywords),
        "needle_recall10_uncapped": needle_recall(kb, uncapped),
    }
    from ingest.pipeline import IngestPipeline

    t = time.perf_counter()
    IngestPipeline(kb, embedder).ingest_file(extra_file)
    kb.persist()
    ingest_ms = 1000 * (time.perf_counter() - t)
    t = time.perf_counter()
    retriever.retrieve(questions[1], k=5)
    after_ms = 1000 * (time.perf_counter() - t)
    out: dict[str, Any] = {
        "startup_s": startup,
        "deferred_check_s": deferred_check,
        "deferred": list(report.deferred),
        "open_s": opened,
        "rebuilt": bool(rebuilt),
        "trusted_clean_close": report.trusted,
        "faiss_kind": faiss_store.kind,
        "p50_ms": statistics.median(times),
        "p95_ms": float(np.percentile(times, 95)),
        **{f"{k}_p50_ms": statistics.median(v) for k, v in parts.items()},
        "keyword_uncapped_p50_ms": statistics.median(plain),
        "keyword_uncapped_p95_ms": float(np.percentile(plain, 95)),
        "keyword_p95_ms": float(np.percentile(parts["keyword"], 95)),
        "keyword_cap_overlap10": statistics.mean(overlap) if overlap else 1.0,
        "keyword_postings": settings.retrieval.keyword_postings,
        **needles,
        "ingest_ms": ingest_ms,
        "first_after_change_ms": after_ms,
        "rss_mib": current_rss() / 2**20,
        "peak_rss_mib": rss_mib(),
        # What the memory plan holds for this process's parts: the embedder and the indexes
        # (FAISS, the embedded Chroma's HNSW segment); the LLM is not loaded here.
        "plan_mib": (
            parse_size(settings.embedder.resident_memory, "embedder.resident_memory")
            + sum(store_resident_bytes(settings).values())
        )
        / 2**20,
        "index_plan_mib": {k: v / 2**20 for k, v in store_resident_bytes(settings).items()},
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
        ax.plot(sizes, [r[key] for r in rows], marker="o", label=label.split(" (")[0])
        if key == "rss_mib" and all("plan_mib" in r for r in rows):
            ax.plot(sizes, [r["plan_mib"] for r in rows], marker="x", label="memory plan")
            ax.legend()
        ax.set_xscale("log")
        ax.set_xlabel("chunks")
        ax.set_title(label)
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--plot", type=Path, default=Path("bench/scale.png"))
    ap.add_argument("--old", action="store_true", help="Also time the old BM25's rebuild.")
    ap.add_argument("--keep", type=Path, help="Keep (and reuse) the catalogues in this folder.")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--extra", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.extra, args.old)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        for size in (int(s) for s in args.sizes.split(",")):
            data = root / f"data{size}"
            built: dict[str, Any] = {"build_s": None}
            if not (data / "catalogue.db").exists():
                built = build(data, size)
            add_needles(data)
            extra = Path(tmp) / f"one-more-{size}.txt"  # a new file for every run
            extra.write_text(" ".join(random.Random(os.getpid()).sample(sentences(), 40)))
            cmd = [sys.executable, __file__, "--child", str(data), "--extra", str(extra)]
            if args.old:
                cmd.append("--old")
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode:
                sys.exit(f"size {size}: the measuring process failed:\n{res.stderr[-3000:]}")
            row = {"size": size, **built, **json.loads(res.stdout.splitlines()[-1])}
            rows.append(row)
            print(json.dumps(row), flush=True)
    report(rows)
    plot(rows, args.plot)
    print(f"\nplot: {args.plot}")


def report(rows: list[dict[str, Any]]) -> None:
    """The scale table, with the load average it was measured under."""
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"\n# Scale (embeddings DRAWN AT RANDOM, clustered; real sentences; {load})\n")
    print(
        "| chunks | FAISS | start-up s (+ size check before the first write) | rebuilt "
        "| p50 ms | p95 ms "
        "| embed / keyword / vector p50 ms | keyword p50 / p95 ms, no cap "
        "| capped top 10 in uncapped | needle recall@10 capped / no cap | first after change "
        "ms | ingest 1 file ms | RSS MiB (peak) | plan MiB: embedder + indexes "
        "| build s (SQL / FAISS / Chroma) | old BM25 rebuild s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        old = f"{r['old_bm25_rebuild_s']:.1f}" if "old_bm25_rebuild_s" in r else ""
        build = (
            f"{r['build_s']:.0f} ({r['build_sql_s']:.0f} / {r['build_faiss_s']:.0f} / "
            f"{r['build_chroma_s']:.0f})"
            if r.get("build_s") is not None
            else "reused"
        )
        print(
            f"| {r['size']:,} | {r['faiss_kind']} | {r['startup_s']:.2f} "
            f"(+{r.get('deferred_check_s', 0.0):.2f}) "
            f"| {'yes' if r['rebuilt'] else 'no'} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} "
            f"| {r['embed_p50_ms']:.1f} / {r['keyword_p50_ms']:.1f} / {r['vector_p50_ms']:.1f} "
            f"| {r['keyword_uncapped_p50_ms']:.1f} / {r['keyword_uncapped_p95_ms']:.1f} "
            f"| {r['keyword_cap_overlap10']:.3f} "
            f"| {r['needle_recall10_capped']:.3f} / {r['needle_recall10_uncapped']:.3f} "
            f"| {r['first_after_change_ms']:.1f} | {r['ingest_ms']:.0f} "
            f"| {r['rss_mib']:.0f} ({r['peak_rss_mib']:.0f}) | {r['plan_mib']:.0f} "
            f"| {build} | {old} |"
        )


if __name__ == "__main__":
    main()
