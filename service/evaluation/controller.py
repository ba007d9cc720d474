"""The last evaluation report: what `hearth eval` wrote to ``<data_dir>/eval/last.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypedDict

import msgspec
from litestar import Controller, get
from litestar.datastructures import State

from core.errors import LoaderError, NotFoundError
from service.evaluation.report import LAST_REPORT, REPORT_VERSION

# The figures are keyed as `hearth eval` writes them ("recall@5"), so the functional TypedDict form.
RetrievalFigures = TypedDict(
    "RetrievalFigures",
    {
        "questions": int,
        "recall@1": float,
        "recall@5": float,
        "recall@10": float,
        "recall@k": float,
        "mrr": float,
        "ndcg@10": float,
    },
)


class Spread(TypedDict):
    """Median and 95th percentile of a per-answer figure."""

    median: float
    p95: float


class AnswerFigures(TypedDict):
    """How the assistant answered the gold questions (shares in 0..1, or null when not asked)."""

    questions: int
    containment: float | None
    abstention_accuracy: float | None
    declined_unanswerable: float | None
    declined_answerable: float | None
    ttft_s: Spread
    tokens_per_s: Spread


class EvalReport(TypedDict):
    """The last `hearth eval` run: gold set, retrieval figures, answer figures (if answered)."""

    version: int
    created: str
    gold: str
    kind: Literal["jsonl", "beir"]
    collection: str | None
    model: str | None
    k: int
    retrieval: RetrievalFigures
    answers: AnswerFigures | None
    seconds: float


def last_report_path(data_dir: Path) -> Path:
    """Where `hearth eval` keeps its last report."""
    return data_dir / LAST_REPORT


def read_last_report(data_dir: Path) -> EvalReport:
    """The last report; NotFoundError when none was written, LoaderError when it is unusable."""
    path = last_report_path(data_dir)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise NotFoundError(
            "no evaluation has been run yet; run `hearth eval GOLD.jsonl`"
        ) from None
    except OSError as exc:
        raise LoaderError(f"the last evaluation report {path} cannot be read: {exc}") from exc
    try:
        report = msgspec.json.decode(raw, type=EvalReport)
    except msgspec.DecodeError as exc:
        raise LoaderError(
            f"the last evaluation report {path} is not a valid report ({exc}); "
            "run `hearth eval` again"
        ) from exc
    if report["version"] != REPORT_VERSION:
        raise LoaderError(
            f"the last evaluation report {path} has version {report['version']}, this Hearth "
            f"reads version {REPORT_VERSION}; run `hearth eval` again"
        )
    return report


class EvaluationController(Controller):
    """Results of `hearth eval` for the web UI."""

    path = "/api/eval"
    tags = ["system"]

    @get("/last", sync_to_thread=True)
    def last(self, state: State) -> EvalReport:
        """The last evaluation report (retrieval recall@k, MRR, nDCG@10; answer containment,
        abstention, time to first token and tokens/s), as `hearth eval` wrote it. 404 when no
        evaluation has been run; 422 when the stored report is unreadable."""
        return read_last_report(Path(state.hearth.settings.data_dir))
