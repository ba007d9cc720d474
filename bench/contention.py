"""Answers on a busy machine: raw llama-cpp-python against Hearth's answer path (before and after
issue 36), quiet and beside other programs, in one run.

Subjects (each a long-lived process with the default model loaded once, n_ctx 1024):

- ``raw1``, ``raw2``: llama-cpp-python's ``Llama`` with 1 or 2 threads, the environment as given
  (libgomp's own spin-wait);
- ``before``: Hearth's runtime (``LlamaCppRuntime``, as ``hearth serve``/``hearth ask`` build it)
  as it was: ``threads.adaptive = false`` and ``GOMP_SPINCOUNT=300000`` (libgomp's default);
- ``after``: Hearth's runtime with today's defaults (threads from the cores other programs leave
  free, OpenMP's spin bounded at ``core`` import).

Loads, each started and stopped by the bench: ``quiet``; ``loop1``/``loop2``: one or two plain
``while True: pass`` processes; ``llama``: a second llama.cpp process (raw, every core, default
environment) generating without pause. Every subject answers the same prompt (a SQuAD paragraph
and its question, about ``--prompt-tokens`` tokens, evaluated whole each time) ``--reps`` times
per load, the subjects taking turns so that they see the same machine. Figures: prompt
evaluation tokens/s (llama.cpp's own counters), generation tokens/s (wall clock after the first
token), TTFT, each as a median and as a ratio to the same subject's quiet median; the threads an
``after`` answer chose; the load average before each load; the competing processes' CPU share
and the rest of the machine's (other people's programs) from /proc during the runs.

A generation stops after ``--cap-s`` seconds (tokens/s counts what it wrote by then).

    .venv/bin/python bench/contention.py [--reps 3] [--loads quiet,loop1,loop2,llama]
        [--subjects raw1,raw2,before,after] [--out bench/out/contention]

``--serve``: ``hearth serve`` (a scratch data dir with ../shared/data/docs ingested, kept in
``--out``) answers the shared documents' questions of bench/answers.py quiet, then beside
``--serve-load`` (a fresh server each time, so both start with the same KV cache), and prints
each phase's median TTFT and its ratio to quiet.

    .venv/bin/python bench/contention.py --serve [--serve-load llama] [--modes after]
"""

from __future__ import annotations

import os

#: The environment as given, before anything imports ``core`` (which bounds OpenMP's spin-wait
#: in its own process): every subject's environment is built from it.
GIVEN_ENV = dict(os.environ)

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SPIN_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
SUBJECTS = ("raw1", "raw2", "before", "after")
LOADS = ("quiet", "loop1", "loop2", "llama")
N_CTX = 1024
CLK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- workers (subprocesses)


def _prompt(tokens: int) -> list[dict[str, str]]:
    """A SQuAD paragraph (or several) of about ``tokens`` tokens (4 characters each) and a
    question on the first; the same for every subject."""
    from bench.common import SHARED

    rows = [json.loads(line) for line in (SHARED / "qa" / "squad2_dev_answerable.jsonl").open()]
    first = rows[0]
    text, seen = "", set()
    for row in rows:
        if row["context"] in seen:
            continue
        seen.add(row["context"])
        text += row["context"] + "\n\n"
        if len(text) >= tokens * 4:
            break
    return [
        {"role": "system", "content": "Answer from the passages, in full sentences."},
        {"role": "user", "content": f"{text[: tokens * 4]}\n\nQuestion: {first['question']}"},
    ]


class RawSubject:
    """llama-cpp-python's Llama with ``threads`` threads."""

    def __init__(self, path: str, threads: int, n_batch: int) -> None:
        from llama_cpp import Llama

        self.llm = Llama(
            model_path=path,
            n_ctx=N_CTX,
            n_threads=threads,
            n_threads_batch=threads,
            n_batch=n_batch,
            n_ubatch=n_batch,
            verbose=False,
        )
        self.ctx = self.llm._ctx.ctx

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Any:
        self.llm.reset()  # type: ignore[no-untyped-call]
        return self.llm.create_chat_completion(
            messages=messages,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=0.0,
            seed=0,
            stream=True,
        )

    def close(self, stream: Any) -> None:
        stream.close()

    def info(self) -> dict[str, Any]:
        return {}


