"""Ingest throughput: Hearth's whole pipeline next to the raw embedder on the same chunk texts.

Hearth: load + chunk + embed + write SQL, Chroma and FAISS, for ../shared/data/docs and the
squad_dev corpus (one file per paragraph). Raw: sentence-transformers `encode` of exactly the chunk
texts Hearth produced, same model and batch size, in the same run.

    .venv/bin/python bench/ingest.py [--squad N] [--json PATH]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir
from bench.figures import Figure, add_json_option, write_json
from core.bundled import packaged_path
from core.embedder import create_embedder
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from ingest.pipeline import IngestPipeline


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--squad", type=int, default=0, help="Only the first N squad_dev paragraphs (0 = all)."
    )
    add_json_option(parser)
    return parser


def run(args: argparse.Namespace) -> list[Figure]:
    """Ingest with Hearth, encode the same chunk texts raw, print the table, return figures."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus = root / "files"
        shutil.copytree(SHARED / "docs", corpus / "docs")
        squad = corpus / "squad"
        squad.mkdir()
        paragraphs = list(load_beir(SHARED / "retrieval" / "squad_dev").corpus.items())
        for doc_id, doc in paragraphs[: args.squad or None]:
            (squad / f"{doc_id}.txt").write_text(f"{doc['title']}\n\n{doc['text']}")
        settings = load_settings(data_dir=root / "data")
        kb = KnowledgeBase(settings)
        embedder = create_embedder(settings.embedder)
        embedder.embed(["warm up"])
        t0 = time.perf_counter()
        report = IngestPipeline(kb, embedder).ingest_paths([corpus])
        hearth_s = time.perf_counter() - t0
        with kb.db.session() as s:
            from sqlalchemy import select

            from core.db.models import Chunk

            texts = list(s.scalars(select(Chunk.text).order_by(Chunk.id)))
        kb.close()

    from sentence_transformers import SentenceTransformer

    raw = SentenceTransformer(str(packaged_path("all-MiniLM-L6-v2")), device="cpu")
    raw.encode(["warm up"])
    t1 = time.perf_counter()
    raw.encode(texts, batch_size=settings.embedder.batch_size, normalize_embeddings=True)
    raw_s = time.perf_counter() - t1

    files = len(report.results)
    hearth_rate = len(texts) / hearth_s
    raw_rate = len(texts) / raw_s
    print(
        f"# Ingest: {files} files, {len(texts)} chunks "
        f"(failed {report.count('failed')}, empty {report.count('empty')})\n"
    )
    print("| | seconds | chunks/s | files/s |")
    print("|---|---|---|---|")
    print(
        f"| Hearth ingest (load, chunk, embed, SQL + Chroma + FAISS) | {hearth_s:.1f} | "
        f"{hearth_rate:.1f} | {files / hearth_s:.1f} |"
    )
    print(f"| raw sentence-transformers encode, same texts | {raw_s:.1f} | {raw_rate:.1f} | |")
    print(f"| ratio Hearth / raw | | {hearth_rate / raw_rate:.3f} | |")
    note = f"{files} files, {len(texts)} chunks; raw = sentence-transformers encode"
    return [
        Figure(
            "ingest",
            "ingest + embed",
            hearth_rate,
            "chunks/s",
            raw_rate,
            better="higher",
            note=note,
        ),
        Figure("ingest", "files ingested", files / hearth_s, "files/s", better="higher"),
    ]


def main() -> None:
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
