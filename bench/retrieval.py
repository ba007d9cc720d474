"""Retrieval quality on the shared BEIR set (squad_dev): keyword (the catalogue's full-text
index), dense and hybrid, beside the old in-memory BM25 (bm25s, no stemming, no title; rebuilt
from every chunk) on the same catalogue in the same run, and the assistant's abstention on
unanswerable versus answerable questions.

Each corpus paragraph is written as a file and ingested by the real pipeline; each question goes
through Hearth's Retriever (chunk hits folded to their paragraph, best rank wins). With --qa N, N
answerable and N unanswerable SQuAD 2.0 questions are answered by the assistant over the same
corpus, and the abstention rates are printed.

    .venv/bin/python bench/retrieval.py [--queries N] [--qa N] [--model NAME] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir
from bench.figures import Figure, add_json_option, write_json
from bench.legacy_bm25 import BM25Index
from core.embedder import create_embedder
from core.evalmetrics import is_abstention, ndcg_at_k, recall_at_k, reciprocal_rank
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import METHODS, Retriever

OLD_BM25 = "bm25s (old)"


def ranked_paths(
    retriever: Retriever, legacy: BM25Index, question: str, method: str, vector: np.ndarray
) -> list[str]:
    """Chunk paths best first: the Retriever's passages (searched with the question's
    embedding ``vector``, computed once for every method), or the old BM25's hits."""
    if method != OLD_BM25:
        passages = retriever.retrieve(question, k=30, method=method, cut=False, vector=vector)
        return [p.path for p in passages]
    from sqlalchemy import select

    from core.db.models import Chunk, Document

    hits = legacy.search(question, 30)
    with legacy.db.session() as s:
        paths = dict(
            s.execute(
                select(Chunk.id, Document.path)
                .join(Document, Chunk.document_id == Document.id)
                .where(Chunk.id.in_([h.chunk_id for h in hits]))
            ).all()
        )
    return [paths[h.chunk_id] for h in hits if h.chunk_id in paths]


def abstention(settings_dir: Path, model: str, n: int) -> dict[str, float]:
    """Share of unanswerable questions declined, and of answerable ones wrongly declined."""
    from service.state import Hearth

    settings = load_settings(data_dir=settings_dir)
    settings.llm.model = model
    settings.llm.warmup = False
    hearth = Hearth.start(settings)
    rows = {}
    for kind in ("unanswerable", "answerable"):
        path = SHARED / "qa" / f"squad2_dev_{kind}.jsonl"
        qs = [json.loads(line) for line in path.read_text().splitlines()][::97][:n]
        declined = 0
        for q in qs:
            answer = hearth.answers.answer(q["question"])
            declined += is_abstention(answer.answer)
        rows[kind] = declined / max(1, len(qs))
    hearth.close()
    return rows


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", type=Path, default=SHARED / "retrieval" / "squad_dev")
    parser.add_argument("--queries", type=int, default=0, help="Limit the questions (0 = all).")
    parser.add_argument("--qa", type=int, default=0, help="Answer N + N questions (abstention).")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    add_json_option(parser)
    return parser