class HearthSubject:
    """Hearth's runtime, built from settings as the server builds it (no saved KV states, so
    each prompt is evaluated whole)."""

    def __init__(self, model: str, adaptive: bool) -> None:
        from core.settings import load_settings
        from service.llm.runtimes.llama_cpp import LlamaCppRuntime

        settings = load_settings()
        settings.threads.adaptive = adaptive
        from core.threads import configure

        t = settings.threads
        configure(t.cores, t.answer_cores, t.share, t.adaptive, t.prompt_every_core)
        from core.bundled import resolve_llm

        config = settings.llm.model_copy(update={"prompt_cache_mib": 0, "n_ctx": N_CTX})
        self.runtime = LlamaCppRuntime(model, resolve_llm(model, settings.models_dir), config)
        self.ctx = self.runtime._llm._ctx.ctx

    def stream(self, messages: list[dict[str, str]], max_tokens: int) -> Any:
        from service.llm.base import SamplingParams

        self.runtime._llm.reset()
        params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=max_tokens, seed=0)
        self._stop = threading.Event()
        return self.runtime.stream_chat(messages, params, self._stop)  # type: ignore[arg-type]

    def close(self, stream: Any) -> None:
        self._stop.set()
        stream.close()

    def info(self) -> dict[str, Any]:
        stats = self.runtime.prompt_stats()
        if stats is None:
            return {}
        return {
            "threads": stats.threads,
            "generation_threads": stats.generation_threads,
            "cores_busy": stats.cores_busy,
        }


def _piece_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    return str(part["choices"][0]["delta"].get("content") or "")


def run_once(
    subject: Any, messages: list[dict[str, str]], max_tokens: int, cap_s: float
) -> dict[str, Any]:
    """One answer: TTFT, prompt evaluation and generation tokens/s, and what the subject saw."""
    import llama_cpp

    llama_cpp.llama_perf_context_reset(subject.ctx)
    started = time.perf_counter()
    first: float | None = None
    pieces = 0
    stream = subject.stream(messages, max_tokens)
    capped = False
    try:
        for part in stream:
            if not _piece_text(part):
                continue
            pieces += 1
            now = time.perf_counter()
            if first is None:
                first = now
            if now - first > cap_s:  # the generation, not the prompt
                capped = True
                break
    finally:
        subject.close(stream)
    end = time.perf_counter()
    perf = llama_cpp.llama_perf_context(subject.ctx)
    prompt_s = perf.t_p_eval_ms / 1000
    return {
        "ttft_s": round((first or end) - started, 3),
        "prompt_tokens": int(perf.n_p_eval),
        "prompt_tps": round(perf.n_p_eval / prompt_s, 2) if prompt_s > 0 else 0.0,
        "gen_tokens": pieces,
        "gen_tps": round((pieces - 1) / (end - first), 3) if first and pieces > 1 else 0.0,
        "capped": capped,
        **subject.info(),
    }


def worker(args: argparse.Namespace) -> None:
    """Serve ``run`` lines on stdin with one JSON line each on stdout (after ``ready``)."""
    if args.worker == "raw":
        subject: Any = RawSubject(args.model_path, args.threads, args.n_batch)
    else:
        subject = HearthSubject(args.model, adaptive=args.worker != "before")
    messages = _prompt(args.prompt_tokens)
    run_once(subject, messages, 4, args.cap_s)  # warm-up: pages in, buffers allocated
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        print(json.dumps(run_once(subject, messages, args.max_tokens, args.cap_s)), flush=True)


def neighbour(args: argparse.Namespace) -> None:
    """A second llama.cpp process: generates without pause until killed."""
    raw = RawSubject(args.model_path, args.threads, args.n_batch)
    messages = _prompt(args.prompt_tokens)
    announced = False
    while True:
        stream = raw.stream(messages, 64)
        for _ in stream:
            if not announced:
                print(json.dumps({"ready": True}), flush=True)
                announced = True
        stream.close()


# ---------------------------------------------------------------- the bench (main process)


