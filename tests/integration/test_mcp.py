"""`hearth mcp` over stdio, driven by the MCP SDK's own client (a real subprocess, SmolLM2):
the tools, resources and prompts it lists; search with a PDF page; a cited answer; a long
document read page by page; writes refused; wrong arguments named; nothing of the user's text
in its log."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult

from samples.pdf import write_pdf
from service.mcp.reading import page_of, trim_overlap
from tests.integration.conftest import REPO, hearth_env, run_hearth

FACT = "The lighthouse keeper of Varrow Point logs the tide at 05:12 each morning."
FERRY = "The ferry to Aldmoor leaves from pier nine at 7:40 every Tuesday."
MARKERS = [f"marker-{i:03d}" for i in range(60)]


def long_text() -> str:
    """60 paragraphs, each with its own marker word, about 24,000 characters."""
    return "\n\n".join(
        f"Section {i}. The {m} paragraph describes cellar number {i} of the old brewery, its "
        f"vaulted ceiling, the barrels stored there in winter, and the stone stairs that lead "
        f"down from the yard. Visitors counted {i * 7} steps in all, and the brewer kept a "
        f"ledger of every barrel that went in or out of cellar {i} for thirty years."
        for i, m in enumerate(MARKERS)
    )


@dataclass
class Session:
    """A connected SDK client on its own event loop (a portal thread), and the server's log."""

    portal: BlockingPortal
    client: Client
    errlog: Any

    def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        result: CallToolResult = self.portal.call(self.client.call_tool, name, arguments)
        return result

    def log(self) -> str:
        self.errlog.flush()
        self.errlog.seek(0)
        return str(self.errlog.read())


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory holding a 4-page PDF (the fact on page 3), a long text and a note."""
    root = tmp_path_factory.mktemp("mcp")
    docs = root / "docs"
    docs.mkdir()
    write_pdf(
        docs / "coast.pdf",
        [
            "Harbour opening hours are posted at the quay.",
            "The fish market sells mackerel and crab in the summer.",
            FACT,
            "The coastal path is closed during storms.",
        ],
    )
    (docs / "brewery.txt").write_text(long_text())
    (docs / "ferry.md").write_text(f"# Ferries\n{FERRY}\n")
    done = run_hearth(root / "data", "ingest", "-q", str(docs))
    assert done.returncode == 0, done.stderr
    (root / "outside").mkdir()
    (root / "outside" / "secret.txt").write_text("Not for the library.")
    return root


@pytest.fixture(scope="module")
def stdio(library: Path) -> Iterator[Session]:
    """`hearth mcp` as a client's config starts it, its stderr kept in a file."""
    env = hearth_env(library / "data", HEARTH_LLM__WARMUP="false")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service.cli", "--model", "smollm2-135m", "mcp"],
        env=env,
        cwd=str(REPO),
    )
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as errlog,
        start_blocking_portal() as portal,
    ):
        client = Client(stdio_client(params, errlog=errlog), read_timeout_seconds=600)
        with portal.wrap_async_context_manager(client):
            yield Session(portal, client, errlog)


def test_lists_tools_resources_and_prompts(stdio: Session) -> None:
    tools = {t.name: t for t in stdio.portal.call(stdio.client.list_tools).tools}
    assert set(tools) == {"search", "ask", "list_documents", "get_document", "ingest", "remove"}
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["k"]["maximum"] == 50
    assert tools["search"].output_schema and "hits" in tools["search"].output_schema["properties"]
    assert tools["search"].annotations and tools["search"].annotations.read_only_hint

    resources = stdio.portal.call(stdio.client.list_resources).resources
    assert {r.name for r in resources} == {"coast.pdf", "brewery.txt", "ferry.md"}
    assert all(str(r.uri).startswith("hearth://document/") for r in resources)
    coast = next(r for r in resources if r.name == "coast.pdf")
    read = stdio.portal.call(stdio.client.read_resource, str(coast.uri))
    assert FACT in read.contents[0].text  # type: ignore[union-attr]

    prompts = {p.name: p for p in stdio.portal.call(stdio.client.list_prompts).prompts}
    assert {"qa", "summarize", "translate"} <= set(prompts)
    assert prompts["qa"].title and prompts["qa"].title.startswith("qa v")
    got = stdio.portal.call(
        stdio.client.get_prompt, "qa", {"question": "When does the tide get logged?"}
    )
    assert FACT in got.messages[0].content.text  # type: ignore[union-attr]


def test_search_finds_the_fact_with_its_page(stdio: Session) -> None:
    result = stdio.call("search", {"query": "When does the Varrow Point keeper log the tide?"})
    assert not result.is_error, result.content
    hits = (result.structured_content or {})["hits"]
    top = hits[0]
    assert top["document"] == "coast.pdf" and FACT in top["text"]
    assert top["provenance"]["page"] == 3 and "page 3" in top["label"]
    assert top["link"].endswith(f"#/knowledge/{top['document_id']}?chunk={top['chunk_id']}")
    only_text = stdio.call("search", {"query": "tide keeper", "kind": "text", "k": 3})
    assert all(h["document"] == "brewery.txt" for h in only_text.structured_content["hits"])
    in_file = stdio.call("search", {"query": "ferry pier", "file": "ferry.md"})
    assert [h["document"] for h in in_file.structured_content["hits"]] == ["ferry.md"]


