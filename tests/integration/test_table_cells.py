"""A table cell is found by its row and column words (issue 21): tables in DOCX, XLSX and PDF go
through the real loaders, the bundled embedder and the catalogue's keyword index, and the passage
that reaches the model holds the asked row with its column headers, above the score cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from samples.tables import write_docx, write_pdf_table, write_xlsx
from service.answering.retrieval import Retriever

CASES = [
    ("staff.docx", write_docx, "Which office does Marcus Lindqvist work in?", "Marcus Lindqvist",
     "Office: Leeds"),
    # A short question about one row: its chunk's cosine (0.15) is under min_score, but the
    # passage holds the names asked about.
    ("staff.docx", write_docx, "What is Helen Okafor's role?", "Helen Okafor",
     "Role: Site manager"),
    ("prices.xlsx", write_xlsx, "What did a steel hinge cost in Q2 2026?", "Steel hinge",
     "Q2 2026: 3.25"),
    ("water.pdf", write_pdf_table, "What was the nitrate level of sample W-04?", "W-04",
     "Nitrate mg/L: 22.6"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "write", "question", "row", "cell"), CASES)
def test_a_cell_is_retrieved_by_row_and_column_with_its_header(
    kb: KnowledgeBase,
    embedder: Embedder,
    tmp_path: Path,
    name: str,
    write: object,
    question: str,
    row: str,
    cell: str,
) -> None:
    path = tmp_path / name
    write(path)  # type: ignore[operator]
    assert not IngestPipeline(kb, embedder).ingest([path]).failures
    passages = Retriever(kb, embedder).retrieve(question)  # the default k and score cut
    assert passages, f"{name}: nothing passed the score cut for {question!r}"
    lines = [ln for p in passages[:2] for ln in p.text.splitlines() if row in ln]
    assert any(cell in ln for ln in lines), (name, [p.text for p in passages])
