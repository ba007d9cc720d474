"""MCP over streamable HTTP at /mcp of a real `hearth serve` (SmolLM2, loopback port), driven by
the SDK's own client: listing and search, writes allowed only inside the named folder, a
cancelled `ask` freeing the model for the next caller, a client gone mid-call, the OpenAPI
document unchanged, and the access-token rule (401 without the token once one exists)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.integration.conftest import Server, run_hearth, start_server

pytestmark = pytest.mark.embedded_only(
    "the MCP transport is the subject; test_mcp runs the tools over these backends: one pass"
)


FACT = "The lighthouse keeper of Varrow Point logs the tide at 05:12 each morning."
LONG = "Write a long, detailed essay about ferries, harbours, tides and lighthouses."
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcphttp")
    for name in ("docs", "inbox", "outside"):
        (root / name).mkdir()
    (root / "docs" / "coast.md").write_text(f"# Coast\n{FACT}\n")
    (root / "inbox" / "garden.txt").write_text("Plant garlic in October and harvest it in July.")
    (root / "outside" / "secret.txt").write_text("Not for the library.")
    (root / "inbox" / "escape.txt").symlink_to(root / "outside" / "secret.txt")
    done = run_hearth(root / "data", "ingest", "-q", str(root / "docs"))
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[Server]:
    srv = start_server(
        root / "data",
        HEARTH_MCP__ALLOW_WRITES="true",
        HEARTH_MCP__WRITE_FOLDERS=json.dumps([str(root / "inbox")]),
        HEARTH_LLM__MAX_TOKENS="256",
    )
    yield srv
    srv.stop()


def session(server: Server, work: Callable[[Client], Awaitable[Any]], token: str = "") -> Any:
    """Run ``work(client)`` on a fresh MCP session with the server's /mcp (bearer ``token``)."""

    async def main() -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=600) as http:
            transport = streamable_http_client(f"{server.url}/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=600) as client:
                return await work(client)

    return anyio.run(main)


def test_lists_and_searches_over_http(server: Server) -> None:
    async def work(client: Client) -> tuple[set[str], Any, int]:
        tools = {t.name for t in (await client.list_tools()).tools}
        found = await client.call_tool("search", {"query": "When is the tide logged?"})
        resources = len((await client.list_resources()).resources)
        return tools, found, resources

    tools, found, resources = session(server, work)
    assert {"search", "ask", "get_document", "ingest"} <= tools and resources == 1
    hit = found.structured_content["hits"][0]
    assert hit["document"] == "coast.md" and FACT in hit["text"]
    assert hit["link"].startswith(server.url + "/#/knowledge/")


def test_ingest_only_inside_the_allowed_folders(server: Server, root: Path) -> None:
    async def work(client: Client) -> list[Any]:
        return [
            await client.call_tool("ingest", {"path": str(root / "outside" / "secret.txt")}),
            await client.call_tool("ingest", {"path": str(root / "inbox" / "escape.txt")}),
            await client.call_tool("ingest", {"path": "inbox/garden.txt"}),
            await client.call_tool("ingest", {"path": str(root / "inbox")}),
            await client.call_tool("remove", {"path": str(root / "docs" / "coast.md")}),
        ]

    outside, link, relative, inbox, remove = session(server, work)
    for refused in (outside, link, remove):
        assert (
            refused.is_error and "is outside the folders MCP may write" in refused.content[0].text
        )
    assert relative.is_error and "is not an absolute path" in relative.content[0].text
    assert not inbox.is_error, inbox.content
    files = {Path(f["path"]).name: f for f in inbox.structured_content["files"]}
    assert files["garden.txt"]["action"] == "added"
    assert files["escape.txt"]["action"] == "failed"
    assert "outside mcp.write_folders" in files["escape.txt"]["error"]
    docs = httpx.get(f"{server.url}/api/documents", timeout=60).json()
    assert sorted(Path(d["path"]).name for d in docs) == ["coast.md", "garden.txt"]

    async def undo(client: Client) -> Any:
        return await client.call_tool("remove", {"path": str(root / "inbox" / "garden.txt")})

    removed = session(server, undo)
    assert not removed.is_error and removed.structured_content["files"][0]["action"] == "removed"


def recent(server: Server) -> list[dict[str, Any]]:
    system = httpx.get(f"{server.url}/api/system", timeout=60).json()
    return list(system["models"]["smollm2-135m"]["queue"]["recent"])


def test_cancelled_ask_frees_the_model_for_the_next_caller(server: Server) -> None:
    before = len(recent(server))

    async def work(client: Client) -> tuple[list[float], Any]:
        seen: list[float] = []
        writing = anyio.Event()

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)
            if progress >= 1:
                writing.set()

        async with anyio.create_task_group() as tg:

            async def first() -> None:
                await client.call_tool("ask", {"question": LONG}, progress_callback=progress)

            tg.start_soon(first)
            with anyio.fail_after(300):
                await writing.wait()
            tg.cancel_scope.cancel()  # the client cancels: notifications/cancelled
        nxt = await client.call_tool("ask", {"question": "When is the tide logged?"})
        return seen, nxt

    seen, nxt = session(server, work)
    assert seen[0] == 0 and max(seen) >= 1
    assert not nxt.is_error and nxt.structured_content["answer"]
    runs = recent(server)[before:]
    assert [r["outcome"] for r in runs] == ["cancelled", "done"]
    assert runs[0]["tokens"] < 256


def test_server_keeps_running_when_a_client_goes_mid_call(server: Server) -> None:
    async def gone(client: Client) -> None:
        with anyio.move_on_after(3):
            await client.call_tool("ask", {"question": LONG})

    session(server, gone)  # leaves (closing its connection) while the answer is written

    async def work(client: Client) -> Any:
        return await client.call_tool("search", {"query": "tide"})

    assert not session(server, work).is_error
    assert httpx.get(f"{server.url}/api/health", timeout=60).status_code == 200


def test_openapi_document_has_no_mcp_route(server: Server) -> None:
    paths = httpx.get(f"{server.url}/schema/openapi.json", timeout=60).json()["paths"]
    assert "/api/ask" in paths and not any(p.startswith("/mcp") for p in paths)


def test_mcp_needs_the_token_once_one_exists(server: Server) -> None:
    assert (
        httpx.post(
            f"{server.url}/mcp",
            json=INIT,
            timeout=60,
            headers={"accept": "application/json, text/event-stream"},
        ).status_code
        == 200
    )
    created = run_hearth(server.data_dir, "tokens", "create", "--name", "mcp", "--json")
    assert created.returncode == 0, created.stderr
    token = json.loads(created.stdout)["token"]
    try:
        headers = {"accept": "application/json, text/event-stream"}
        refused = httpx.post(f"{server.url}/mcp", json=INIT, headers=headers, timeout=60)
        assert refused.status_code == 401 and "Bearer" in refused.headers["www-authenticate"]
        wrong = httpx.post(
            f"{server.url}/mcp",
            json=INIT,
            headers={**headers, "authorization": "Bearer hth_1_wrong"},
            timeout=60,
        )
        assert wrong.status_code == 401

        async def work(client: Client) -> Any:
            return await client.call_tool("search", {"query": "tide"})

        assert not session(server, work, token).is_error
    finally:
        revoked = run_hearth(server.data_dir, "tokens", "revoke", "mcp")
        assert revoked.returncode == 0, revoked.stderr
