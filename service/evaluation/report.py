"""The evaluation report: a text table for people, JSON for machines, and the file
``<data_dir>/eval/last.json``.

``last.json`` is a contract (the web UI reads it): version 1 has exactly the keys of
:meth:`EvalReport.as_dict`; fields may be added, never renamed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from core.errors import LoaderError, NotFoundError

REPORT_VERSION = 1
LAST_REPORT = Path("eval") / "last.json"

Shape = TypeVar("Shape", bound=Mapping[str, object])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class EvalReport:
    """What one ``hearth eval`` run measured.

    ``retrieval``: questions, recall@1/5/10, recall@k, mrr, ndcg@10 (and sources_not_found).
    ``answers``: None when no answers were generated, else questions, containment,
    abstention_accuracy, declined_unanswerable, declined_answerable, ttft_s and tokens_per_s
    ({median, p95}), and the answered samples.
    """

    gold: str
    kind: str
    collection: str | None
    model: str | None
    k: int
    retrieval: dict[str, Any]
    answers: dict[str, Any] | None
    seconds: float
    created: str = field(default_factory=_now)
    warnings: list[str] = field(default_factory=list)
    scratch: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (also the shape of ``last.json``)."""
        return {
            "version": REPORT_VERSION,
            "created": self.created,
            "gold": self.gold,
            "kind": self.kind,
            "collection": self.collection,
            "model": self.model,
            "k": self.k,
            "retrieval": self.retrieval,
            "answers": self.answers,
            "seconds": self.seconds,
            "warnings": self.warnings,
            "scratch": self.scratch,
        }

    def to_json(self) -> str:
        """Indented JSON."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def text(self) -> str:
        """The report as a text table."""
        r = self.retrieval
        where = f", collection {self.collection}" if self.collection else ""
        lines = [
            f"Evaluation of {self.gold} ({self.kind}{where})",
            "",
            f"Retrieval: {r['questions']} questions, documents ranked by their best chunk",
            f"  {'recall@1':28} {_f(r['recall@1'])}",
            f"  {'recall@5':28} {_f(r['recall@5'])}",
            f"  {'recall@10':28} {_f(r['recall@10'])}",
        ]
        if self.k not in (1, 5, 10):
            lines.append(f"  {f'recall@{self.k}':28} {_f(r['recall@k'])}")
        lines += [
            f"  {'MRR':28} {_f(r['mrr'])}",
            f"  {'nDCG@10':28} {_f(r['ndcg@10'])}",
        ]
        if r.get("sources_not_found"):
            lines.append(f"  {'sources not in catalogue':28} {r['sources_not_found']} (misses)")
        a = self.answers
        if a is None:
            lines += ["", "Answers: not evaluated (--no-answers)"]
        else:
            lines += [
                "",
                f"Answers: {a['questions']} questions, model {self.model}",
                f"  {'answer containment':28} {_f(a['containment'])}"
                + (
                    f" (of {a['with_expected']} with expected answers)"
                    if a.get("with_expected")
                    else ""
                ),
                f"  {'abstention accuracy':28} {_f(a['abstention_accuracy'])}",
                f"  {'unanswerable declined':28} {_f(a['declined_unanswerable'])}"
                + (f" (of {a['unanswerable']})" if a.get("unanswerable") else ""),
                f"  {'answerable declined':28} {_f(a['declined_answerable'])}"
                + (f" (of {a['answerable']})" if a.get("answerable") else ""),
                f"  {'time to first token (s)':28} median {_f(a['ttft_s']['median'], 2)}, "
                f"p95 {_f(a['ttft_s']['p95'], 2)}",
                f"  {'tokens/s':28} median {_f(a['tokens_per_s']['median'], 1)}, "
                f"p95 {_f(a['tokens_per_s']['p95'], 1)}",
            ]
        for w in self.warnings:
            lines.append(f"warning: {w}")
        lines += ["", f"took {self.seconds:.1f} s"]
        return "\n".join(lines)


def _f(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def last_report_path(data_dir: Path) -> Path:
    """Where the last report of a data directory is kept."""
    return data_dir / LAST_REPORT


def write_last(report: EvalReport, data_dir: Path) -> Path:
    """Write ``<data_dir>/eval/last.json`` atomically (a temporary file, then rename)."""
    path = last_report_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".last-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(report.to_json())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_last(data_dir: Path, shape: type[Shape]) -> Shape:
    """The last report of a data directory, decoded and checked against ``shape`` (a TypedDict
    naming the keys a reader relies on; other keys are dropped).

    Raises NotFoundError when no report was written, LoaderError (naming the file) when it cannot
    be read, is not a report of that shape, or has another :data:`REPORT_VERSION`.
    """
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
        report = msgspec.json.decode(raw, type=shape)
    except msgspec.DecodeError as exc:
        raise LoaderError(
            f"the last evaluation report {path} is not a valid report ({exc}); "
            "run `hearth eval` again"
        ) from exc
    version = report.get("version")
    if version != REPORT_VERSION:
        raise LoaderError(
            f"the last evaluation report {path} has version {version}, this Hearth "
            f"reads version {REPORT_VERSION}; run `hearth eval` again"
        )
    return report