def subject_env(name: str) -> dict[str, str]:
    """The environment of subject ``name``: as given, but ``before`` with libgomp's default
    spin count spelled out (``core`` then leaves it alone) and Hearth's adaptive threads off."""
    env = {k: v for k, v in GIVEN_ENV.items()}
    env["PYTHONPATH"] = str(REPO)
    if name == "before":
        env.setdefault("GOMP_SPINCOUNT", "300000")
        env["HEARTH_THREADS__ADAPTIVE"] = "false"
    if name == "every":  # today's defaults, but prompts read on every core whatever the load
        env["HEARTH_THREADS__PROMPT_EVERY_CORE"] = "true"
    return env


@dataclass
class Proc:
    """A child process of the bench (a subject, a load, a server)."""

    name: str
    popen: subprocess.Popen[Any]

    def cpu_ticks(self) -> int:
        """utime + stime of the process and its waited-for children, in clock ticks."""
        try:
            fields = Path(f"/proc/{self.popen.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0
        return int(fields[11]) + int(fields[12])

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait(timeout=30)


def _read_ready(proc: subprocess.Popen[str], what: str, timeout_s: float = 600) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{what} exited before it was ready (code {proc.poll()})")
        if line.strip().startswith("{") and json.loads(line).get("ready"):
            return
    raise RuntimeError(f"{what} not ready within {timeout_s} s")


def _worker_cmd(args: argparse.Namespace, *extra: str) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--model-path",
        args.model_path,
        "--model",
        args.model,
        "--prompt-tokens",
        str(args.prompt_tokens),
        "--max-tokens",
        str(args.max_tokens),
        "--cap-s",
        str(args.cap_s),
        "--n-batch",
        str(args.n_batch),
        *extra,
    ]


