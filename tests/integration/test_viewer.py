"""Citations in place on a real `hearth serve` (loopback): every kind's view, the page PNG with
its marks, the original with byte ranges, `hearth show`, the security headers on every
response, and bad input (a file edited or deleted after ingest, unknown and path-like ids, a
page past the end, a token-protected server without a token): clear 4xx, never a 5xx."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.viewer_files import PASSAGE_WORDS, PHOTO_LINES, write_corpus

pytestmark = pytest.mark.slow


@dataclass
class Library:
    """The running server, the ingested files and their catalogue ids."""

    server: Server
    files: dict[str, Path]
    docs: dict[str, dict[str, Any]]

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(f"{self.server.url}{path}", timeout=120, **kw)

    def chunks(self, kind: str) -> list[dict[str, Any]]:
        doc = self.get(f"/api/documents/{self.docs[kind]['id']}").json()
        return list(doc["chunks"])


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("viewer")
    files = write_corpus(root / "files")
    data = root / "data"
    done = run_hearth(data, "ingest", str(root / "files"), timeout=900)
    assert done.returncode == 0, done.stderr
    srv = start_server(data, HEARTH_LLM__WARMUP="false")
    try:
        listed = httpx.get(f"{srv.url}/api/documents", timeout=60).json()
        by_path = {d["path"]: d for d in listed}
        docs = {kind: by_path[str(path.resolve())] for kind, path in files.items()}
        yield Library(srv, files, docs)
    finally:
        srv.stop()


def test_a_pdf_citation_shows_its_page_with_the_passage_marked(library: Library) -> None:
    import pypdfium2 as pdfium
    from PIL import Image

    cited = next(c for c in library.chunks("pdf") if "Skerry" in c["text"])
    view = library.get(f"/api/chunks/{cited['id']}/view").json()
    assert view["kind"] == "pdf" and view["original"]["ok"] is True
    page = view["page"]
    assert page["number"] == 3 and page["pages"] == 3 and page["marks"]["source"] == "text"
    rects = page["marks"]["rects"]
    # Every character of the passage's words (pypdfium2's own boxes) lies inside a mark.
    pdf = pdfium.PdfDocument(str(library.files["pdf"]))
    textpage = pdf[2].get_textpage()
    text = textpage.get_text_range()
    height = pdf[2].get_height()
    for word in PASSAGE_WORDS:
        at = text.index(word)
        for i in range(at, at + len(word)):
            left, bottom, right, top = textpage.get_charbox(i)
            assert any(
                r[0] - 0.5 <= left
                and right <= r[2] + 0.5
                and r[1] - 0.5 <= height - top
                and height - bottom <= r[3] + 0.5
                for r in rects
            ), (word, rects)
    pdf.close()
    # The page itself, and marked: a PNG of the page at the viewer's scale, with colour drawn.
    plain = library.get(page["image_url"])
    marked = library.get(page["marked_url"])
    assert plain.status_code == marked.status_code == 200
    assert plain.headers["content-type"] == "image/png"
    img = Image.open(io.BytesIO(plain.content))
    assert img.size == (round(612 * page["scale"]), round(792 * page["scale"]))
    drawn = Image.open(io.BytesIO(marked.content)).convert("RGB")
    x0, y0, _, y1 = (v * page["scale"] for v in rects[0])
    red, _, blue = drawn.getpixel((int(x0) - 1, int((y0 + y1) / 2)))  # type: ignore[misc]
    assert red > 200 and blue < 100  # the orange outline
    # Rendered once, then served from the cache on disk.
    assert any((library.server.data_dir / "viewer").glob("*/p3-*.png"))


def test_a_scanned_page_and_a_photo_show_their_ocr_boxes(library: Library) -> None:
    for kind in ("scan", "photo"):
        chunk = library.chunks(kind)[0]
        view = library.get(f"/api/chunks/{chunk['id']}/view").json()
        assert view["kind"] == ("pdf" if kind == "scan" else "image"), view
        marks = view["page"]["marks"]
        assert marks["source"] == "ocr" and marks["rects"] == chunk["provenance"]["lines"]
        assert all(0 <= v <= 1 for r in marks["fractions"] for v in r)
        png = library.get(view["page"]["marked_url"])
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    photo = library.get(f"/api/chunks/{library.chunks('photo')[0]['id']}/view").json()
    assert (photo["page"]["width"], photo["page"]["height"]) == (900, 700)
    assert PHOTO_LINES[1].split()[0] in photo["text"]


def test_a_recording_citation_gives_its_range_transcript_and_seekable_original(
    library: Library,
) -> None:
    if "audio" not in library.docs:
        pytest.skip("real-data tier: ../shared/data/audio/jfk.flac is absent")
    chunk = max(library.chunks("audio"), key=lambda c: c["provenance"]["start"])
    assert chunk["provenance"]["start"] > 5  # the second time the speech is heard
    view = library.get(f"/api/chunks/{chunk['id']}/view").json()
    audio = view["audio"]
    assert view["kind"] == "audio"
    assert audio["start"] == chunk["provenance"]["start"] and audio["end"] > audio["start"]
    assert any(line["cited"] and line["text"] == chunk["text"] for line in audio["lines"])
    size = library.files["audio"].stat().st_size
    whole = library.get(audio["media_url"])
    assert whole.status_code == 200 and len(whole.content) == size
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-type"].startswith("audio/")
    assert 'filename="speech.wav"' in whole.headers["content-disposition"]
    part = library.get(audio["media_url"], headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == whole.content[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{size}"
    outside = library.get(audio["media_url"], headers={"Range": f"bytes={size + 10}-"})
    assert outside.status_code == 416 and "range" in outside.json()["detail"]


def test_a_sheet_an_email_and_a_text_file_show_the_text_around_the_passage(
    library: Library,
) -> None:
    sheet = library.chunks("xlsx")[0]
    table = library.get(f"/api/chunks/{sheet['id']}/view").json()["table"]
    assert table["header"] == ["Name", "Office", "Start year"]
    assert {"number": 3, "cells": ["Rafael Costa", "York", "2021"]} in table["rows"]
    mail = library.get(f"/api/chunks/{library.chunks('eml')[0]['id']}/view").json()
    assert mail["message"]["subject"] == "Kiln schedule"
    assert "Dana Reyes" in mail["message"]["from"] and "2026" in mail["message"]["date"]
    note = library.get(f"/api/chunks/{library.chunks('text')[0]['id']}/view").json()
    assert note["kind"] == "text" and [p["cited"] for p in note["context"]].count(True) == 1


def test_hearth_show_writes_the_marked_page_and_prints_the_place(
    library: Library, tmp_path: Path
) -> None:
    cited = next(c for c in library.chunks("pdf") if "Skerry" in c["text"])
    out = tmp_path / "page.png"
    done = run_hearth(library.server.data_dir, "show", str(cited["id"]), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "harbour.pdf — page 3" in done.stdout and "marked" in done.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sheet = library.chunks("xlsx")[0]
    table = run_hearth(library.server.data_dir, "show", str(sheet["id"]))
    assert table.returncode == 0 and "3: Rafael Costa | York | 2021" in table.stdout
    missing = run_hearth(library.server.data_dir, "show", "99999")
    assert missing.returncode == 1 and "chunk 99999 does not exist" in missing.stderr
    no_page = run_hearth(library.server.data_dir, "show", str(sheet["id"]), "-o", str(out))
    assert no_page.returncode == 1 and "--output" in no_page.stderr


def test_security_headers_are_on_every_response(library: Library) -> None:
    cited = library.chunks("pdf")[0]
    paths = [
        "/",
        "/static/js/viewer.js",
        "/api/health",
        "/api/documents",
        "/no/such/route",
        f"/api/chunks/{cited['id']}/view",
        "/api/chunks/99999/view",
        f"/api/documents/{library.docs['pdf']['id']}/pages/1",
        f"/api/documents/{library.docs['pdf']['id']}/original",
        "/schema/openapi.json",
    ]
    for path in paths:
        resp = library.get(path)
        csp = resp.headers.get("content-security-policy", "")
        assert "default-src 'self'" in csp and "script-src 'self'" in csp, (path, resp.headers)
        assert resp.headers.get("x-content-type-options") == "nosniff", path


def test_bad_ids_and_pages_are_clear_4xx(library: Library) -> None:
    pdf = library.docs["pdf"]["id"]
    past = library.get(f"/api/documents/{pdf}/pages/9")
    assert past.status_code == 404 and "harbour.pdf has no page 9 (it has 3 pages)" in past.text
    assert library.get(f"/api/documents/{pdf}/pages/0").status_code == 400
    for path in (
        "/api/chunks/99999/view",
        "/api/documents/99999/original",
        "/api/documents/99999/pages/1",
    ):
        resp = library.get(path)
        assert resp.status_code == 404 and "99999 does not exist" in resp.json()["detail"], path
    text_doc = library.docs["text"]["id"]
    no_pages = library.get(f"/api/documents/{text_doc}/pages/1")
    assert no_pages.status_code == 404 and "no pages" in no_pages.json()["detail"]
    other_doc = library.chunks("xlsx")[0]["id"]
    wrong = library.get(f"/api/documents/{pdf}/pages/1", params={"chunk": other_doc})
    assert wrong.status_code == 404 and "not part of document" in wrong.json()["detail"]
    for path in (
        "/api/chunks/..%2F..%2Fetc%2Fpasswd/view",
        "/api/documents/..%2F..%2Fetc%2Fpasswd/original",
        "/api/documents/1/../../../../etc/passwd",
        f"/api/documents/{pdf}/pages/..%2F1",
        "/api/chunks/-1/view",
    ):
        resp = library.get(path)
        assert 400 <= resp.status_code < 500 and "root:" not in resp.text, (path, resp.status_code)


def test_a_file_edited_or_deleted_after_ingest_is_named_not_shown(library: Library) -> None:
    text = library.files["text"]
    doc = library.docs["text"]["id"]
    chunk = library.chunks("text")[0]["id"]
    original = text.read_bytes()
    # Same size, other bytes: only the sha256 tells.
    text.write_bytes(original.replace(b"Tomatoes", b"Potatoes"))
    resp = library.get(f"/api/documents/{doc}/original")
    assert resp.status_code == 409 and "notes.txt" in resp.json()["detail"]
    assert "changed since it was ingested" in resp.json()["detail"]
    view = library.get(f"/api/chunks/{chunk}/view").json()
    assert view["original"] == {"ok": False, "status": 409, "reason": resp.json()["detail"]}
    text.write_bytes(original + b"More.\n")  # another size
    assert library.get(f"/api/documents/{doc}/original").status_code == 409
    text.write_bytes(original)
    assert library.get(f"/api/documents/{doc}/original").status_code == 200
    # Deleted: 410, for the original and for a page; the view still gives the passage.
    pdf = library.files["pdf"]
    kept = pdf.read_bytes()
    pdf.unlink()
    try:
        pdf_doc = library.docs["pdf"]["id"]
        for path in (f"/api/documents/{pdf_doc}/original", f"/api/documents/{pdf_doc}/pages/2"):
            resp = library.get(path)
            assert resp.status_code == 410 and "harbour.pdf" in resp.json()["detail"], path
        pdf_chunk = library.chunks("pdf")[0]["id"]
        view = library.get(f"/api/chunks/{pdf_chunk}/view").json()
        assert view["kind"] == "text" and view["original"]["status"] == 410
    finally:
        pdf.write_bytes(kept)


def test_ask_json_sources_carry_their_view_url(library: Library) -> None:
    done = run_hearth(
        library.server.data_dir,
        "--model",
        "smollm2-135m",
        "ask",
        "--json",
        "What colours is the lighthouse on Skerry Island painted?",
        HEARTH_LLM__WARMUP="false",
    )
    assert done.returncode == 0, done.stderr
    sources = json.loads(done.stdout)["sources"]
    assert sources and all(s["view"] == f"/api/chunks/{s['chunk_id']}/view" for s in sources)


def test_zz_a_token_protected_server_refuses_the_viewer_without_a_token(
    library: Library,
) -> None:
    """Last in this module: creating a token locks the server for the tests after it."""
    made = run_hearth(library.server.data_dir, "tokens", "create", "--name", "v", "--json")
    token = json.loads(made.stdout)["token"]
    pdf = library.docs["pdf"]["id"]
    paths = [
        "/api/chunks/1/view",
        f"/api/documents/{pdf}/original",
        f"/api/documents/{pdf}/pages/1",
    ]
    for path in paths:
        resp = library.get(path)
        assert resp.status_code == 401, path
        assert "content-security-policy" in resp.headers
    auth = {"Authorization": f"Bearer {token}"}
    assert library.get(f"/api/documents/{pdf}/original", headers=auth).status_code == 200
