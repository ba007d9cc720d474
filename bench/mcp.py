"""The cost of MCP on top of a search: the `search` tool over stdio (`hearth mcp`) and over
streamable HTTP (/mcp of `hearth serve`) against the same search as a Python call, on the same
questions (SQuAD dev from ../shared/data, a scratch library of its paragraphs).

    .venv/bin/python bench/mcp.py                     # 200 paragraphs, 100 questions
    .venv/bin/python bench/mcp.py --questions 40 --json bench/out/mcp.json

The Python call is the tool's own body (``service.mcp.tools.run_search``: filters, hybrid
retrieval, the result model) in this process; the MCP rows add the SDK client, JSON-RPC, the
transport and the server's thread hop. The three ways run at once, each on its own copy of the
library, and take turns on every question (their order rotated), so a busy machine slows all
three alike; the note gives the paired overhead (median of per-question differences). The
``list_documents`` rows (one document: next to no work) show the transport's own floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

import anyio
import httpx

REPO = Path(__file__).resolve().parents[1]
# Run as a script, this file's folder comes first on the path and this file would shadow the
# SDK's ``mcp`` package: the repository root takes its place.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.common import SHARED, load_beir  # noqa: E402
from bench.figures import Figure, add_json_option, markdown_table, write_json  # noqa: E402

SQUAD = SHARED / "retrieval" / "squad_dev"
MODEL = "smollm2-135m"  # loaded by the servers, never asked
WARMUP = 5
Times = dict[tuple[str, str], list[float]]


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, round(pct / 100 * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def build_library(root: Path, paragraphs: int, questions: int) -> list[str]:
    """Write the first ``paragraphs`` SQuAD paragraphs as files, ingest them with the CLI, and
    return questions whose answer is among them."""
    beir = load_beir(SQUAD)
    ids = list(beir.corpus)[:paragraphs]
    docs = root / "docs"
    docs.mkdir()
    for cid in ids:
        doc = beir.corpus[cid]
        (docs / f"{cid}.txt").write_text(f"{doc.get('title', '')}\n{doc['text']}\n")
    kept = set(ids)
    asked = [q for qid, q in beir.queries.items() if set(beir.qrels.get(qid, {})) & kept]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "--data-dir",
            str(root / "data"),
            "ingest",
            "-q",
            str(docs),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"ingest failed: {done.stderr[-2000:]}")
    return asked[:questions]


def env_for(data_dir: Path) -> dict[str, str]:
    """The environment of a Hearth subprocess on ``data_dir`` (no other HEARTH_ setting)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEARTH_")}
    env.update(HEARTH_DATA_DIR=str(data_dir), HEARTH_LLM__WARMUP="false")
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], limit_s: float = 300) -> None:
    """Until ``/api/health`` answers (bounded)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"hearth serve exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("hearth serve did not become healthy")


#: What is timed: the tool's arguments for a question, and the Python call doing the same.
CALLS: dict[str, Callable[[str], dict[str, Any]]] = {
    "search": lambda q: {"query": q},
    "list_documents": lambda q: {"limit": 1},
}


def python_call(hearth: Any, tool: str, q: str) -> None:
    """The tool's own body, in this process."""
    from service.mcp.tools import list_page, run_search

    if tool == "search":
        run_search(hearth, q)
    else:
        list_page(hearth, None, 0, 1)


async def measure(hearth: Any, clients: dict[str, Any], questions: list[str]) -> Times:
    """Per tool and way (python, mcp stdio, mcp http): seconds per question, the ways taken in
    turn for each question (their order rotated), after warm-up calls."""

    async def one(way: str, tool: str, q: str) -> float:
        t0 = time.perf_counter()
        if way == "python":
            python_call(hearth, tool, q)
        else:
            result = await clients[way].call_tool(tool, CALLS[tool](q))
            if result.is_error:
                raise SystemExit(f"{tool} over {way} failed: {result.content}")
        return time.perf_counter() - t0

    ways = ["python", *clients]
    times: Times = {(tool, way): [] for tool in CALLS for way in ways}
    for tool in CALLS:
        for q in questions[:WARMUP]:
            for way in ways:
                await one(way, tool, q)
        for i, q in enumerate(questions):
            for way in ways[i % len(ways) :] + ways[: i % len(ways)]:
                times[(tool, way)].append(await one(way, tool, q))
    return times


def run(paragraphs: int, questions: int) -> list[Figure]:
    """One scratch library, copied for each server; the figures (ms)."""
    from mcp import Client, StdioServerParameters

    from core.settings import load_settings
    from service.state import Hearth

    with tempfile.TemporaryDirectory(prefix="hearth-bench-mcp-") as tmp:
        root = Path(tmp)
        asked = build_library(root, paragraphs, questions)
        for copy in ("stdio", "http"):  # each process its own copy: no shared store files
            shutil.copytree(root / "data", root / copy)
        settings = load_settings(data_dir=root / "data")
        settings.llm.model, settings.llm.warmup = MODEL, False
        hearth = Hearth.start(settings)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        serve = [sys.executable, "-m", "service.cli", "--model", MODEL, "serve"]
        proc = subprocess.Popen(
            [*serve, "--port", str(port)],
            cwd=REPO,
            env=env_for(root / "http"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "service.cli", "--model", MODEL, "mcp"],
            env=env_for(root / "stdio"),
            cwd=str(REPO),
        )
        try:
            wait_healthy(url, proc)

            async def main() -> Times:
                async with (
                    Client(params, read_timeout_seconds=600) as stdio,
                    Client(f"{url}/mcp", read_timeout_seconds=600) as http,
                ):
                    return await measure(hearth, {"mcp stdio": stdio, "mcp http": http}, asked)

            times = anyio.run(main)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            hearth.close()
    return figures_of(times)


def figures_of(times: Times) -> list[Figure]:
    """p50 per tool and way against the Python call's, with p95 and the paired overhead (median
    of per-question differences) in the note."""
    figures = []
    for (tool, way), values in times.items():
        base = times[(tool, "python")]
        p50, raw = median(values) * 1000, median(base) * 1000
        note = f"p95 {percentile(values, 95) * 1000:.2f} ms"
        if way != "python":
            paired = median(v - b for v, b in zip(values, base, strict=True)) * 1000
            note += f"; overhead p50 {p50 - raw:+.2f} ms, paired {paired:+.2f} ms"
        figures.append(
            Figure(
                f"mcp {tool}",
                f"{tool}: {way} p50",
                round(p50, 2),
                "ms",
                round(raw, 2),
                better="lower",
                note=note,
            )
        )
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=200, help="SQuAD paragraphs ingested.")
    parser.add_argument("--questions", type=int, default=100, help="Questions asked per phase.")
    add_json_option(parser)
    args = parser.parse_args(argv)
    if not SQUAD.is_dir():
        print(f"skipped: {SQUAD} is missing", file=sys.stderr)
        return
    figures = run(args.paragraphs, args.questions)
    print(markdown_table(figures, with_section=False))
    write_json(args.json, figures)


if __name__ == "__main__":
    main()