def start_subject(args: argparse.Namespace, name: str) -> Proc:
    if name.startswith("raw"):
        extra = ["--worker", "raw", "--threads", name[3:]]
    else:
        extra = ["--worker", name]
    popen = subprocess.Popen(
        _worker_cmd(args, *extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=subject_env(name),
        cwd=REPO,
    )
    _read_ready(popen, name)
    return Proc(name, popen)


def start_load(args: argparse.Namespace, load: str) -> list[Proc]:
    """The competing processes of ``load`` (running when this returns)."""
    if load == "quiet":
        return []
    if load.startswith("loop"):
        code = "while True: pass"
        return [
            Proc(f"loop{i}", subprocess.Popen([sys.executable, "-c", code], text=True))
            for i in range(int(load[4:]))
        ]
    extra = ["--neighbour", "--threads", str(args.neighbour_threads)]
    popen = subprocess.Popen(
        _worker_cmd(args, *extra), stdout=subprocess.PIPE, text=True, env=subject_env("raw")
    )
    _read_ready(popen, "the llama.cpp neighbour")
    return [Proc("llama neighbour", popen)]


def machine_ticks() -> tuple[int, int]:
    """(busy, total) ticks of every CPU of the machine."""
    from core.cpuload import affinity, parse_proc_stat

    return parse_proc_stat(Path("/proc/stat").read_text(), affinity())


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Cell:
    """Every run of one subject under one load."""

    runs: list[dict[str, Any]] = field(default_factory=list)

    def median(self, key: str) -> float:
        values = [float(r[key]) for r in self.runs if r.get(key) is not None]
        return statistics.median(values) if values else 0.0


def measure(subject: Proc, competitors: list[Proc]) -> dict[str, Any]:
    """One answer from ``subject``, with the CPU the competitors and everyone else used."""
    assert subject.popen.stdin is not None and subject.popen.stdout is not None
    own0, comp0 = subject.cpu_ticks(), sum(c.cpu_ticks() for c in competitors)
    busy0, total0 = machine_ticks()
    t0 = time.monotonic()
    subject.popen.stdin.write("run\n")
    subject.popen.stdin.flush()
    line = subject.popen.stdout.readline()
    if not line:
        raise RuntimeError(f"{subject.name} exited (code {subject.popen.poll()})")
    row: dict[str, Any] = json.loads(line)
    wall = time.monotonic() - t0
    busy1, _ = machine_ticks()
    own = subject.cpu_ticks() - own0
    comp = sum(c.cpu_ticks() for c in competitors) - comp0
    row["competitors_cores"] = round(comp / CLK / wall, 2)
    row["subject_cores"] = round(own / CLK / wall, 2)
    row["rest_cores"] = round(max(0, (busy1 - busy0) - own - comp) / CLK / wall, 2)
    del total0
    return row


def run_table(args: argparse.Namespace) -> dict[str, Any]:
    subjects = [s for s in args.subjects.split(",") if s]
    loads = [x for x in args.loads.split(",") if x]
    print(f"starting {', '.join(subjects)} (load average {loadavg()})", flush=True)
    procs = {name: start_subject(args, name) for name in subjects}
    cells: dict[tuple[str, str], Cell] = {}
    context: dict[str, dict[str, Any]] = {}
    try:
        for load in loads:
            before = loadavg()
            competitors = start_load(args, load)
            time.sleep(args.settle_s)  # the load is seen by the watcher's window
            started = time.monotonic()
            try:
                for rep in range(args.reps):
                    order = subjects[rep % len(subjects) :] + subjects[: rep % len(subjects)]
                    for name in order:
                        # The previous subject's answer leaves the watcher's window first: the
                        # subjects are the bench, not the machine's other programs.
                        time.sleep(args.gap_s)
                        row = measure(procs[name], competitors)
                        cells.setdefault((load, name), Cell()).runs.append(row)
                        print(f"  {load:6} {name:7} {json.dumps(row)}", flush=True)
            finally:
                for c in competitors:
                    c.stop()
            context[load] = {
                "load_average_before": before,
                "seconds": round(time.monotonic() - started, 1),
            }
    finally:
        for p in procs.values():
            p.stop()
    return {"cells": cells, "context": context, "subjects": subjects, "loads": loads}


KEYS = ("prompt_tps", "gen_tps", "ttft_s")


def summarise(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (load, subject): medians, ratios to the subject's quiet medians."""
    cells: dict[tuple[str, str], Cell] = result["cells"]
    rows = []
    for load in result["loads"]:
        for name in result["subjects"]:
            cell = cells.get((load, name))
            if cell is None:
                continue
            quiet = cells.get(("quiet", name))
            row: dict[str, Any] = {"load": load, "subject": name, "n": len(cell.runs)}
            for key in KEYS:
                row[key] = round(cell.median(key), 3)
                base = quiet.median(key) if quiet else 0.0
                row[f"{key}_ratio"] = round(row[key] / base, 3) if base else None
            for key in ("threads", "cores_busy", "competitors_cores", "rest_cores"):
                values = [r[key] for r in cell.runs if r.get(key) is not None]
                row[key] = statistics.median(values) if values else None
            row["capped"] = sum(bool(r.get("capped")) for r in cell.runs)
            rows.append(row)
    return rows


def best_raw_ratio(rows: list[dict[str, Any]], load: str, key: str) -> float | None:
    """The best raw thread count's figure under ``load`` over the best raw quiet figure."""
    raw = [r for r in rows if r["subject"].startswith("raw")]
    loaded = [r[key] for r in raw if r["load"] == load]
    quiet = [r[key] for r in raw if r["load"] == "quiet"]
    if not loaded or not quiet or not max(quiet):
        return None
    return round(float(max(loaded)) / float(max(quiet)), 3)


def checks(rows: list[dict[str, Any]]) -> list[str]:
    """The issue's targets, each PASS or FAIL with its figures."""
    by = {(r["load"], r["subject"]): r for r in rows}
    out = []
    after_q, before_q = by.get(("quiet", "after")), by.get(("quiet", "before"))
    if after_q and before_q:
        for key in ("prompt_tps", "gen_tps"):
            ratio = after_q[key] / before_q[key] if before_q[key] else 0.0
            out.append(
                f"{'PASS' if ratio >= 0.95 else 'FAIL'} quiet {key}: after {after_q[key]} / "
                f"before {before_q[key]} = {ratio:.3f} (>= 0.95)"
            )
    for load, target in (("loop1", 0.45), ("llama", 0.30)):
        row = by.get((load, "after"))
        if row is None:
            continue
        for key in ("prompt_tps", "gen_tps"):
            ratio = row[f"{key}_ratio"] or 0.0
            raw = best_raw_ratio(rows, load, key)
            bar = max(target, raw or 0.0)
            out.append(
                f"{'PASS' if ratio >= bar else 'FAIL'} {load} {key}: after {ratio:.3f} of quiet "
                f"(>= {target}; raw llama.cpp's best thread count {raw})"
            )
    return out


def _fmt(row: dict[str, Any], key: str, digits: int = 2) -> str:
    value = row.get(key)
    return "" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of ``summarise``'s rows."""
    head = (
        "| load | subject | prompt tok/s | x quiet | generation tok/s | x quiet | TTFT s | "
        "x quiet | threads | busy elsewhere (seen) | competitors' CPU | rest of machine | n |"
    )
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        capped = f" ({r['capped']} capped)" if r["capped"] else ""
        cols = [
            r["load"],
            r["subject"],
            _fmt(r, "prompt_tps", 1),
            _fmt(r, "prompt_tps_ratio"),
            _fmt(r, "gen_tps"),
            _fmt(r, "gen_tps_ratio"),
            _fmt(r, "ttft_s"),
            _fmt(r, "ttft_s_ratio"),
            "" if r["threads"] is None else str(r["threads"]),
            _fmt(r, "cores_busy"),
            _fmt(r, "competitors_cores"),
            _fmt(r, "rest_cores"),
            f"{r['n']}{capped}",
        ]
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], loads: list[str], subjects: list[str], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    by = {(r["load"], r["subject"]): r for r in rows}
    width = 0.8 / max(1, len(subjects))
    for ax, key, title in (
        (axes[0], "prompt_tps", "prompt evaluation, tokens/s"),
        (axes[1], "gen_tps", "generation, tokens/s"),
    ):
        for i, name in enumerate(subjects):
            xs = [g + (i - (len(subjects) - 1) / 2) * width for g in range(len(loads))]
            values = [by.get((load, name), {}).get(key, 0.0) or 0.0 for load in loads]
            bars = ax.bar(xs, values, width, label=name)
            ratios = [by.get((load, name), {}).get(f"{key}_ratio") for load in loads]
            ax.bar_label(bars, [f"{r:.2f}x" if r else "" for r in ratios], fontsize=6, padding=1)
        ax.set_xticks(range(len(loads)), loads)
        ax.set_title(title)
        ax.legend(fontsize=7)
    fig.suptitle("Answers beside other programs (bars: medians; labels: ratio to quiet)")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


# ---------------------------------------------------------------- --serve


def serve_data(out: Path) -> Path:
    """A data dir with ../shared/data/docs ingested (made once, kept in ``out``)."""
    from bench.common import SHARED

    data = out / "serve-data"
    marker = data / "ingested.done"
    if not marker.exists():
        env = {**subject_env("after"), "HEARTH_DATA_DIR": str(data)}
        subprocess.run(
            [sys.executable, "-m", "service.cli", "ingest", "-q", str(SHARED / "docs")],
            env=env,
            cwd=REPO,
            check=True,
        )
        marker.write_text("done\n")
    return data


def start_server(args: argparse.Namespace, data: Path, mode: str) -> tuple[Proc, str]:
    """`hearth serve` of subject ``mode`` (its environment from the one given, see
    ``subject_env``), output appended to ``serve-MODE.log``, once healthy (600 s at most)."""
    from bench.common import serve

    log = (args.out / f"serve-{mode}.log").open("ab")
    url, popen = serve(
        data, "--model", args.model, base_env=subject_env(mode), timeout=600, log=log
    )
    return Proc(f"serve {mode}", popen), url


def ask(url: str, question: str) -> dict[str, Any]:
    """One question through /api/ask/stream: TTFT at the first token event, and the answer's
    own timings."""
    import httpx

    started = time.perf_counter()
    ttft = None
    done: dict[str, Any] = {}
    event = ""
    with httpx.stream(
        "POST", f"{url}/api/ask/stream", json={"question": question}, timeout=600
    ) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                if event == "token" and ttft is None:
                    ttft = time.perf_counter() - started
                elif event == "done":
                    done = json.loads(line[5:])
    timings = done.get("timings", {})
    return {
        "ttft_s": round(ttft or (time.perf_counter() - started), 3),
        "answer": str(done.get("answer", ""))[:80],
        **{
            k: timings.get(k)
            for k in (
                "threads",
                "generation_threads",
                "cores_busy",
                "tokens_per_s",
                "prompt_new_tokens",
            )
        },
    }


def run_serve(args: argparse.Namespace) -> None:
    from bench.answers import DOC_QUESTIONS

    data = serve_data(args.out)
    questions = [q for q, _, _ in DOC_QUESTIONS][: args.questions]
    phases: dict[str, list[dict[str, Any]]] = {}
    for mode in [m for m in args.modes.split(",") if m]:
        for load in ("quiet", args.serve_load):
            before = loadavg()
            competitors = start_load(args, load)
            server, url = start_server(args, data, mode)
            try:
                time.sleep(args.settle_s)
                rows = []
                for q in questions:
                    row = ask(url, q)
                    rows.append(row)
                    print(f"  {mode:6} {load:6} {json.dumps(row)}", flush=True)
            finally:
                server.stop()
                for c in competitors:
                    c.stop()
            phases[f"{mode} {load}"] = rows
            ttft = statistics.median(r["ttft_s"] for r in rows)
            print(f"{mode} {load}: median TTFT {ttft:.2f} s (load average before {before})")
    lines = [
        "| server | load | median TTFT s | x quiet | threads (median) |",
        "|---|---|---|---|---|",
    ]
    verdicts = []
    for mode in [m for m in args.modes.split(",") if m]:
        quiet = statistics.median(r["ttft_s"] for r in phases[f"{mode} quiet"])
        for load in ("quiet", args.serve_load):
            rows = phases[f"{mode} {load}"]
            ttft = statistics.median(r["ttft_s"] for r in rows)
            threads = [r["threads"] for r in rows if r.get("threads")]
            lines.append(
                f"| {mode} | {load} | {ttft:.2f} | {ttft / quiet:.2f} | "
                f"{statistics.median(threads) if threads else ''} |"
            )
            if load != "quiet":
                ok = ttft / quiet <= 2.5
                verdicts.append(
                    f"{'PASS' if ok else 'FAIL'} {mode} server beside {load}: median TTFT "
                    f"{ttft:.2f} s = {ttft / quiet:.2f}x quiet (<= 2.5)"
                )
    text = "\n".join([*lines, "", *verdicts])
    print(text)
    (args.out / "serve.md").write_text(text + "\n")
    (args.out / "serve.json").write_text(json.dumps(phases, indent=1))


# ---------------------------------------------------------------- entry point


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--loads", default=",".join(LOADS))
    parser.add_argument("--subjects", default=",".join(SUBJECTS))
    parser.add_argument("--prompt-tokens", type=int, default=160)
    parser.add_argument("--max-tokens", type=int, default=24)
    parser.add_argument("--cap-s", type=float, default=20.0)
    parser.add_argument("--n-batch", type=int, default=256)
    parser.add_argument("--settle-s", type=float, default=2.0)
    parser.add_argument(
        "--gap-s",
        type=float,
        default=1.5,
        help="seconds between two subjects' turns (longer than core/cpuload.py's 1 s window)",
    )
    parser.add_argument("--neighbour-threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--model-path", default="")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "contention")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--serve-load", default="llama", choices=LOADS[1:])
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--modes", default="after")
    parser.add_argument(
        "--worker", choices=("raw", "before", "after", "every"), help=argparse.SUPPRESS
    )
    parser.add_argument("--neighbour", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    if args.neighbour:
        neighbour(args)
        return
    if not args.model_path:
        from core.bundled import resolve_llm
        from core.settings import load_settings

        args.model_path = str(resolve_llm(args.model, load_settings().models_dir))
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    if args.serve:
        run_serve(args)
        print(f"done in {time.monotonic() - started:.0f} s")
        return
    result = run_table(args)
    rows = summarise(result)
    text = table(rows)
    verdicts = checks(rows)
    context = "\n".join(
        f"- {load}: load average before {c['load_average_before']}, {c['seconds']} s"
        for load, c in result["context"].items()
    )
    report = f"{text}\n\n{context}\n\n" + "\n".join(verdicts)
    print(report)
    (args.out / "contention.md").write_text(report + "\n")
    (args.out / "contention.json").write_text(
        json.dumps(
            {
                "rows": rows,
                "context": result["context"],
                "runs": {f"{k[0]} {k[1]}": v.runs for k, v in result["cells"].items()},
                "args": {k: str(v) for k, v in vars(args).items()},
            },
            indent=1,
        )
    )
    plot(rows, result["loads"], result["subjects"], args.out / "contention.png")
    print(f"done in {time.monotonic() - started:.0f} s; {args.out}/contention.md, contention.png")


if __name__ == "__main__":
    main()
