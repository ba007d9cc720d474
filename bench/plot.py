"""One PNG from bench/run.py's report.json: (a) retrieval quality per method (recall@5, recall@10,
nDCG@10 for dense, BM25, hybrid) and (b) tokens/s and time to first token, Hearth against raw
llama-cpp-python, per model measured.

    .venv/bin/python bench/plot.py [bench/out/report.json] [--png bench/out/report.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt

METHODS = ("dense", "bm25", "hybrid")
METRICS = ("recall@5", "recall@10", "nDCG@10")


def retrieval_rows(figures: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """{method: {metric: value}} from the retrieval figures ("dense recall@5", ...)."""
    out: dict[str, dict[str, float]] = {}
    for f in figures:
        if f["section"] != "retrieval" or f["value"] is None or " " not in f["name"]:
            continue
        method, metric = f["name"].split(" ", 1)
        if metric in METRICS:
            out.setdefault(method, {})[metric] = f["value"]
    return out


def llm_rows(figures: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """{model: {"tokens/s": figure, "TTFT": figure}} from the "llm MODEL" sections."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for f in figures:
        if f["section"].startswith("llm ") and f["name"] in ("tokens/s", "TTFT"):
            out.setdefault(f["section"][4:], {})[f["name"]] = f
    return out


def _bars(ax: Any, groups: list[str], series: dict[str, list[float]], fmt: str) -> None:
    """Grouped bars with their values written on top."""
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        bars = ax.bar(xs, values, width, label=label)
        ax.bar_label(bars, fmt=fmt, fontsize=7, padding=1)
    ax.set_xticks(range(len(groups)), groups)


def _empty(ax: Any, text: str) -> None:
    """A panel that says what is missing instead of empty axes."""
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=10, transform=ax.transAxes)


def plot(report: dict[str, Any], png: Path) -> Path:
    """Draw the figure and save it as ``png``."""
    figures = report["figures"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), layout="constrained")
    ret = retrieval_rows(figures)
    methods = [m for m in METHODS if m in ret] + sorted(set(ret) - set(METHODS))
    ax = axes[0]
    if methods:
        _bars(
            ax,
            methods,
            {m: [ret[meth].get(m, 0.0) for meth in methods] for m in METRICS},
            "%.3f",
        )
        lows = [v for meth in methods for v in ret[meth].values()]
        ax.set_ylim(max(0.0, min(lows) - 0.15), 1.08)
        note = next(
            (
                f["note"]
                for f in figures
                if f["section"] == "retrieval" and f["name"].endswith(METRICS) and f["note"]
            ),
            "",
        )
        ax.set_title(f"Retrieval quality per method\n{note}", fontsize=10)
        ax.legend(loc="upper center", ncol=len(METRICS), fontsize=8)
    else:
        _empty(ax, "Retrieval quality: not measured in this run")
    llm = llm_rows(figures)
    models = sorted(llm)
    for ax, key, unit, better in (
        (axes[1], "tokens/s", "tokens/s", "higher"),
        (axes[2], "TTFT", "seconds", "lower"),
    ):
        names = [m for m in models if key in llm[m]]
        rows = [llm[m][key] for m in names]
        if rows:
            _bars(
                ax,
                names,
                {
                    "Hearth": [r["value"] or 0.0 for r in rows],
                    "raw llama-cpp-python": [r["raw"] or 0.0 for r in rows],
                },
                "%.3g",
            )
            ratios = ", ".join(
                f"{n} {r['ratio']:.2f}" for n, r in zip(names, rows, strict=True) if r["ratio"]
            )
            ax.set_title(
                f"{'Time to first token' if key == 'TTFT' else 'Generation speed'} "
                f"({better} is better)\nHearth/raw: {ratios}",
                fontsize=10,
            )
            ax.set_ylabel(unit)
            ax.set_ylim(0, 1.25 * max(max(r["value"] or 0.0, r["raw"] or 0.0) for r in rows) or 1)
            ax.legend(fontsize=8, loc="upper center", ncol=2)  # in the headroom, over no bar
        else:
            _empty(ax, f"LLM {key}: not measured in this run")
    fig.suptitle(f"Hearth benchmarks, {report.get('created', '')}", fontsize=11)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "report", type=Path, nargs="?", default=Path(__file__).parent / "out" / "report.json"
    )
    parser.add_argument("--png", type=Path, default=None, help="Default: report.png beside it.")
    args = parser.parse_args()
    report = json.loads(args.report.read_text())
    print(plot(report, args.png or args.report.with_name("report.png")))


if __name__ == "__main__":
    main()
