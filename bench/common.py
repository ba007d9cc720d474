"""Helpers shared by the benchmarks: the shared data, BEIR sets, scratch data dirs (the metrics
are core/evalmetrics.py, shared with `hearth eval`)."""

from __future__ import annotations

import csv
import json
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


def rss_mib() -> float:
    """Peak resident set size of this process in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
