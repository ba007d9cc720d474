"""Whole-document modes through the real surfaces: `hearth summarise` / `hearth ask --every`
(progress bar, cached second run), `POST /api/wholedoc[/stream]`, a plain question routed to a
mode, and `hearth-rag` with a ``mode`` on /v1 — on a real server whose queue holds no waiting
request (queue_size 0), so a full queue is reached with one stream."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
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
    server = start_server(data, HEARTH_LLM__QUEUE_SIZE="0")
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


def openai_events(c: httpx.Client, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON chunks of a streamed /v1/chat/completions, without the final [DONE]."""
    out: list[dict[str, Any]] = []
    with c.stream("POST", "/v1/chat/completions", json=body) as resp:
        assert resp.status_code == 200, resp.read()
        for line in resp.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                out.append(json.loads(line[6:]))
    return out


@pytest.mark.slow
def test_openai_route_takes_a_whole_document_mode(setup: Setup) -> None:
    ask = [{"role": "user", "content": "deadline"}]
    with setup.server.client() as c:
        body = {
            "model": "hearth-rag",
            "messages": ask,
            "mode": "extract",
            "documents": ["harbour.md"],
        }
        resp = c.post("/v1/chat/completions", json=body)
        assert resp.status_code == 200, resp.text
        reply = resp.json()
        text = reply["choices"][0]["message"]["content"]
        assert text.startswith("[extract mode") and "30 April 2027" in text, text
        assert reply["hearth"]["mode"] == "extract" and reply["hearth"]["cached"] is True  # CLI's
        item = next(i for i in reply["hearth"]["items"] if "30 April 2027" in i["text"])
        cited = {s["number"]: s for s in reply["hearth"]["sources"]}
        assert all("30 April 2027" in cited[n]["text"] for n in item["citations"])
        chunks = openai_events(
            c,
            {
                "model": "hearth-rag",
                "messages": [{"role": "user", "content": "ferry fares"}],  # not cached yet
                "mode": "extract",
                "documents": [str(setup.path)],
                "stream": True,
            },
        )
        progress = [ch["hearth"]["progress"] for ch in chunks if "progress" in ch.get("hearth", {})]
        assert progress and progress[0]["chunks_read"] == 0, chunks
        assert "".join(
            ch["choices"][0]["delta"].get("content") or "" for ch in chunks if ch["choices"]
        ).startswith("[extract mode")
        assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
        for bad, param in (
            ({"mode": "poem"}, "mode"),
            ({"mode": "extract", "documents": ["nowhere.pdf"]}, "documents"),
            ({"documents": ["harbour.md"]}, "documents"),  # documents without a mode
            ({"mode": "summarise", "model": "smollm2-135m"}, "mode"),  # a model without retrieval
        ):
            sent = {"model": "hearth-rag", "messages": ask, **bad}
            resp = c.post("/v1/chat/completions", json=sent)
            assert 400 <= resp.status_code < 500, (bad, resp.text)
            error = resp.json()["error"]
            assert error["param"] == param and error["type"] == "invalid_request_error", error
        poem = c.post(
            "/v1/chat/completions", json={"model": "hearth-rag", "messages": ask, "mode": "poem"}
        )
        assert poem.status_code == 400 and "'poem'" in poem.json()["error"]["message"]


@pytest.mark.slow
def test_a_full_queue_is_a_429_before_a_routed_stream_starts(setup: Setup) -> None:
    story = {
        "model": "smollm2-135m",
        "messages": [{"role": "user", "content": "Tell a long story about a ferry."}],
        "max_tokens": 200,
        "stream": True,
    }
    with setup.server.client() as c, c.stream("POST", "/v1/chat/completions", json=story) as held:
        assert held.status_code == 200
        lines = held.iter_lines()  # kept: a dropped iterator closes the response
        next(lines)  # the stream has started: the model's only place is taken
        routed = {"question": "List every morning in harbour.md"}  # uncached: needs the model
        with c.stream("POST", "/api/ask/stream", json=routed) as resp:
            assert resp.status_code == 429, resp.read()
            assert not resp.headers["content-type"].startswith("text/event-stream")
            assert int(resp.headers["retry-after"]) >= 1
            assert json.loads(resp.read())["error"]
