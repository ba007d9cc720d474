"""The last evaluation report: what `hearth eval` wrote to ``<data_dir>/eval/last.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, TypedDict

from litestar import Controller, get
from litestar.datastructures import State
from litestar.params import KwargDefinition

from service.evaluation.report import read_last

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


class LastReport(TypedDict):
    """The last `hearth eval` run: gold set, retrieval figures, answer figures (if answered).

    The part of :class:`service.evaluation.report.EvalReport` (as ``last.json`` holds it) this
    route promises; documented under the name ``EvalReport``."""

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


# The name the OpenAPI document has always given this body (its component key and title).
_SCHEMA_NAME = "EvalReport"
setattr(LastReport, "__schema_name__", _SCHEMA_NAME)  # noqa: B010 (a TypedDict body holds only keys)


class EvaluationController(Controller):
    """Results of `hearth eval` for the web UI."""

    path = "/api/eval"
    tags = ["system"]

    @get("/last", sync_to_thread=True)
    def last(
        self, state: State
    ) -> Annotated[LastReport, KwargDefinition(schema_component_key=_SCHEMA_NAME)]:
        """The last evaluation report (retrieval recall@k, MRR, nDCG@10; answer containment,
        abstention, time to first token and tokens/s), as `hearth eval` wrote it. 404 when no
        evaluation has been run; 422 when the stored report is unreadable."""
        return read_last(Path(state.hearth.settings.data_dir), LastReport)
