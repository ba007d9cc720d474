"""Whole-document modes through the real surfaces: `hearth summarise` / `hearth ask --every`
(progress bar, cached second run) and `POST /api/wholedoc[/stream]` on a real server."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.sse import read_events

NOTE = (
    "# Harbour notes\nThe ferry Puffin leaves Kelby pier at seven each morning.\n\n"
    "Deadline: harbour dues for the Puffin must be paid by 30 April 2027.\n"
)


@dataclass
class Setup:
    path: Path
    first: subprocess.CompletedProcess[str]
    every: subprocess.CompletedProcess[str]
    server: Server


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    root = tmp_path_factory.mktemp("wholedoc-api")
    path = root / "harbour.md"
    path.write_text(NOTE)
    data = root / "data"
    assert run_hearth(data, "ingest", "-q", str(path)).returncode == 0
    first = run_hearth(data, "summarise", str(path), HEARTH_LLM__MODEL="smollm2-135m")
    every = run_hearth(
        data,
        "ask",
        "--every",
        "deadline",
        "--document",
        str(path),
        HEARTH_LLM__MODEL="smollm2-135m",
    )
    server = start_server(data)
    yield Setup(path, first, every, server)
    server.stop()


@pytest.mark.slow
def test_cli_summarises_and_lists_every_item(setup: Setup) -> None:
    assert setup.first.returncode == 0, setup.first.stderr
    assert setup.first.stdout.startswith("[summarise mode: read all")
    assert "read 1 chunks in 1 group(s)" in setup.first.stderr  # a bar on a terminal
    assert "Sources:" in setup.first.stdout and "harbour.md" in setup.first.stdout
    assert setup.every.returncode == 0, setup.every.stderr
    assert "30 April 2027" in setup.every.stdout and "[extract mode" in setup.every.stdout


@pytest.mark.slow
def test_api_streams_progress_then_a_cited_result(setup: Setup) -> None:
    with setup.server.client() as c:
        body = {"mode": "extract", "documents": ["harbour.md"], "what": "ferry"}
        events = read_events(c, "/api/wholedoc/stream", body)
        kinds = [k for k, _ in events]
        assert kinds[0] == "progress" and kinds[-1] == "done", kinds
        done = events[-1][1]
        assert done["mode"] == "extract" and done["chunks_read"] >= 1
        item = next(i for i in done["items"] if "Puffin leaves Kelby" in i["text"])
        cited = {s["number"]: s for s in done["sources"]}
        assert all("Puffin" in cited[n]["text"] for n in item["citations"])
        again = c.post("/api/wholedoc", json=body).json()
        assert again["cached"] is True and again["items"] == done["items"]


@pytest.mark.slow
def test_api_refuses_bad_requests_naming_the_field(setup: Setup) -> None:
    cases = [
        ({"mode": "summarise", "documents": ["nowhere.pdf"]}, 404, "documents"),
        ({"mode": "summarise", "collection": "nothing-here"}, 404, "collection"),
        ({"mode": "compare", "documents": ["harbour.md"]}, 400, "documents"),
        ({"mode": "summarise", "documents": [f"d{i}" for i in range(60)]}, 400, "documents"),
        ({"mode": "poem", "documents": ["harbour.md"]}, 400, "mode"),
        ({"mode": "extract", "documents": ["harbour.md"]}, 400, "what"),
        ({"mode": "summarise", "documents": ["harbour.md"], "model": "nope"}, 400, "model"),
    ]
    with setup.server.client() as c:
        for body, status, field in cases:
            for route in ("/api/wholedoc", "/api/wholedoc/stream"):
                resp = c.post(route, json=body)
                assert resp.status_code == status, (route, body, resp.text)
                assert resp.json()["field"] == field, (route, body, resp.text)


@pytest.mark.slow
def test_a_plain_question_naming_a_document_takes_its_mode(setup: Setup) -> None:
    with setup.server.client() as c:
        body = c.post("/api/ask", json={"question": "List every deadline in harbour.md"}).json()
        assert body["answer"].startswith("[extract mode"), body["answer"]
        assert body["grounding"]["mode"] == "extract" and body["citations"]
        assert "30 April 2027" in body["answer"]
        events = read_events(c, "/api/ask/stream", {"question": "List all piers in harbour.md"})
        kinds = [k for k, _ in events]
        assert kinds[0] == "progress" and kinds[-3:] == ["sources", "token", "done"], kinds
        assert events[-1][1]["answer"].startswith("[extract mode")
        summary = c.post("/api/ask", json={"question": "Summarise harbour.md"}).json()
        assert summary["answer"].startswith("[summarise mode")
        assert summary["grounding"]["cached"] is True  # the CLI's run
        plain = c.post("/api/ask", json={"question": "When does the ferry leave?"}).json()
        assert "grounding" in plain and plain["grounding"].get("mode") is None
