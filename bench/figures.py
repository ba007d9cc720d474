"""Benchmark figures as data: each bench's ``run`` returns a list of Figure, which ``--json PATH``
writes and bench/run.py gathers into one table (markdown and JSON)."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

Better = Literal["higher", "lower", ""]


@dataclass
class Figure:
    """One measured figure. With ``raw`` it compares Hearth to the raw library measured in the
    same run: ``ratio`` is Hearth / raw (given explicitly when a better estimate than the ratio
    of the two values exists, e.g. a median of paired ratios), and ``better`` says which
    direction of the value, and so of the ratio, is better."""

    section: str
    name: str
    value: float | None
    unit: str = ""
    raw: float | None = None
    ratio: float | None = None
    better: Better = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.ratio is None and self.raw and self.value is not None:
            self.ratio = self.value / self.raw

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN and infinities become null)."""
        out = asdict(self)
        for key in ("value", "raw", "ratio"):
            v = out[key]
            if isinstance(v, float) and not math.isfinite(v):
                out[key] = None
        return out

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Figure:
        """Back from :meth:`to_dict`."""
        known: dict[str, Any] = {k: row[k] for k in cls.__dataclass_fields__ if k in row}
        return cls(**known)


def fmt(value: float | None) -> str:
    """A figure for a table: 4 significant digits, or blank."""
    if value is None:
        return ""
    if value == 0 or 0.001 <= abs(value) < 100_000:
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:.0f}"
    return f"{value:.3g}"


def ratio_cell(fig: Figure) -> str:
    """'0.97 (higher better)' for a comparison, blank otherwise."""
    if fig.ratio is None:
        return ""
    return f"{fig.ratio:.3f}" + (f" ({fig.better} better)" if fig.better else "")


def markdown_table(figures: list[Figure], with_section: bool = True) -> str:
    """section | figure | Hearth | raw | ratio Hearth/raw | unit / notes"""
    head = ["section"] if with_section else []
    head += ["figure", "Hearth", "raw", "ratio Hearth/raw", "unit / notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in figures:
        notes = ", ".join(x for x in (f.unit, f.note) if x).replace("|", "/")
        if not f.ratio and f.better:
            notes = ", ".join(x for x in (notes, f"{f.better} better") if x)
        cells = [f.section] if with_section else []
        cells += [f.name, fmt(f.value), fmt(f.raw), ratio_cell(f), notes]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """The ``--json PATH`` option every bench has."""
    parser.add_argument(
        "--json", type=Path, default=None, help="Also write the figures as JSON to this file."
    )


def write_json(path: Path | None, figures: list[Figure]) -> None:
    """Write ``{"figures": [...]}`` when a path was given."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"figures": [f.to_dict() for f in figures]}, indent=2) + "\n")


def read_json(path: Path) -> list[Figure]:
    """Figures written by :func:`write_json`."""
    return [Figure.from_dict(r) for r in json.loads(path.read_text())["figures"]]
