"""Helpers shared by the benchmarks: the shared data, BEIR sets, scratch data dirs (the metrics
are core/evalmetrics.py, shared with `hearth eval`)."""

from __future__ import annotations

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
    """corpus.jsonl, queries.jsonl and qrels, read by `hearth eval`'s reader
    (``service.evaluation.gold.load_beir``): the judged queries and their positive grades."""
    from service.evaluation.gold import load_beir as read_gold

    gold = read_gold(folder)
    queries = {q.id: q.question for q in gold.questions}
    qrels = {q.id: dict(q.relevance) for q in gold.questions}
    return BeirSet(gold.corpus, queries, qrels)


def rss_mib() -> float:
    """Peak resident set size of this process in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
