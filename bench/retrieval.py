"""Dense retrieval quality of Hearth on the shared BEIR set (squad_dev).

Each corpus paragraph is written as a file and ingested by the real pipeline (chunking, the bundled
embedder, FAISS); each question goes through Hearth's Retriever; chunk hits are folded to their
paragraph (best rank wins). Prints recall@5, recall@10 and nDCG@10.

    .venv/bin/python bench/retrieval.py [--queries N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir, ndcg_at, recall_at
from core.embedder import create_embedder
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from ingest.pipeline import IngestPipeline
from service.retrieval import Retriever


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", type=Path, default=SHARED / "retrieval" / "squad_dev")
    parser.add_argument("--queries", type=int, default=0, help="Limit the questions (0 = all).")
    args = parser.parse_args()
    beir = load_beir(args.set)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus_dir = root / "corpus"
        corpus_dir.mkdir()
        for doc_id, doc in beir.corpus.items():
            (corpus_dir / f"{doc_id}.txt").write_text(f"{doc['title']}\n\n{doc['text']}")
        settings = load_settings(data_dir=root / "data")
        settings.retrieval.relative_margin = 2.0  # rank everything; no cut for metrics
        kb = KnowledgeBase(settings)
        embedder = create_embedder(settings.embedder)
        t0 = time.perf_counter()
        report = IngestPipeline(kb, embedder).ingest_paths([corpus_dir])
        ingest_s = time.perf_counter() - t0
        retriever = Retriever(kb, embedder)
        qids = [q for q in beir.queries if q in beir.qrels]
        if args.queries:
            qids = qids[: args.queries]
        r5 = r10 = n10 = 0.0
        t1 = time.perf_counter()
        for qid in qids:
            ranked: list[str] = []
            for p in retriever.retrieve(beir.queries[qid], k=30):
                doc_id = Path(p.path).stem
                if doc_id not in ranked:
                    ranked.append(doc_id)
            r5 += recall_at(ranked, beir.qrels[qid], 5)
            r10 += recall_at(ranked, beir.qrels[qid], 10)
            n10 += ndcg_at(ranked, beir.qrels[qid], 10)
        query_s = time.perf_counter() - t1
        n = len(qids)
        kb.close()
    print(
        f"# Dense retrieval on {args.set.name}: {len(beir.corpus)} paragraphs "
        f"({report.chunks} chunks), {n} questions\n"
    )
    print("| metric | dense (MiniLM-L6 + FAISS) |")
    print("|---|---|")
    print(f"| recall@5 | {r5 / n:.4f} |")
    print(f"| recall@10 | {r10 / n:.4f} |")
    print(f"| nDCG@10 | {n10 / n:.4f} |")
    print(f"| ingest | {ingest_s:.1f} s |")
    print(f"| query latency (embed + search + catalogue) | {1000 * query_s / n:.1f} ms |")


if __name__ == "__main__":
    main()