def run(args: argparse.Namespace) -> list[Figure]:
    """Ingest the set, rank every question by each method, print the table, return the figures."""
    beir = load_beir(args.set)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus_dir = root / "corpus"
        corpus_dir.mkdir()
        for doc_id, doc in beir.corpus.items():
            (corpus_dir / f"{doc_id}.txt").write_text(f"{doc['title']}\n\n{doc['text']}")
        settings = load_settings(data_dir=root / "data")
        kb = KnowledgeBase(settings)
        embedder = create_embedder(settings.embedder)
        t0 = time.perf_counter()
        report = IngestPipeline(kb, embedder).ingest_paths([corpus_dir])
        ingest_s = time.perf_counter() - t0
        qids = [q for q in beir.queries if q in beir.qrels]
        if args.queries:
            qids = qids[: args.queries]
        t_embed = time.perf_counter()
        # Every question embedded once, in one batch, up front: the methods then time their
        # index look-ups, not the same embedding four times.
        vectors = embedder.embed_questions([beir.queries[q] for q in qids])
        embed_ms = 1000 * (time.perf_counter() - t_embed) / len(qids)
        retriever = Retriever(kb, embedder)
        legacy = BM25Index(kb.db)
        rows = {}
        for method in (*METHODS, OLD_BM25):
            r5 = r10 = n10 = rr = 0.0
            t1 = time.perf_counter()
            for qid, vector in zip(qids, vectors, strict=True):
                ranked: list[str] = []
                for path in ranked_paths(retriever, legacy, beir.queries[qid], method, vector):
                    doc_id = Path(path).stem
                    if doc_id not in ranked:
                        ranked.append(doc_id)
                relevant = {d for d, grade in beir.qrels[qid].items() if grade > 0}
                r5 += recall_at_k(ranked, relevant, 5)
                r10 += recall_at_k(ranked, relevant, 10)
                n10 += ndcg_at_k(ranked, beir.qrels[qid], 10)
                rr += reciprocal_rank(ranked, relevant)
            n = len(qids)
            ms = 1000 * (time.perf_counter() - t1) / n
            rows[method] = (r5 / n, r10 / n, n10 / n, rr / n, ms)
        kb.close()
        abst = abstention(root / "data", args.model, args.qa) if args.qa else None
    print(
        f"# Retrieval on {args.set.name}: {len(beir.corpus)} paragraphs ({report.chunks} "
        f"chunks, ingested in {ingest_s:.1f} s), {len(qids)} questions\n"
    )
    print(f"Questions embedded once in one batch ({embed_ms:.1f} ms each); ms/query below is the")
    print("index look-ups, fusion and fetch without the embedding.\n")
    print("| method | recall@5 | recall@10 | nDCG@10 | MRR | ms/query |")
    print("|---|---|---|---|---|---|")
    for method, (r5, r10, n10, mrr, ms) in rows.items():
        print(f"| {method} | {r5:.4f} | {r10:.4f} | {n10:.4f} | {mrr:.4f} | {ms:.1f} |")
    if abst is not None:
        print(f"\n# Abstention ({args.model}, {args.qa} + {args.qa} SQuAD 2.0 questions)\n")
        print("| | rate |\n|---|---|")
        print(f"| unanswerable questions declined | {abst['unanswerable']:.2f} |")
        print(f"| answerable questions wrongly declined | {abst['answerable']:.2f} |")
    sec = "retrieval"
    note = f"{args.set.name}, {len(qids)} questions"
    figures = [
        Figure(
            sec,
            "ingest",
            report.chunks / ingest_s,
            "chunks/s",
            better="higher",
            note=f"{len(beir.corpus)} paragraphs, {report.chunks} chunks",
        ),
    ]
    for method, (r5, r10, n10, mrr, ms) in rows.items():
        figures += [
            Figure(sec, f"{method} recall@5", r5, better="higher", note=note),
            Figure(sec, f"{method} recall@10", r10, better="higher", note=note),
            Figure(sec, f"{method} nDCG@10", n10, better="higher", note=note),
            Figure(sec, f"{method} MRR", mrr, better="higher", note=note),
            Figure(sec, f"{method} latency", ms, "ms/query", better="lower"),
        ]
    if abst is not None:
        qa_note = f"{args.model}, {args.qa} SQuAD 2.0 questions"
        figures += [
            Figure(
                "abstention",
                "unanswerable declined",
                abst["unanswerable"],
                "share",
                better="higher",
                note=qa_note,
            ),
            Figure(
                "abstention",
                "answerable wrongly declined",
                abst["answerable"],
                "share",
                better="lower",
                note=qa_note,
            ),
        ]
    return figures


def main() -> None:
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
