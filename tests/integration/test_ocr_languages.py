"""Issue 35, item 6: text of other languages in photos. rapidocr's bundled PP-OCRv6 small
recognition model is multilingual: German and French lines (umlauts, ß, accents, ç) are read
letter for letter through ingest, found by their own words, and ``hearth formats`` names the
languages. The page is drawn with matplotlib's DejaVu Sans (Pillow's default font has no
glyphs for "ü" or "é": drawn with it, the letters are missing from the image itself)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.commands import formats_command
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from tests.integration.media import dejavu_page

pytestmark = pytest.mark.embedded_only(
    "OCR is the subject; other tests write the catalogue and stores on this pass: one pass"
)

LINES = [
    "Rechnung für Gartenarbeiten",
    "Größe: 12 Stück, Gebühr 3,50 €",
    "Straße der Überführung 5, Zürich",
    "Reçu de la société générale",
    "Élève à l'école près du château",
]


def _page(path: Path) -> None:
    dejavu_page(
        path, [(30, 30 + 52 * i, line) for i, line in enumerate(LINES)], (900, 60 + 52 * len(LINES))
    )


def test_german_and_french_lines_are_read_with_their_letters(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    image = tmp_path / "rechnung.png"
    _page(image)
    report = pipeline.ingest([image])
    assert report.count("added") == 1, report.results
    hits = Retriever(kb, embedder).retrieve("Straße der Überführung Zürich", method="bm25")
    assert hits and hits[0].path.endswith("rechnung.png"), hits
    text = "\n".join(h.text for h in hits if h.path.endswith("rechnung.png"))
    for line in LINES:
        assert line in text, (line, text)
    french = Retriever(kb, embedder).retrieve("l'école près du château", method="bm25")
    assert french and french[0].path.endswith("rechnung.png"), french


def test_formats_names_the_languages_ocr_reads() -> None:
    result = CliRunner().invoke(formats_command, ["--json"])
    assert result.exit_code == 0, result.output
    image = next(r for r in json.loads(result.output) if r["file_type"] == "image")
    assert image["library"].startswith("rapidocr, PP-OCRv6 small (bundled), reads: ")
    assert {"German", "French", "English", "Spanish"} <= set(
        image["library"].split("reads: ", 1)[1].split(", ")
    ), image["library"]
