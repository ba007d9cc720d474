"""Whole-document modes in a real Chromium against a real `hearth serve` (SmolLM2, a small
context so a document spans several map groups): a document picked in the Knowledge view, "List
every…" chosen beside the question box, progress shown while the chunks are read, the cited
result; then a long document named in the box, its run stopped mid-way, and nothing stored."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Tab
from tests.integration.conftest import Server, start_server

pytestmark = [pytest.mark.slow]

HARBOUR = (
    "# Harbour notes\nThe ferry Puffin leaves Kelby pier at seven each morning.\n\n"
    "Deadline: harbour dues for the Puffin must be paid by 30 April 2027.\n"
)
FILLER = (
    "The warehouse on Harbour Street stores grain for the Kelby cooperative. Morwen Estates "
    "owns the building and maintains the slate roof. The loading bay faces the north quay."
)
#: Every state an answer's bubble goes through, recorded in the page.
RECORD_STATES = """() => {
  window.states = [];
  new MutationObserver((changes) => {
    for (const c of changes) window.states.push(c.target.dataset.state);
  }).observe(document.querySelector('#messages'),
    {subtree: true, attributes: true, attributeFilter: ['data-state']});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`hearth serve` (SmolLM2, 600-token context, 64-token chunks) with a short note and a
    long lease uploaded."""
    root = tmp_path_factory.mktemp("wholedoc-e2e")
    srv = start_server(
        root / "data",
        HEARTH_LLM__N_CTX="600",
        HEARTH_CHUNKING__CHUNK_TOKENS="64",
        HEARTH_CHUNKING__OVERLAP_TOKENS="8",
    )
    lease = "\n\n".join(f"## Section {i + 1}\n{FILLER} Clause {i} applies." for i in range(40))
    with srv.client() as c:
        for name, text in (("harbour.md", HARBOUR), ("lease.md", lease)):
            resp = c.post(
                "/api/documents",
                files={"file": (name, text.encode())},
                data={"collection": "default"},
            )
            assert resp.status_code == 201, resp.text
    yield srv
    srv.stop()


def cache_entries(server: Server) -> list[Path]:
    folder = server.data_dir / "wholedoc"
    return sorted(folder.rglob("*.json")) if folder.is_dir() else []


def idle(server: Server) -> bool:
    """No model generating or waiting (a stopped run has ended)."""
    models = httpx.get(f"{server.url}/api/system", timeout=30).json()["models"]
    return all(not m["queue"]["running"] and not m["queue"]["waiting"] for m in models.values())


def wait_idle(server: Server, limit: float = 120) -> None:
    """Poll until idle (a generous limit, not a timed assertion)."""
    deadline = time.monotonic() + limit
    while not idle(server):
        assert time.monotonic() < deadline, "the stopped run kept the model"
        time.sleep(0.2)


def test_pick_a_document_list_every_item_with_progress_then_stop_a_long_run(
    desktop: Tab, server: Server
) -> None:
    page = desktop.page
    desktop.open("#/knowledge")
    page.click("#docs a:text-is('harbour.md')")
    page.wait_for_selector("#doc-title:text-is('harbour.md')")
    page.click("#doc-pick")  # to the chat, in a whole-document mode, the document picked
    page.wait_for_selector("#view-chat:not([hidden]) #whole-picked .chip:has-text('harbour.md')")
    assert page.input_value("#ask-mode") == "summarise"
    page.select_option("#ask-mode", "extract")
    page.evaluate(RECORD_STATES)
    page.fill("#question", "deadline")
    page.click("#send")
    answer = page.wait_for_selector(".msg.assistant[data-state='done']")
    assert "reading" in page.evaluate("window.states"), "no progress was shown"
    bar = page.locator(".msg.assistant progress.whole-progress")
    assert bar.get_attribute("max") == answer.get_attribute("data-chunks-total")
    assert int(bar.evaluate("b => b.value")) == int(bar.evaluate("b => b.max")) >= 1
    assert "Read all" in page.inner_text(".msg.assistant .whole-status")
    text = page.inner_text(".msg.assistant .text")
    assert text.startswith("[extract mode") and "30 April 2027" in text, text
    assert "List every deadline in harbour.md" in page.inner_text(".msg.user")
    page.click(".msg.assistant .citations a.cite")  # the cited chunk opens
    page.wait_for_selector("#citation[open] #cite-text:has-text('30 April 2027')")
    page.click("#citation button[value='close']")

    stored = cache_entries(server)
    page.click("#whole-picked .chip button")  # harbour.md out, lease.md named in the box
    page.fill("#whole-doc-name", "lease.md")
    page.click("#whole-add")
    page.fill("#question", "roof repairs")
    page.click("#send")
    page.wait_for_function(
        "() => Number(document.querySelector('.msg.assistant:last-child')?.dataset.chunksRead) > 0"
    )
    last = page.locator(".msg.assistant").last
    total = int(last.get_attribute("data-chunks-total") or 0)
    assert int(last.get_attribute("data-chunks-read") or 0) < total
    assert "left" in last.locator(".whole-status").inner_text()
    page.click("#stop")
    page.wait_for_selector(".msg.assistant:last-child[data-state='stopped']")
    assert "nothing was stored" in last.locator(".meta").inner_text()
    wait_idle(server)
    assert cache_entries(server) == stored, "a stopped run stored something"
    # the stopped request may be logged as a failed load; nothing else may go wrong
    errors = [e for e in desktop.console_errors if "Failed to load resource" not in e]
    assert not errors, errors