def test_ask_returns_a_cited_answer(stdio: Session) -> None:
    result = stdio.call("ask", {"question": "When does the ferry to Aldmoor leave?"})
    assert not result.is_error, result.content
    body = result.structured_content or {}
    assert body["answer"] and body["model"] == "smollm2-135m"
    assert body["citations"] and body["citations"][0]["document"] == "ferry.md"
    assert FERRY in body["citations"][0]["text"]
    assert "grounded" in body["grounding"] and body["answer_id"]


def test_get_document_pages_through_a_long_file(stdio: Session) -> None:
    docs = stdio.call("list_documents", {"limit": 2}).structured_content or {}
    assert docs["total"] == 3 and len(docs["documents"]) == 2 and docs["next_offset"] == 2
    rest = stdio.call("list_documents", {"offset": 2}).structured_content or {}
    every = docs["documents"] + rest["documents"]
    brewery = next(d for d in every if d["document"] == "brewery.txt")
    assert brewery["chunks"] > 5 and rest["next_offset"] is None

    texts, cursor, pages = [], 0, 0
    while cursor is not None:
        page = (
            stdio.call(
                "get_document",
                {"document_id": brewery["document_id"], "cursor": cursor, "max_chars": 2000},
            ).structured_content
            or {}
        )
        assert len(page["text"]) <= 2000
        texts.append(page["text"])
        cursor, pages = page["next_cursor"], pages + 1
        assert pages < 100
    whole = "\n".join(texts)
    assert pages > 5
    positions = [whole.find(m) for m in MARKERS]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    # The chunker's overlap is given once: no paragraph's marker twice.
    assert all(whole.count(f"The {m} paragraph") == 1 for m in MARKERS)

    pdf = next(d for d in every if d["document"] == "coast.pdf")
    page3 = (
        stdio.call(
            "get_document",
            {"document_id": pdf["document_id"], "unit": "page", "start": 3, "end": 3},
        ).structured_content
        or {}
    )
    assert page3["text"] == f"[page 3]\n{FACT}" and page3["total_chunks"] == 1


def test_writes_are_refused_when_off(stdio: Session, library: Path) -> None:
    for tool in ("ingest", "remove"):
        result = stdio.call(tool, {"path": str(library / "docs" / "ferry.md")})
        assert result.is_error
        assert "path: writes over MCP are off" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("search", {"query": "tide", "k": "many"}, "k: "),
        ("search", {"query": "tide", "k": 500}, "k: "),
        ("search", {}, "query: Field required"),
        ("search", {"query": "   "}, "query: must not be empty"),
        ("search", {"query": "tide", "kind": "spreadsheet-ish"}, "kind: must be one of"),
        ("search", {"query": "tide", "file": "nowhere.txt"}, "file: no document"),
        ("get_document", {"document_id": "first"}, "document_id: "),
        ("get_document", {"document_id": 99999}, "id: document 99999 does not exist"),
        ("get_document", {"document_id": 1, "unit": "chapter"}, "unit: "),
        ("get_document", {"document_id": 1, "cursor": 9999}, "cursor: 9999 is outside"),
        ("ask", {"question": ["a", "list"]}, "question: "),
        ("ask", {"question": "x", "conversation_id": 4242}, "conversation"),
        ("list_documents", {"limit": 0}, "limit: "),
    ],
)
def test_wrong_arguments_are_errors_naming_them(
    stdio: Session, tool: str, arguments: dict[str, Any], named: str
) -> None:
    result = stdio.call(tool, arguments)
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert named in text and "Traceback" not in text and "pydantic" not in text


def test_no_user_text_in_the_log(stdio: Session) -> None:
    stdio.call("search", {"query": "Which cellar had the vaulted ceiling?"})
    log = stdio.log()
    for secret in ("vaulted", "Varrow", "Aldmoor", "cellar number"):
        assert secret not in log
    assert "Traceback" not in log


def test_help_lists_mcp_beside_the_other_commands(library: Path) -> None:
    done = run_hearth(library / "data", "--help", timeout=120)
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines() if line}
    assert {"mcp", "serve", "ingest", "remove", "ask", "status", "tokens", "templates"} <= listed
    about = run_hearth(library / "data", "mcp", "--help", timeout=120)
    assert "stdio" in about.stdout and "mcp.allow_writes" in about.stdout


def test_page_of_keeps_order_and_cuts_to_budget() -> None:
    @dataclass
    class C:
        ordinal: int
        text: str
        provenance: dict[str, Any]

    chunks = [
        C(0, "alpha beta gamma delta epsilon zeta eta theta iota kappa", {"page": 1}),
        C(1, "epsilon zeta eta theta iota kappa lambda mu nu", {"page": 1}),
        C(2, "x" * 50, {"start": 10.0, "end": 20.0}),
    ]
    assert trim_overlap(chunks[0].text, chunks[1].text) == "lambda mu nu"
    first = page_of(chunks, 0, 100)
    assert first.ordinals == [0, 1] and first.next_cursor == 2 and first.text.startswith("[page 1]")
    assert "epsilon" in first.text and first.text.count("epsilon") == 1
    timed = page_of(chunks, 0, 500, "second", 15, 30)
    assert timed.ordinals == [2] and timed.text.startswith("[0:10–0:20]")
