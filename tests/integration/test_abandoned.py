"""Abandoned requests (issue 28, item 6): a client that closes its socket mid-answer stops the
generation, streamed or not, on /api/ask and /v1/chat/completions, and the queue moves on.

A real `hearth serve` on a loopback port; each client is a plain socket that sends one request
and closes without reading the reply. The model's figures (``/api/system``: the request's
outcome and the tokens it generated, whether the model is busy) show what happened; the one
bound on time is a liveness bound on the next question (today's main answered it after 120 s).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.test_serve_llm import DOC, queue_of, wait_until

pytestmark = pytest.mark.slow

MODEL = "smollm2-135m"
#: Enough tokens that an abandoned generation running to its end is plain in the figures (and
#: would hold the model for minutes on this machine).
LONG = 3000
STORY = "Write a long, detailed story about what the keeper did every day, day by day."
ROUTES: dict[str, tuple[str, dict[str, Any]]] = {
    "ask": ("/api/ask", {"question": STORY}),
    "ask-stream": ("/api/ask/stream", {"question": STORY}),
    "chat": (
        "/v1/chat/completions",
        {"model": MODEL, "max_tokens": LONG, "messages": [{"role": "user", "content": STORY}]},
    ),
    "chat-stream": (
        "/v1/chat/completions",
        {
            "model": MODEL,
            "max_tokens": LONG,
            "stream": True,
            "messages": [{"role": "user", "content": STORY}],
        },
    ),
}


def serve_keeper(root: Path, **env: str) -> Server:
    """`hearth serve` of SmolLM2 on one ingested document (a data directory under ``root``),
    answers of up to LONG tokens."""
    data_dir = root / "data"
    doc = root / "keeper.txt"
    doc.write_text(DOC)
    done = run_hearth(data_dir, "ingest", "-q", str(doc))
    assert done.returncode == 0, done.stderr
    return start_server(
        data_dir,
        MODEL,
        HEARTH_LLM__N_CTX="4096",
        HEARTH_LLM__MAX_TOKENS=str(LONG),
        HEARTH_LLM__WARMUP_PROMPT_TOKENS="64",
        HEARTH_RETRIEVAL__TOP_K="1",
        **env,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The keeper's server with four places in the queue."""
    srv = serve_keeper(tmp_path_factory.mktemp("abandoned"), HEARTH_LLM__QUEUE_SIZE="4")
    yield srv
    srv.stop()


def send_and_keep(server: Server, path: str, body: dict[str, Any]) -> socket.socket:
    """A client that sends one POST and reads nothing; it leaves when its socket is closed."""
    url = urlsplit(server.url)
    sock = socket.create_connection((url.hostname, url.port), timeout=30)
    payload = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    )
    sock.sendall(head.encode() + payload)
    return sock


def idle(server: Server) -> bool:
    """Nothing generating and nothing waiting."""
    queue = queue_of(server, MODEL)
    return not queue["running"] and queue["waiting"] == 0


def last(server: Server) -> dict[str, Any]:
    """The figures of the request that arrived last."""
    return dict(queue_of(server, MODEL)["recent"][-1])


def generating(server: Server) -> bool:
    """The last request holds the model and has written at least one token."""
    queue = queue_of(server, MODEL)
    return bool(queue["running"] and queue["recent"][-1]["tokens"] > 0)


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_client_that_leaves_stops_its_generation(server: Server, route: str) -> None:
    wait_until(lambda: idle(server), "an idle model")
    path, body = ROUTES[route]
    client = send_and_keep(server, path, body)
    wait_until(lambda: generating(server), f"{route}: the generation under way")
    client.close()
    # Not a timed assertion: a liveness bound, far below what the generation would take.
    wait_until(lambda: idle(server), f"{route}: the model free again", limit=60)
    stopped = last(server)
    assert stopped["outcome"] == "cancelled", stopped
    assert 0 < stopped["tokens"] < LONG, stopped


def test_two_abandoned_requests_do_not_hold_up_the_next(server: Server) -> None:
    wait_until(lambda: idle(server), "an idle model")
    first = send_and_keep(server, *ROUTES["ask"])
    wait_until(lambda: generating(server), "the first generation under way")
    second = send_and_keep(server, *ROUTES["chat"])
    wait_until(lambda: queue_of(server, MODEL)["waiting"] == 1, "the second request waiting")
    first.close()
    second.close()
    short = {"model": MODEL, "max_tokens": 16, "messages": [{"role": "user", "content": "Hi"}]}
    # A liveness bound (today's main timed out after 120 s behind two abandoned answers).
    answered = httpx.post(f"{server.url}/v1/chat/completions", json=short, timeout=60)
    assert answered.status_code == 200, answered.text
    assert answered.json()["choices"][0]["message"]["content"].strip()
    ran, waited, normal = queue_of(server, MODEL)["recent"][-3:]
    assert ran["outcome"] == "cancelled" and 0 < ran["tokens"] < LONG, ran
    # The waiting one left the queue without running at all.
    assert waited["outcome"] == "cancelled" and waited["tokens"] == 0, waited
    assert waited["ttft_s"] is None, waited
    assert normal["outcome"] == "done", normal
