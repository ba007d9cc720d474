"""Citations in place, in a real Chromium against a real `hearth serve`: ask about a three-page
PDF, click [1], and the dialog shows page 3 with marks over the passage's words (the overlay's
coordinates checked against pypdfium2's character boxes, at two zoom levels); a scanned page and
a photo show their OCR boxes; a recording's player starts at the cited second; a spreadsheet
citation shows the header row and the cited row. The passages that are not about asking are
opened from a document's chunks through the UI's own ``openCitation``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Tab
from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.viewer_files import PAGE3, PASSAGE_WORDS, QUESTION, write_corpus

pytestmark = [pytest.mark.slow]

OPEN = """async (source) => {
  const m = await import('/static/js/answer.js');
  m.openCitation(source);
}"""
BOXES = """() => {
  const img = document.querySelector('#cite-view .cite-img').getBoundingClientRect();
  const marks = [...document.querySelectorAll('#cite-view .cite-mark')].map((m) => {
    const r = m.getBoundingClientRect();
    return [r.left - img.left, r.top - img.top, r.right - img.left, r.bottom - img.top];
  });
  return {width: img.width, height: img.height, marks};
}"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_corpus(tmp_path_factory.mktemp("viewer-e2e") / "files")


@pytest.fixture(scope="module")
def server(corpus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`hearth serve` (SmolLM2) over the viewer's files, ingested by `hearth ingest` first."""
    data = tmp_path_factory.mktemp("viewer-e2e-data") / "data"
    done = run_hearth(data, "ingest", str(next(iter(corpus.values())).parent), timeout=900)
    assert done.returncode == 0, done.stderr
    srv = start_server(data)
    yield srv
    srv.stop()


def source_for(server: Server, path: Path, pick: Any = None) -> dict[str, Any]:
    """A source as the UI gets one (number, chunk, document, path, provenance, text)."""
    docs = httpx.get(f"{server.url}/api/documents", timeout=60).json()
    doc = next(d for d in docs if d["path"] == str(path.resolve()))
    chunks = httpx.get(f"{server.url}/api/documents/{doc['id']}", timeout=60).json()["chunks"]
    chunk = pick(chunks) if pick else chunks[0]
    return {
        "number": 1,
        "chunk_id": chunk["id"],
        "document_id": doc["id"],
        "path": doc["path"],
        "provenance": chunk["provenance"],
        "text": chunk["text"],
    }


def overlay_in_page_units(tab: Tab, width: float, height: float) -> list[list[float]]:
    """The dialog's mark rectangles, from screen pixels back to page units."""
    seen = tab.page.evaluate(BOXES)
    sx, sy = width / seen["width"], height / seen["height"]
    return [[m[0] * sx, m[1] * sy, m[2] * sx, m[3] * sy] for m in seen["marks"]]


def word_boxes(pdf_path: Path, page_index: int, words: list[str]) -> list[tuple[float, ...]]:
    """pypdfium2's tight character boxes of the words, top-left origin, in points."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        page = pdf[page_index]
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        height = page.get_height()
        boxes: list[tuple[float, ...]] = []
        for word in words:
            at = text.index(word)
            for i in range(at, at + len(word)):
                left, bottom, right, top = textpage.get_charbox(i)
                boxes.append((left, height - top, right, height - bottom))
        return boxes
    finally:
        pdf.close()


def covered(box: tuple[float, ...], rects: list[list[float]], tol: float = 1.5) -> bool:
    return any(
        r[0] - tol <= box[0]
        and box[2] <= r[2] + tol
        and r[1] - tol <= box[1]
        and box[3] <= r[3] + tol
        for r in rects
    )


def test_ask_then_click_1_shows_page_3_with_the_passage_marked(
    desktop: Tab, corpus: dict[str, Path]
) -> None:
    page = desktop.page
    desktop.open("#/chat")
    page.fill("#question", QUESTION)
    page.press("#question", "Enter")
    answer = page.locator("#messages li.msg.assistant").last
    answer.and_(page.locator("[data-state='done']")).wait_for(timeout=240_000)
    inline = answer.locator(".text a.cite-inline[data-number='1']")
    link = inline.first if inline.count() else answer.locator(".citations a[data-number='1']")
    link.click()
    page.locator("#citation").wait_for()
    figure = page.locator("#cite-view figure.cite-page[data-loaded='3']")
    figure.wait_for()
    assert page.locator("#cite-view .cite-pageno").inner_text() == "page 3 of 3"
    assert "harbour.pdf" in page.locator("#cite-where").inner_text()
    boxes = word_boxes(corpus["pdf"], 2, PASSAGE_WORDS)
    page_boxes = word_boxes(corpus["pdf"], 2, [w for _, line in PAGE3 for w in line.split()])
    for zoom in ("fit", "zoomed"):
        rects = overlay_in_page_units(desktop, 612, 792)
        assert rects, "no mark over the page"
        missed = [b for b in boxes if not covered(b, rects)]
        assert not missed, (zoom, missed, rects)
        # The chunk is the whole page: the marks hug its text, none strays past the page's
        # characters by more than a font's ascent or descent (an offset or a wrong scale would).
        text_box = [
            min(b[0] for b in page_boxes),
            min(b[1] for b in page_boxes),
            max(b[2] for b in page_boxes),
            max(b[3] for b in page_boxes),
        ]
        assert all(covered(tuple(r), [text_box], tol=5) for r in rects), (rects, text_box)
        if zoom == "fit":
            before = page.evaluate(BOXES)["width"]
            page.click("#cite-view .cite-zoom-in")
            assert page.evaluate(BOXES)["width"] > before * 1.3
    desktop.shot("citation-pdf-page3")
    page.click("#cite-view .cite-prev")
    page.locator("#cite-view figure.cite-page[data-loaded='2']").wait_for()
    assert page.locator("#cite-view .cite-mark").count() == 0
    assert page.locator("#cite-view .cite-pageno").inner_text() == "page 2 of 3"
    page.click("#cite-view .cite-next")
    page.locator("#cite-view figure.cite-page[data-loaded='3']").wait_for()
    assert page.locator("#cite-view .cite-mark").count() >= 1
    assert desktop.console_errors == []


@pytest.mark.parametrize("kind", ["scan", "photo"])
def test_a_scanned_page_and_a_photo_show_the_ocr_box(
    desktop: Tab, server: Server, corpus: dict[str, Path], kind: str
) -> None:
    source = source_for(server, corpus[kind])
    desktop.open("#/chat")
    desktop.page.evaluate(OPEN, source)
    desktop.page.locator("#cite-view[data-state='ready'] .cite-mark").first.wait_for()
    view = httpx.get(f"{server.url}/api/chunks/{source['chunk_id']}/view", timeout=60).json()
    width, height = view["page"]["width"], view["page"]["height"]
    rects = overlay_in_page_units(desktop, width, height)
    lines = source["provenance"]["lines"]
    assert len(rects) == len(lines)
    tol = 0.01 * max(width, height)
    for got, want in zip(rects, lines, strict=True):
        assert all(abs(g - w) <= tol for g, w in zip(got, want, strict=True)), (got, want)
    desktop.shot(f"citation-{kind}")
    assert desktop.console_errors == []


def test_a_recording_starts_at_the_cited_second(
    desktop: Tab, server: Server, corpus: dict[str, Path]
) -> None:
    if "audio" not in corpus:
        pytest.skip("real-data tier: ../shared/data/audio/jfk.flac is absent")
    source = source_for(
        server, corpus["audio"], lambda cs: max(cs, key=lambda c: c["provenance"]["start"])
    )
    start = float(source["provenance"]["start"])
    assert start > 5
    desktop.open("#/chat")
    desktop.page.evaluate(OPEN, source)
    desktop.page.wait_for_function(
        "() => { const a = document.querySelector('#cite-view audio');"
        " return a && a.readyState >= 1 && a.currentTime > 0; }"
    )
    now = desktop.page.evaluate("document.querySelector('#cite-view audio').currentTime")
    assert abs(now - start) < 0.5, (now, start)
    cited = desktop.page.locator("#cite-view .cite-lines li.cited")
    assert cited.count() == 1 and source["text"][:20] in cited.inner_text()
    assert desktop.console_errors == []


def test_a_spreadsheet_citation_shows_the_header_and_the_cited_row(
    desktop: Tab, server: Server, corpus: dict[str, Path]
) -> None:
    source = source_for(server, corpus["xlsx"])
    desktop.open("#/chat")
    desktop.page.evaluate(OPEN, source)
    table = desktop.page.locator("#cite-view[data-state='ready'] table.cite-table")
    table.wait_for()
    header = table.locator("thead th").all_inner_texts()
    assert header == ["Row", "Name", "Office", "Start year"]
    rows = [r.split("\t") for r in table.locator("tbody tr").all_inner_texts()]
    assert ["3", "Rafael Costa", "York", "2021"] in rows
    desktop.shot("citation-sheet")
    assert desktop.console_errors == []
