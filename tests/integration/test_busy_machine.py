"""A real `hearth serve` beside two busy loops: the answer generates on fewer threads than there
are cores, and says so in its timings, /api/system (the Live panel) and /metrics (issue 36)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.threads import available_cores
from tests.integration.conftest import Server, metric, run_hearth, start_server

# serial: it reads the machine's load, so another test's answers beside it would be counted
pytestmark = [pytest.mark.slow, pytest.mark.serial]

FACT = "The lighthouse on Skerra was painted red and white in 1911 by the keeper, Ada Thorne."


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "skerra.txt").write_text(FACT + "\n")
    data = tmp_path / "data"
    assert run_hearth(data, "ingest", "-q", str(docs)).returncode == 0
    server = start_server(data)
    yield server
    server.stop()


@pytest.fixture
def two_busy_loops() -> Iterator[None]:
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    time.sleep(2.0)  # a whole window of the server's load watcher
    yield
    for loop in loops:
        loop.kill()
        loop.wait(timeout=30)


@pytest.mark.embedded_only("llama.cpp in process reports its threads; a remote server does not")
def test_an_answer_beside_busy_loops_takes_the_free_cores_and_reports_them(
    server: Server, two_busy_loops: None
) -> None:
    cores = available_cores()
    with server.client() as client:
        answer = client.post("/api/ask", json={"question": "Who painted the lighthouse?"})
        assert answer.status_code == 200, answer.text
        timings = answer.json()["timings"]
        system = client.get("/api/system").json()
        # The Live panel and /metrics read the watcher's last second, which right after the
        # answer still holds the answer's own burst (its threads, waking, are served before the
        # loops: CI read 0.43 busy elsewhere, /metrics 1.29). They show the loops once that
        # second has passed.
        live = system["cores"]
        for _ in range(12):  # at most 3 s
            if live["busy"] >= min(cores, 2) / 2:
                break
            time.sleep(0.25)
            live = client.get("/api/system").json()["cores"]
        metrics = httpx.get(f"{server.url}/metrics", timeout=30).text
    # Two loops keep two cores (or all of them) busy: generation leaves at least one core out.
    # The prompt may take every core (core/threads.py, prompt_threads: where no core of its own
    # is left, a thread on a shared core still adds its share of a long matrix product).
    assert timings["cores"] == cores
    # the loops' share of the last second, less the answer's own burst, which competes with
    # them for the same cores: 1.48 of 2 in a CI run with more programs beside it (>= 1.5 then)
    assert timings["cores_busy"] >= min(cores, 2) / 2
    assert 1 <= timings["threads"] <= cores
    assert 1 <= timings["generation_threads"] <= max(1, cores - 1)
    recent = system["models"]["smollm2-135m"]["queue"]["recent"][-1]
    assert (recent["threads"], recent["cores_busy"]) == (timings["threads"], timings["cores_busy"])
    # The Live panel's reading is a later window of the load watcher than the answer's (CI saw
    # 1.41 there beside the answer's 2): the loops still show, the exact figure moves.
    assert live["cores"] == cores and live["busy"] >= min(cores, 2) / 2
    model = {"model": "smollm2-135m"}
    assert metric(metrics, "hearth_llm_threads", **model, phase="prompt") == timings["threads"]
    assert (
        metric(metrics, "hearth_llm_threads", **model, phase="generation")
        == (timings["generation_threads"])
    )
    assert metric(metrics, "hearth_llm_cores_busy_elsewhere", **model) == timings["cores_busy"]
    assert metric(metrics, "hearth_cpu_cores") == cores
    assert metric(metrics, "hearth_cpu_cores_busy_elsewhere") >= min(cores, 2) / 2
    assert 1 <= metric(metrics, "hearth_cpu_cores_free") <= max(1, cores - 1)
