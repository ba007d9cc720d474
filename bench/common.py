"""Helpers shared by the benchmarks: the shared data, BEIR sets, scratch data dirs (the metrics
are core/evalmetrics.py, shared with `hearth eval`)."""

from __future__ import annotations

import os
import resource
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO

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


#: Run by a small Python of its own: forks the command, reports the child's pid and, when it ends,
#: its ``ru_maxrss`` (KiB) and wait status on the file named by argv[1], and exits as it did.
_MEASURE = r"""
import os, sys
report, cmd = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
with open(report, "w") as out:
    out.write(f"{pid}\n")
_, status, usage = os.wait4(pid, 0)
with open(report, "a") as out:
    out.write(f"{usage.ru_maxrss} {status}\n")
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


@dataclass
class MeasuredRun:
    """A finished command: exit status (``-N`` when killed by signal N), its output, its peak
    resident set size (bytes, the kernel's ``ru_maxrss``), the largest ``VmRSS`` sampled while
    it ran (bytes), its wall time (s) and whether it was stopped for passing ``bound`` or
    ``timeout``."""

    returncode: int
    stdout: str
    stderr: str
    peak_rss: int
    sampled_rss: int
    seconds: float
    stopped: bool


def run_measured(
    cmd: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout: float,
    bound: int | None = None,
    poll_s: float = 0.25,
) -> MeasuredRun:
    """Run ``cmd`` and measure its peak memory; stop it (SIGKILL to its process group) once its
    sampled RSS passes ``bound`` bytes or ``timeout`` seconds pass.

    The command is forked by a small Python of its own rather than by this process: the kernel
    carries a process's peak RSS across ``exec`` (``exec_mmap`` keeps the pre-exec image's
    high-water mark), so a child forked straight from a large process (a pytest run holding
    models, ~3.5 GB late in CI) would report that process's size as its own peak.
    """
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    from core.memsize import process_rss

    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report"
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _MEASURE, str(report), *cmd],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        sampled, stopped, child = 0, False, 0
        while proc.poll() is None:
            if not child and report.exists():
                first = report.read_text().split("\n", 1)[0]
                child = int(first) if first.strip() else 0
            if child:
                sampled = max(sampled, process_rss(child))
            over = bound is not None and sampled > bound
            if over or time.perf_counter() - started > timeout:
                stopped = True
                os.killpg(proc.pid, signal.SIGKILL)
                break
            time.sleep(poll_s)
        out, err = proc.communicate()
        seconds = time.perf_counter() - started
        lines = report.read_text().split("\n") if report.exists() else []
        peak, returncode = sampled, -signal.SIGKILL
        if len(lines) > 1 and lines[1].strip():
            maxrss_kib, status = (int(v) for v in lines[1].split())
            peak = maxrss_kib * 1024
            returncode = os.waitstatus_to_exitcode(status)
    return MeasuredRun(returncode, out, err, peak, sampled, seconds, stopped)


def serve(
    data_dir: Path,
    *options: str,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    base_env: dict[str, str] | None = None,
    log: IO[bytes] | None = None,
) -> tuple[str, subprocess.Popen[bytes]]:
    """`hearth serve` over ``data_dir`` on a free loopback port, once ``/api/health`` answers:
    (its URL, the process). ``options`` go before ``serve`` (``"--model", NAME``); the
    environment is ``base_env`` as given (default: this one without its ``HEARTH_*``
    variables), plus ``env``; output goes to ``log`` (default: discarded). ``SystemExit`` when
    it exits or is not healthy within ``timeout`` seconds."""
    import socket
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    environ = (
        {k: v for k, v in os.environ.items() if not k.startswith("HEARTH_")}
        if base_env is None
        else dict(base_env)
    )
    environ.update(env or {}, HEARTH_DATA_DIR=str(data_dir), PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "service.cli", *options, "serve"]
    proc = subprocess.Popen(
        [*cmd, "--host", "127.0.0.1", "--port", str(port)],
        env=environ,
        cwd=REPO,
        stdout=log or subprocess.DEVNULL,
        stderr=log or subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return url, proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"hearth serve did not become healthy (exit code {proc.returncode})")
