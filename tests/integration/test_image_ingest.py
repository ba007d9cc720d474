"""Images and scanned PDFs become knowledge through rapidocr's bundled models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from ingest.pipeline import IngestPipeline
from samples.images import write_receipt
from service.answering.retrieval import Retriever
from tests.integration.media import text_image

pytestmark = pytest.mark.embedded_only(
    "OCR is the subject; other tests write the catalogue and stores on this pass: one pass"
)


def test_phototest_is_found_by_a_phrase_of_its_text(
    shared_data: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    image = shared_data / "images" / "phototest.png"
    note = shared_data / "docs" / "md" / "wiki.md"
    report = pipeline.ingest([image, note])
    assert report.count("added") == 2, report.results
    top = Retriever(kb, embedder).retrieve("the quick brown dog jumped over the lazy fox")[0]
    assert top.path.endswith("phototest.png") and top.file_type == "image"
    assert "quick brown dog" in top.text
    assert top.provenance["page"] == 1
    x0, y0, x1, y1 = top.provenance["box"]
    assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
    assert all(len(b) == 4 for b in top.provenance["lines"])
    assert top.label.startswith("phototest.png, page 1, box (")


def test_image_only_pdf_becomes_searchable(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    page: Any = text_image(["The lighthouse keeper counted", "seventeen gulls at dawn."])
    pdf = tmp_path / "scan.pdf"
    page.save(pdf, resolution=150)  # PIL writes the page as an image only, no text layer
    report = pipeline.ingest([pdf])
    assert report.count("added") == 1, report.results
    top = Retriever(kb, embedder).retrieve("How many gulls did the lighthouse keeper count?")[0]
    assert top.path.endswith("scan.pdf")
    assert "seventeen gulls" in top.text.lower()
    assert top.provenance["page"] == 1 and top.provenance["ocr"] is True
    x0, _, x1, _ = top.provenance["box"]  # PDF points: the page is 1240 px at 150 dpi = 595 pt
    assert 0 < x0 < x1 < 600


def test_blank_image_is_empty_and_broken_image_fails_clearly(
    tmp_path: Path, pipeline: IngestPipeline
) -> None:
    blank: Any = text_image([], width=400, height=300)
    blank.save(tmp_path / "blank.png")
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg" * 10)
    report = pipeline.ingest([tmp_path / "blank.png", tmp_path / "broken.jpg"])
    by_name = {Path(r.path).name: r for r in report.results}
    assert by_name["blank.png"].action == "empty"
    assert by_name["broken.jpg"].action == "failed"
    assert (by_name["broken.jpg"].error or "").startswith("broken.jpg: not a readable image")


def test_oversized_image_is_scaled_down_and_boxes_stay_in_its_pixels(
    tmp_path: Path, settings: HearthSettings, embedder: Embedder
) -> None:
    settings.ocr.max_side = 1024
    wide: Any = text_image(["Invoice total due: ninety euros"], width=3000, height=900, size=90)
    wide.save(tmp_path / "wide.webp", lossless=True)
    kb = KnowledgeBase(settings)
    try:
        result = IngestPipeline(kb, embedder).ingest([tmp_path / "wide.webp"]).results[0]
        assert result.action == "added", result
        top = Retriever(kb, embedder).retrieve("invoice total due")[0]
        assert "ninety euros" in top.text.lower()
        x1 = top.provenance["box"][2]
        assert x1 > 1024  # mapped back to the original 3000-pixel width
    finally:
        kb.close()


def test_a_tilted_receipt_is_read_row_by_row_with_each_price_beside_its_item(
    pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    # rapidocr finds the item and its price as two fragments; tilted 2.5 degrees, each price
    # sat higher than its item and was read before it ("1.85\nOat milk 1L\n3.20\n...").
    receipt = tmp_path / "receipt.jpg"
    write_receipt(receipt)
    assert pipeline.ingest([receipt]).count("added") == 1
    top = Retriever(kb, embedder).retrieve("How much did the oat milk cost?")[0]
    lines = top.text.splitlines()
    for line in ("Oat milk 1L 1.85", "Sourdough loaf 3.20", "Cheddar 400g 4.10", "TOTAL 12.10"):
        assert line in lines, lines
