"""Load: 1,000 mixed requests (ask, stream, upload, list) at 16 concurrent clients against a real
`hearth serve` on loopback; no 5xx, no transport error, every non-2xx an expected one (429 with
Retry-After when the queue is full), and RSS after the run within 5% of RSS after warm-up.
The driver is bench/load.py's (`PYTHONPATH=. python bench/load.py` prints the same figures)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.load import (
    SERVER_ENV,
    format_figures,
    rss_figures,
    run_load,
    settle,
    write_corpus,
)
from tests.integration.conftest import Server, run_hearth, start_server

REQUESTS = 1000
CLIENTS = 16
WARMUP = 100
CAP_S = 900  # the run stops by itself and fails if it takes longer than this


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    write_corpus(tmp_path / "docs")
    assert run_hearth(tmp_path / "data", "ingest", "-q", str(tmp_path / "docs")).returncode == 0
    srv = start_server(tmp_path / "data", model="smollm2-135m", **SERVER_ENV)
    yield srv
    srv.stop()


@pytest.mark.slow
@pytest.mark.serial  # its requests run against a time cap: not beside another test's answers
def test_thousand_mixed_requests_no_5xx_and_flat_rss(server: Server) -> None:
    warm = run_load(server.url, WARMUP, CLIENTS, CAP_S, seed=0)
    assert not warm.capped
    rss_warm = settle(server.url, server.process.pid)

    result = run_load(server.url, REQUESTS, CLIENTS, CAP_S, seed=1)
    rss_after = settle(server.url, server.process.pid)

    fig = result.figures()
    fig["rss"] = rss_figures(rss_warm, rss_after)
    print("\n" + format_figures(fig))
    print(json.dumps(fig))

    assert not result.capped, f"the run hit its {CAP_S} s cap after {len(result.records)}"
    kinds = {r.kind for r in result.records}
    assert {"ask", "stream", "upload", "delete", "list"} <= kinds
    # every planned request ran (an upload of a fresh file adds its delete)
    assert len([r for r in result.records if r.kind != "delete"]) == REQUESTS
    problems = result.problems()
    assert not problems, [f"{r.kind} {r.status} {r.problem}" for r in problems[:10]]
    assert not [r for r in result.records if r.status >= 500 or r.status == 0]
    # some questions got through the queue, in both forms
    for kind in ("ask", "stream"):
        assert fig["kinds"][kind]["status"].get("200", 0) > 0, fig["kinds"][kind]
    assert fig["rss"]["ratio"] <= 1.05, fig["rss"]
