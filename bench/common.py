"""Helpers shared by the benchmarks: the shared data, BEIR sets, metrics, scratch data dirs."""

from __future__ import annotations

import csv
import json
import math
import os
import resource
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HEARTH_SHARED_DATA", REPO.parent / "shared" / "data"))


@dataclass
class BeirSet:
    """A BEIR-format retrieval set: corpus, queries and graded judgments."""

    corpus: dict[str, dict[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_beir(folder: Path) -> BeirSet:
    """Read corpus.jsonl, queries.jsonl and qrels/test.tsv."""
    corpus = {}
    for line in (folder / "corpus.jsonl").read_text().splitlines():
        row = json.loads(line)
        corpus[row["_id"]] = {"title": row.get("title", ""), "text": row["text"]}
    queries = {}
    for line in (folder / "queries.jsonl").read_text().splitlines():
        row = json.loads(line)
        queries[row["_id"]] = row["text"]
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels" / "test.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return BeirSet(corpus, queries, qrels)


def recall_at(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    """Share of the relevant documents found in the top k."""
    hits = sum(1 for d in ranked[:k] if relevant.get(d, 0) > 0)
    return hits / max(1, sum(1 for v in relevant.values() if v > 0))


def ndcg_at(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    """nDCG@k with graded gains."""
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def rss_mib() -> float:
    """Peak resident set size of this process in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
