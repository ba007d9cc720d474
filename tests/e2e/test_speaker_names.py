"""Naming a speaker in the web UI (issue 32): a recording's document view lists its speakers,
"Speaker 2 is Maria" is typed and saved, the chunks' labels say Maria at once, the API and a
reload keep it, and an empty name goes back to "Speaker 2". A real Chromium against a real
`hearth serve`; the recording's transcript is committed to the catalogue first (as the ingest
commits it; diarizing real audio is tests/integration/test_diarization.py's)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from core.knowledge import KnowledgeBase
from tests.e2e.conftest import Tab
from tests.integration.conftest import Server, backend_settings, start_server
from tests.integration.stored_talk import TURNS, commit_talk

PATH = "/recordings/kitchen_talk.wav"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`hearth serve` over a catalogue holding one two-speaker recording."""
    data = tmp_path_factory.mktemp("speakers-e2e") / "data"
    kb = KnowledgeBase(backend_settings(data))
    try:
        commit_talk(kb, PATH, TURNS)
    finally:
        kb.close()
    srv = start_server(data)
    yield srv
    srv.stop()


def _document(server: Server) -> int:
    docs = httpx.get(f"{server.url}/api/documents", timeout=60).json()
    return int(next(d["id"] for d in docs if d["path"] == PATH))


def _hints(tab: Tab) -> list[str]:
    return [t.strip() for t in tab.page.locator("#doc-chunks .chunk .hint").all_inner_texts()]


def test_a_speaker_is_named_in_the_document_view(desktop: Tab, server: Server) -> None:
    page = desktop.page
    doc = _document(server)
    desktop.open(f"#/knowledge/{doc}")
    panel = page.locator("#doc-speakers")
    panel.locator("li[data-speaker='2']").wait_for()
    assert panel.locator(".speaker-label").all_inner_texts() == ["Speaker 1", "Speaker 2"]
    assert [h.split(" · ")[1] for h in _hints(desktop)] == [
        "Speaker 1, 0:00–0:04",
        "Speaker 2, 0:05–0:09",
        "Speaker 1, 0:10–0:14",
    ]

    page.get_by_label("Name of speaker 2").fill("Maria")
    page.locator("li[data-speaker='2'] button[type='submit']").click()
    panel.get_by_role("status").filter(has_text="Speaker 2 is now called Maria").wait_for()
    page.locator("#doc-chunks .chunk .hint", has_text="Maria, 0:05").wait_for()
    assert [h.split(" · ")[1].split(",")[0] for h in _hints(desktop)] == [
        "Speaker 1",
        "Maria",
        "Speaker 1",
    ]
    desktop.shot("speaker-named")
    speakers = httpx.get(f"{server.url}/api/documents/{doc}/speakers", timeout=60).json()
    assert speakers == [{"speaker": 1, "label": "Speaker 1"}, {"speaker": 2, "label": "Maria"}]

    page.reload()  # kept: the field shows the name, the label says it
    page.wait_for_selector("body[data-ready='true']")
    page.locator("li[data-speaker='2'] .speaker-label", has_text="Maria").wait_for()
    assert page.get_by_label("Name of speaker 2").input_value() == "Maria"

    page.get_by_label("Name of speaker 2").fill("")  # an empty name: "Speaker 2" again
    page.get_by_label("Name of speaker 2").press("Enter")
    panel.get_by_role("status").filter(has_text="Speaker 2 has no name now").wait_for()
    page.locator("#doc-chunks .chunk .hint", has_text="Speaker 2, 0:05").wait_for()
    assert not desktop.console_errors, desktop.console_errors


def test_bad_names_are_a_4xx_naming_the_field(server: Server) -> None:
    doc = _document(server)
    with httpx.Client(base_url=server.url, timeout=60) as c:
        none = c.put(f"/api/documents/{doc}/speakers", json={"speaker": 7, "name": "Ole"})
        assert none.status_code == 400 and "speaker" in none.text, none.text
        long = c.put(f"/api/documents/{doc}/speakers", json={"speaker": 1, "name": "x" * 81})
        assert long.status_code == 400 and "name" in long.text, long.text
        gone = c.put(f"/api/documents/{doc + 999}/speakers", json={"speaker": 1, "name": "Ole"})
        assert gone.status_code == 404, gone.text
        assert c.get(f"/api/documents/{doc}/speakers").json()[0]["label"] == "Speaker 1"
