"""Issue 28, item 5: a large text file is ingested in bounded memory and answerable throughout.

A 12 MB text file (80-character lines, no blank line: one 12 MB paragraph) used to need about
150 bytes of memory per byte of text (6.1 GB RSS for 40 MB): everything was tokenized, chunked,
embedded and written at once. Here one real `hearth ingest` process reads it; its resident
memory is sampled while it runs (and stopped if it passes the bound, so the old pipeline fails
in seconds instead of swapping) and its peak is the kernel's ``ru_maxrss``, taken by
``bench.common.run_measured``, which forks it from a small process: forked from pytest it would
report pytest's own size (3.5 GB late in CI). The bound is a memory bound, not a timed one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.common import run_measured
from bench.large_text import FACTS, MARKERS, QUESTIONS, write_text
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from service.answering.retrieval import Retriever
from tests.integration.conftest import REPO, backend_settings, hearth_env

MIB = 1024 * 1024
SIZE = 12_000_000
#: The whole process: Python, torch and the embedder (~550 MiB), Chroma and FAISS with ~16,000
#: vectors (~50 MiB), and the streamed file's working set: 772 MiB measured at 10 MB, 1,049 at
#: 40 MB (bench/large_text.py). The old pipeline passed 1,996 MiB on a 10 MB file within 120 s.
#: 12 MB rather than 30 keeps the test's time in CI's budget (it took ~7 min at 30 MB).
BOUND = 1280 * MIB


def _spooled(pid: int, folder: Path) -> int:
    """Bytes in the unlinked files the process holds open in ``folder``: the spool
    (``tempfile.TemporaryFile``, an O_TMPFILE without a name on Linux)."""
    total = 0
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0
    for fd in fds:
        try:
            target = os.readlink(fd)
            if target.startswith(str(folder.resolve())) and target.endswith("(deleted)"):
                total += fd.stat().st_size
        except OSError:
            continue
    return total


@pytest.mark.embedded_only(
    "the bound counts the embedded Chroma's index in the ingesting process; on the scaled "
    "pass it lives in the Chroma server's"
)
def test_a_12_mb_text_file_is_ingested_in_bounded_memory(
    tmp_path: Path, embedder: Embedder
) -> None:
    text = tmp_path / "harbour-log.txt"
    markers = write_text(text, SIZE, "lines", distinct=600)
    assert text.stat().st_size >= SIZE
    data = tmp_path / "data"
    run = run_measured(
        [sys.executable, "-m", "service.cli", "ingest", "-q", str(text)],
        env=hearth_env(data),
        cwd=REPO,
        timeout=3 * 3600,  # a hang, not a speed limit
        bound=BOUND,  # the old pipeline is stopped in seconds instead of swapping
    )
    assert run.sampled_rss <= BOUND and run.peak_rss <= BOUND, (
        f"peak RSS {run.peak_rss / MIB:.0f} MiB (sampled {run.sampled_rss / MIB:.0f}) "
        f"over {BOUND / MIB:.0f}"
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    assert "added 1," in out and "failed 0" in out, out

    kb = KnowledgeBase(backend_settings(data))
    try:
        stats = kb.stats()
        assert stats["chunks"] > 12_000
        assert set(stats["stores"].values()) == {stats["chunks"]}  # every store in step
        retriever = Retriever(kb, embedder)
        for where, question in QUESTIONS.items():
            top = retriever.retrieve(question)
            best = " ".join(top[0].text.split()) if top else ""
            assert FACTS[where] in best, (where, [p.text[:80] for p in top[:3]])
        assert set(markers.values()) == set(MARKERS.values())
    finally:
        kb.close()


def test_a_streamed_file_killed_half_way_leaves_nothing_half_visible(tmp_path: Path) -> None:
    """The chunks of a large file are spooled to disk and committed as one version: a kill
    while its batches are being embedded leaves no chunk of it in any store, and the next run
    ingests it whole."""
    text = tmp_path / "ledger.txt"
    write_text(text, 3_000_000, "lines", distinct=600)
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "ingest", "-q", str(text)],
        env=hearth_env(data),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # The spool is an unlinked file in the data directory, seen through the process's fds: kill
    # once it holds some batches.
    deadline = time.monotonic() + 1800
    while _spooled(proc.pid, data) < 200_000:
        assert proc.poll() is None, "the ingest ended before it could be killed"
        assert time.monotonic() < deadline, "no spool seen"
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    kb = KnowledgeBase(backend_settings(data))
    try:
        kb.repair()
        stats = kb.stats()
        assert stats["chunks"] == 0 and stats["by_status"].get("ingested", 0) == 0, stats
        assert set(stats["stores"].values()) == {0}
    finally:
        kb.close()
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "ingest", "-q", str(text)],
        env=hearth_env(data),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0 and "added 1," in done.stdout, done.stdout + done.stderr
    kb = KnowledgeBase(backend_settings(data))
    try:
        stats = kb.stats()
        assert stats["chunks"] > 3000 and set(stats["stores"].values()) == {stats["chunks"]}
    finally:
        kb.close()
