"""Postgres keyword search as ranked since 2026-12-07 (``ts_rank``'s first chunks ranked again
by each word's idf-weighted ``ts_rank``, on alembic 0012's column) against the plain
``ts_rank`` of an OR query it replaced, in one run on the same catalogues: time per question
(p50, p95) and recall@10 of each question's own squad_dev paragraph.

Catalogues of 10k and 100k chunks (``--sizes``) of real squad_dev sentences recombined five to
a chunk (as bench/scale.py builds them), with the 646 squad_dev paragraphs added as needles,
written through the catalogue's own tables into a Postgres started here on a loopback port
(Debian's ``initdb`` + ``pg_ctl``, as the scaled test pass does; without them the bench says so
and stops). Both rankings search the same ``search_vector`` column and keep the same words
(``cap_terms``, 30,000 postings); only the score differs. 200 squad questions, each asked by
both, in alternating order.

    .venv/bin/python bench/postgres_keywords.py [--sizes 10000,100000] [--questions 200]
        # prints a table and writes bench/postgres_keywords.png (--plot PATH)
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir
from bench.scale import CHUNKS_PER_DOC, SENTENCES_PER_CHUNK, sentences

NEEDLE_DOC = 10_000_000  # first document id of the needles (after any built document)


def build(db: Any, size: int, beir: Any, seed: int = 7) -> dict[str, int]:
    """``size`` recombined chunks and the paragraphs of squad_dev (``beir``; one document
    each), ids from 1; returns {paragraph id: its chunk id}."""
    from sqlalchemy import insert

    from core.db.models import Chunk, Document

    rng = random.Random(seed)
    pool = sentences()
    docs: list[dict[str, Any]] = []
    chunks: list[dict[str, Any]] = []
    for cid in range(1, size + 1):
        doc_id = (cid - 1) // CHUNKS_PER_DOC + 1
        if (cid - 1) % CHUNKS_PER_DOC == 0:
            docs.append(_document(doc_id, f"/library/doc{doc_id:07d}.txt"))
        text = " ".join(rng.sample(pool, SENTENCES_PER_CHUNK))
        chunks.append(_chunk(cid, doc_id, (cid - 1) % CHUNKS_PER_DOC, text, f"Document {doc_id}"))
    needles: dict[str, int] = {}
    for n, (pid, doc) in enumerate(beir.corpus.items()):
        cid, doc_id = size + n + 1, NEEDLE_DOC + n
        docs.append(_document(doc_id, f"/squad/{pid}.txt"))
        chunks.append(_chunk(cid, doc_id, 0, doc["text"], doc.get("title") or pid))
        needles[pid] = cid
    with db.session() as s:
        for i in range(0, len(docs), 10_000):
            s.execute(insert(Document), docs[i : i + 10_000])
        for i in range(0, len(chunks), 10_000):
            s.execute(insert(Chunk), chunks[i : i + 10_000])
    return needles


def _document(doc_id: int, path: str) -> dict[str, Any]:
    return {
        "id": doc_id,
        "path": path,
        "collection": "default",
        "file_type": "text",
        "status": "ingested",
        "chunk_count": CHUNKS_PER_DOC,
        "size_bytes": 1,
    }


def _chunk(cid: int, doc_id: int, ordinal: int, text: str, title: str) -> dict[str, Any]:
    return {
        "id": cid,
        "document_id": doc_id,
        "ordinal": ordinal,
        "text": text,
        "title": title,
        "token_count": 120,
        "provenance": {},
        "embedding": b"\x00",
    }


def plain_ts_rank(index: Any, query: str, k: int) -> list[int]:
    """The ranking before 2026-12-07: one ``ts_rank`` of the OR of the kept words."""
    from sqlalchemy import text

    from core.keywords.base import cap_terms, query_terms, searched_words

    words = cap_terms(searched_words(query_terms(query).words), index._df, index.max_postings)
    if not words:
        return []
    sql = text(
        "SELECT c.id, ts_rank(c.search_vector, q, 1) AS s FROM chunks c, "
        "to_tsquery('english', :q) q WHERE c.search_vector @@ q ORDER BY s DESC, c.id LIMIT :k"
    )
    with index.db.session() as s:
        return [int(r[0]) for r in s.execute(sql, {"q": " | ".join(words), "k": k}).all()]


def measure(url: str, size: int, n_questions: int) -> dict[str, float]:
    """Build a catalogue of ``size`` chunks at ``url``, then ask both rankings."""
    from sqlalchemy import text

    from core.db.session import Database
    from core.keywords.postgres_fts import PostgresKeywordIndex

    db = Database(url)
    db.migrate()
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    started = time.perf_counter()
    needles = build(db, size, beir)
    built = time.perf_counter() - started
    with db.session() as s:
        s.execute(text("ANALYZE chunks"))
    index = PostgresKeywordIndex(db, 30_000)
    ids = list(beir.queries)
    ids = ids[:: max(1, len(ids) // n_questions)][:n_questions]
    times: dict[str, list[float]] = {"plain": [], "idf": []}
    found = {"plain": 0, "idf": 0}
    for qid in ids:
        question = beir.queries[qid]
        want = {needles[p] for p in beir.qrels[qid] if p in needles}
        for name in ("plain", "idf") if len(times["idf"]) % 2 else ("idf", "plain"):
            t = time.perf_counter()
            if name == "plain":
                got = plain_ts_rank(index, question, 10)
            else:
                got = [h.chunk_id for h in index.search(question, 10)]
            times[name].append(time.perf_counter() - t)
            found[name] += bool(want & set(got))
    db.dispose()
    row = {"size": size, "chunks": size + len(needles), "build_s": round(built, 1)}
    for name in ("plain", "idf"):
        row[f"{name}_p50_ms"] = round(1000 * statistics.median(times[name]), 1)
        row[f"{name}_p95_ms"] = round(1000 * statistics.quantiles(times[name], n=20)[-1], 1)
        row[f"{name}_recall10"] = round(found[name] / len(ids), 3)
    row["time_ratio_p50"] = round(row["idf_p50_ms"] / row["plain_p50_ms"], 2)
    return row


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Time per question (p50, p95) and recall@10 of both rankings against catalogue size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["chunks"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, (key, label) in zip(
        axes,
        (("p50_ms", "p50 (ms)"), ("p95_ms", "p95 (ms)"), ("recall10", "recall@10")),
        strict=True,
    ):
        for name in ("plain", "idf"):
            ax.plot(sizes, [r[f"{name}_{key}"] for r in rows], marker="o", label=name)
        ax.set_xscale("log")
        ax.set_xlabel("chunks")
        ax.set_title(label)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--plot", type=Path, default=Path("bench/postgres_keywords.png"))
    args = ap.parse_args()
    from samples.postgres import Postgres, postgres_missing

    reason = postgres_missing()
    if reason:
        print(f"not measured: {reason}")
        return
    pg = Postgres.start()
    try:
        rows = []
        for size in (int(s) for s in args.sizes.split(",")):
            rows.append(measure(pg.url(f"bench{size}"), size, args.questions))
            print(rows[-1], file=sys.stderr, flush=True)
    finally:
        pg.stop()
    keys = list(rows[0])
    print(" ".join(f"{k:>16s}" for k in keys))
    for row in rows:
        print(" ".join(f"{row[k]!s:>16s}" for k in keys))
    plot(rows, args.plot)
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
