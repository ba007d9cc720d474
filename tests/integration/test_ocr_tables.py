"""Tables in photos and scans are read by where OCR found each cell (ingest/loaders/
ocr_tables.py): a receipt's tax table and a results table whose column names run over two
lines come out as rows with their column names, through ingest with the bundled OCR model, and
retrieval finds the row by its words. The page is drawn with matplotlib's DejaVu Sans."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from tests.integration.media import dejavu_page

pytestmark = pytest.mark.embedded_only(
    "OCR is the subject; other tests write the catalogue and stores on this pass: one pass"
)

#: (x, y, text) in pixels: prose, a two-line header over five columns, three rows (the second
#: with a second value under its last two cells), a sum under the last columns, then prose.
CELLS = [
    (40, 30, "Survey of the four ward kitchens"),
    (40, 120, "Ward"), (300, 120, "Meals"), (520, 120, "Waste"), (760, 120, "Cost per"),
    (300, 160, "served"), (520, 160, "share"), (760, 160, "meal"),
    (40, 230, "North"), (300, 230, "412"), (520, 230, "7.5%"), (760, 230, "3.10"),
    (40, 290, "South"), (300, 290, "388"), (520, 290, "12.0%"), (760, 290, "2.85"),
    (520, 330, "(9.4%)"), (760, 330, "(2.70)"),
    (40, 390, "Harbour"), (300, 390, "505"), (520, 390, "4.2%"), (760, 390, "3.45"),
    (520, 450, "Total"), (760, 450, "1,305"),
    (40, 560, "The kitchens were visited in March."),
]  # fmt: skip


def test_a_photographed_table_is_read_as_rows_with_their_column_names(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    image = dejavu_page(tmp_path / "kitchens.png", CELLS, (1000, 640))
    report = pipeline.ingest([image])
    assert report.count("added") == 1, report.results
    hits = Retriever(kb, embedder).retrieve("waste share of the South kitchen", method="bm25")
    text = "\n".join(h.text for h in hits if h.path.endswith("kitchens.png"))
    lines = text.splitlines()
    assert "Ward | Meals served | Waste share | Cost per meal" in lines, text
    assert (
        "Ward: South | Meals served: 388 | Waste share: 12.0% (9.4%) | Cost per meal: 2.85 (2.70)"
        in lines
    ), text
    assert "Ward: Harbour | Meals served: 505 | Waste share: 4.2% | Cost per meal: 3.45" in lines
    # Prose above and the sum's line below stay lines of their own.
    assert "Survey of the four ward kitchens" in lines and "Total 1,305" in lines, text
