"""bench/run.py's report pieces without running a benchmark: figures and their ratios, the markdown
table, JSON round trip, a bench whose shared data is missing, and the plot."""

from __future__ import annotations

import json
from pathlib import Path

from bench.figures import Figure, markdown_table, read_json, write_json
from bench.plot import llm_rows, plot, retrieval_rows
from bench.run import Bench, render_markdown, run_bench


def sample() -> list[Figure]:
    figs = [
        Figure("llm smollm2-135m", "tokens/s", 30.0, "tokens/s", 40.0, better="higher"),
        Figure("llm smollm2-135m", "TTFT", 0.5, "s", 0.4, ratio=1.3, better="lower"),
        Figure("watch", "burst", 12.5, "files/s", better="higher", note="a | b"),
    ]
    for method, base in (("dense", 0.8), ("bm25", 0.82), ("hybrid", 0.9)):
        for i, metric in enumerate(("recall@5", "recall@10", "nDCG@10", "MRR")):
            figs.append(Figure("retrieval", f"{method} {metric}", base + i / 100, better="higher"))
    return figs


def test_ratio_is_hearth_over_raw_unless_given() -> None:
    figs = sample()
    assert figs[0].ratio == 0.75
    assert figs[1].ratio == 1.3
    assert figs[2].ratio is None
    assert Figure("x", "y", float("nan"), raw=1.0).to_dict()["value"] is None


def test_markdown_table_has_every_figure_and_direction() -> None:
    table = markdown_table(sample())
    lines = table.splitlines()
    assert lines[0] == "| section | figure | Hearth | raw | ratio Hearth/raw | unit / notes |"
    assert len(lines) == 2 + len(sample())
    assert "| llm smollm2-135m | tokens/s | 30 | 40 | 0.750 (higher better) | tokens/s |" in lines
    assert all(line.count("|") == 7 for line in lines)  # a "|" in a note cannot break a row


def test_json_round_trip(tmp_path: Path) -> None:
    write_json(tmp_path / "f.json", sample())
    assert read_json(tmp_path / "f.json") == sample()


def test_missing_shared_data_is_skipped_with_the_reason(tmp_path: Path) -> None:
    bench = Bench("voice", "voice", [], [tmp_path / "nowhere" / "transcripts.tsv"])
    outcome, figures = run_bench(bench, tmp_path, timeout=5)
    assert (outcome.status, figures) == ("skipped", [])
    assert "nowhere" in outcome.reason
    report = {
        "created": "now",
        "cpus": 2,
        "load_start": [1.0],
        "load_end": [1.0],
        "seconds": 61.0,
        "benches": [outcome.__dict__],
        "figures": [f.to_dict() for f in sample()],
    }
    md = render_markdown(report)
    assert "| voice | skipped | 0 | no shared data:" in md
    assert "Total wall time: 61 s" in md


def test_plot_draws_retrieval_and_llm_panels(tmp_path: Path) -> None:
    report = {"created": "now", "figures": [f.to_dict() for f in sample()]}
    report = json.loads(json.dumps(report))
    assert retrieval_rows(report["figures"])["hybrid"]["recall@10"] == 0.91
    assert set(llm_rows(report["figures"])["smollm2-135m"]) == {"tokens/s", "TTFT"}
    png = plot(report, tmp_path / "report.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 20_000
