"""A real `hearth serve` with two smollm2 contexts: queue bound, disconnects, routing, figures."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Server, run_hearth, start_server

pytestmark = [
    pytest.mark.slow,
    pytest.mark.embedded_only("memory plan, KV cache and queues of in-process models"),
]

MODELS = [
    {"name": "small", "model": "smollm2-135m", "n_ctx": 2048},
    {"name": "coder", "model": "smollm2-135m", "n_ctx": 1024, "kv_type": "q8_0"},
]
DOC = "The Hearth lighthouse keeper log.\n\n" + "\n\n".join(
    f"Day {i}: the keeper lit the lamp at dusk, counted {i * 3} ships passing the cape, "
    f"and wrote a long note about the weather, the tides and the gulls on the rocks."
    for i in range(1, 40)
)
QUESTION = {"question": "Write a long, detailed story about what the keeper did every day."}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Ingest one document, then serve two models with a queue of one waiting request."""
    data_dir = tmp_path_factory.mktemp("serve") / "data"
    doc = data_dir.parent / "keeper.txt"
    doc.write_text(DOC)
    done = run_hearth(data_dir, "ingest", "-q", str(doc))
    assert done.returncode == 0, done.stderr
    srv = start_server(
        data_dir,
        HEARTH_LLM__MODELS=json.dumps(MODELS),
        HEARTH_LLM__ROUTES=json.dumps({"code": "coder"}),
        HEARTH_LLM__DEFAULT_MODEL="small",
        HEARTH_LLM__QUEUE_SIZE="1",
        HEARTH_LLM__MAX_TOKENS="200",
        HEARTH_RETRIEVAL__TOP_K="1",
        HEARTH_LLM__WARMUP="true",  # its timings are what /api/system reports
        HEARTH_LLM__WARMUP_PROMPT_TOKENS="64",
        HEARTH_LLM__TEMPERATURE="0.8",
    )
    yield srv
    srv.stop()


def system(server: Server) -> dict[str, Any]:
    """``GET /api/system``."""
    resp = httpx.get(f"{server.url}/api/system", timeout=30)
    assert resp.status_code == 200
    return dict(resp.json())


def queue_of(server: Server, model: str = "small") -> dict[str, Any]:
    """The model's queue snapshot."""
    return dict(system(server)["models"][model]["queue"])


