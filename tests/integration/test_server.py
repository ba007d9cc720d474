"""A real `hearth serve` (SmolLM2 for speed) on a loopback port: the REST surface and its errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.sse import read_events

FACT = "The ferry to Aldmoor leaves from pier nine at 7:40 every Tuesday."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("srv")
    (root / "docs").mkdir()
    (root / "docs" / "ferry.md").write_text(f"# Ferries\n{FACT}\n")
    (root / "docs" / "garden.txt").write_text("Plant garlic in October and harvest it in July.")
    assert run_hearth(root / "data", "ingest", "-q", str(root / "docs")).returncode == 0
    srv = start_server(root / "data", model="smollm2-135m")
    yield srv
    srv.stop()


def test_health_and_openapi(server: Server) -> None:
    with server.client() as c:
        health = c.get("/api/health").json()
        assert health == {
            "status": "ok",
            "model": "smollm2-135m",
            "documents": 2,
            "chunks": health["chunks"],
        }
        assert health["chunks"] >= 2
        doc = c.get("/schema/openapi.json").json()
        assert doc["info"]["title"] == "Hearth"
        assert {"/api/ask", "/api/ask/stream", "/api/health", "/api/documents"} <= set(doc["paths"])


def test_ask_returns_answer_with_sources(server: Server) -> None:
    with server.client() as c:
        resp = c.post("/api/ask", json={"question": "When does the ferry to Aldmoor leave?"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["answer"]
    assert body["sources"][0]["name"] == "ferry.md"
    assert body["sources"][0]["text"].endswith(FACT)
    assert body["sources"][0]["provenance"] == {"heading": "Ferries"}
    assert body["timings"]["ttft_s"] > 0


def test_stream_sends_sources_tokens_then_done(server: Server) -> None:
    with server.client() as c:
        events = read_events(c, "/api/ask/stream", {"question": "When should garlic be planted?"})
    kinds = [k for k, _ in events]
    assert kinds[0] == "sources" and kinds[-1] == "done" and "token" in kinds
    tokens = "".join(d["text"] for k, d in events if k == "token")
    assert tokens.strip() == events[-1][1]["answer"]


@pytest.mark.parametrize(
    ("body", "field"),
    [({"question": "   "}, "question"), ({"question": "x" * 5000}, "question")],
)
def test_bad_questions_get_400_with_the_field(server: Server, body: dict, field: str) -> None:  # type: ignore[type-arg]
    with server.client() as c:
        for path in ("/api/ask", "/api/ask/stream"):
            resp = c.post(path, json=body)
            assert resp.status_code == 400, resp.text
            assert resp.json()["field"] == field


@pytest.mark.parametrize("raw", [b"not json", b"{}", b'{"question": 5}', b"[]"])
def test_malformed_bodies_are_4xx_not_5xx(server: Server, raw: bytes) -> None:
    with server.client() as c:
        resp = c.post("/api/ask", content=raw, headers={"content-type": "application/json"})
    assert 400 <= resp.status_code < 500, resp.text
    assert resp.json()["detail"]


def test_documents_list_and_unknown_route(server: Server) -> None:
    with server.client() as c:
        docs = c.get("/api/documents").json()
        assert sorted(Path(d["path"]).name for d in docs) == ["ferry.md", "garden.txt"]
        assert all(d["status"] == "ingested" and len(d["sha256"]) == 64 for d in docs)
        assert c.get("/api/nope").status_code == 404


def test_cli_ask_json_for_scripts(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ferry.md").write_text(f"# Ferries\n{FACT}\n")
    data = tmp_path / "data"
    assert run_hearth(data, "ingest", "-q", str(tmp_path / "docs")).returncode == 0
    result = run_hearth(
        data, "--model", "smollm2-135m", "ask", "--json", "Where does the ferry leave from?"
    )
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["answer"] and body["sources"][0]["path"] == str(tmp_path / "docs" / "ferry.md")
    assert "pier nine" not in result.stderr  # nothing of the document in logs


def test_cli_errors_are_one_clear_line(tmp_path: Path) -> None:
    missing = run_hearth(tmp_path / "data", "ingest", str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and "nowhere: no such file or folder" in missing.stderr
    # A GGUF path is checked by the in-process backend (a remote server names its own models).
    bad_model = run_hearth(
        tmp_path / "data",
        "--model",
        str(tmp_path / "x.gguf"),
        "ask",
        "hi",
        HEARTH_LLM__BACKEND="local",
    )
    assert bad_model.returncode == 1
    assert "neither a bundled model" in bad_model.stderr and "Traceback" not in bad_model.stderr