def wait_until(check: Any, what: str, limit: float = 120) -> None:
    """Poll ``check`` until true (a generous limit, not a timed assertion)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"never saw: {what}")


def test_models_listed_with_plan_and_routes(server: Server) -> None:
    models = {m["name"]: m for m in httpx.get(f"{server.url}/api/models").json()}
    assert set(models) == {"small", "coder"}
    assert models["coder"]["tasks"] == ["code"] and models["small"]["default"]
    for m in models.values():
        assert len(m["sha256"]) == 64 and m["quantization"] == "Q4_1"
        assert m["planned_bytes"] > m["planned"]["weights"] > 0
    assert (models["small"]["n_ctx"], models["coder"]["n_ctx"]) == (2048, 1024)
    assert models["coder"]["planned"]["kv_cache"] < models["small"]["planned"]["kv_cache"]


def test_system_reports_plan_measured_memory_and_warmup(server: Server) -> None:
    data = system(server)
    assert data["plan"]["fits"]
    assert data["memory"]["rss_growth_models"] > 0
    assert data["memory"]["planned_models"] == sum(m["total"] for m in data["plan"]["models"])
    small = data["models"]["small"]["measured"]
    kv = next(m["kv_cache"] for m in data["plan"]["models"] if m["name"] == "small")
    # The whole KV cache is resident straight after load, before any generation.
    assert small["anon_growth_after_load"] >= kv
    for model in ("small", "coder"):
        measured = data["models"][model]["measured"]
        assert measured["warmup_cold"]["ttft_s"] > 0 and measured["warmup_warm"]["ttft_s"] > 0
        assert measured["rss_growth"] > 0
    # the language detector the cross-lingual check reads every answer's passages with is
    # loaded at start, not by the first question (~10 s before its first token on a busy machine)
    assert data["timings"]["languages_s"] > 0


def test_status_reads_the_running_server(server: Server) -> None:
    port = server.url.rsplit(":", 1)[1]
    done = run_hearth(
        server.data_dir,
        "status",
        "--json",
        HEARTH_SERVER__PORT=port,
        HEARTH_LLM__MODELS=json.dumps(MODELS),
    )
    assert done.returncode == 0, done.stderr
    memory = json.loads(done.stdout)["memory"]
    assert memory["source"] == "server"
    assert memory["memory"]["rss_growth_models"] > 0
    assert memory["plan"]["total"] > memory["memory"]["planned_models"]
    plain = run_hearth(server.data_dir, "status", HEARTH_SERVER__PORT=port)
    assert "measured RSS growth" in plain.stdout, plain.stdout


def test_tasks_route_to_models(server: Server) -> None:
    with server.client() as client:
        coded = client.post("/api/ask", json={**QUESTION, "task": "code"})
        asked = client.post("/api/ask", json={**QUESTION, "task": "qa"})
        named = client.post("/api/ask", json={**QUESTION, "model": "coder"})
        bad = client.post("/api/ask", json={**QUESTION, "task": "poem"})
    assert coded.status_code == asked.status_code == named.status_code == 200
    assert coded.json()["model"] == "coder"
    assert asked.json()["model"] == "small"
    assert named.json()["model"] == "coder"
    assert bad.status_code == 400 and bad.json()["field"] == "task"
    recent = queue_of(server, "coder")["recent"]
    assert recent[-1]["ttft_s"] > 0 and recent[-1]["tokens"] > 0


def test_burst_past_the_bound_gets_429_and_no_5xx(server: Server) -> None:
    statuses: list[int] = []
    retry_after: list[str] = []
    lock = threading.Lock()

    def one() -> None:
        resp = httpx.post(f"{server.url}/api/ask", json=QUESTION, timeout=300)
        with lock:
            statuses.append(resp.status_code)
            if resp.status_code == 429:
                retry_after.append(resp.headers["Retry-After"])

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert len(statuses) == 6
    assert all(code < 500 for code in statuses), statuses
    assert statuses.count(429) >= 3, statuses  # 1 generating + 1 waiting; the rest refused
    assert statuses.count(200) >= 1
    assert all(int(v) >= 1 for v in retry_after)


def _open_stream(server: Server) -> tuple[httpx.Client, Any]:
    client = httpx.Client(base_url=server.url, timeout=300)
    cm = client.stream("POST", "/api/ask/stream", json=QUESTION)
    resp = cm.__enter__()
    assert resp.status_code == 200
    return client, cm


def test_disconnected_stream_frees_the_queue(server: Server) -> None:
    wait_until(
        lambda: not queue_of(server)["running"] and queue_of(server)["waiting"] == 0,
        "an idle queue",
    )
    first_client, first = _open_stream(server)
    wait_until(lambda: queue_of(server)["running"], "the first stream generating")
    second_client, second = _open_stream(server)
    wait_until(lambda: queue_of(server)["waiting"] >= 1, "the second stream waiting")
    refused = httpx.post(f"{server.url}/api/ask/stream", json=QUESTION, timeout=60)
    assert refused.status_code == 429
    # The waiting client goes away: its place is free, before the generation ends.
    second.__exit__(None, None, None)
    second_client.close()
    wait_until(lambda: queue_of(server)["waiting"] == 0, "the waiting place freed")
    assert queue_of(server)["running"]  # the first generation is still going
    # The generating client goes away: its generation stops and the queue empties.
    first.__exit__(None, None, None)
    first_client.close()
    wait_until(lambda: not queue_of(server)["running"], "the generation stopped")
    outcomes = [r["outcome"] for r in queue_of(server)["recent"][-2:]]
    assert outcomes.count("cancelled") == 2, outcomes
    stopped = queue_of(server)["recent"][-2:]
    assert all(r["tokens"] < 200 for r in stopped)
    after = httpx.post(f"{server.url}/api/ask", json=QUESTION, timeout=300)
    assert after.status_code == 200


def test_too_small_budget_refuses_to_start(tmp_path: Path) -> None:
    done = run_hearth(
        tmp_path / "data",
        "--model",
        "smollm2-135m",
        "serve",
        "--port",
        "1",
        HEARTH_MEMORY_BUDGET="200MB",
        timeout=120,
    )
    assert done.returncode != 0
    for needle in (
        "exceeds the budget",
        "KV cache (n_ctx 4096, f16)",
        "weights",
        "embedder",
        "HEARTH_LLM__N_CTX",
        "HEARTH_LLM__KV_TYPE=q8_0",
        "smaller model",
    ):
        assert needle in done.stderr, done.stderr


def test_plan_command_json(tmp_path: Path) -> None:
    done = run_hearth(
        tmp_path / "data", "--model", "smollm2-135m", "plan", "--json", HEARTH_MEMORY_BUDGET="6GiB"
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["budget"] == 6 * 2**30 and plan["fits"]
    assert {p["part"].split(":")[0] for p in plan["parts"]} >= {"smollm2-135m", "embedder"}
