"""A table cell is found by its row and column words (issue 21): tables in DOCX, XLSX and PDF go
through the real loaders, the bundled embedder and the catalogue's keyword index, and the passage
that reaches the model holds the asked row with its column headers, above the score cut."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from openpyxl import Workbook

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from tests.unit.pdfgen import write_pdf

STAFF = [
    ("Name", "Role", "Office", "Start year"),
    ("Priya Natarajan", "Data engineer", "Leeds", "2019"),
    ("Tomas Varga", "Accountant", "Bristol", "2016"),
    ("Helen Okafor", "Site manager", "Glasgow", "2021"),
    ("Marcus Lindqvist", "Buyer", "Leeds", "2018"),
    ("Amara Diallo", "Designer", "Cardiff", "2020"),
]
PRICES = [
    ("Item", "Q1 2026", "Q2 2026", "Q3 2026", "Supplier"),
    ("Brass hinge", "4.15", "4.35", "4.55", "Calder Hardware"),
    ("Steel hinge", "3.05", "3.25", "3.45", "Calder Hardware"),
    ("Oak shelf", "21.90", "22.40", "23.10", "Penrose Timber"),
    ("Pine shelf", "12.80", "13.20", "13.60", "Penrose Timber"),
]
SAMPLES = [
    ("Sample", "pH", "Nitrate mg/L", "Lead ug/L"),
    ("W-01", "7.2", "11.4", "2.1"),
    ("W-02", "6.9", "14.1", "3.8"),
    ("W-03", "7.4", "9.7", "1.2"),
    ("W-04", "8.1", "22.6", "4.4"),
]


def _docx(path: Path) -> None:
    d = docx.Document()
    d.add_heading("Staff directory", level=1)
    d.add_paragraph("Everyone working for Northgate Supplies, with their office and start year.")
    table = d.add_table(rows=0, cols=len(STAFF[0]))
    for row in STAFF:
        for cell, value in zip(table.add_row().cells, row, strict=True):
            cell.text = value
    d.save(str(path))


def _xlsx(path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Prices"
    for row in PRICES:
        ws.append([row[0], *(float(v) for v in row[1:4]), row[4]] if row[0] != "Item" else row)
    wb.save(path)


def _pdf(path: Path) -> None:
    ops = ["BT /F1 14 Tf 72 740 Td (Water quality results, autumn survey) Tj ET"]
    for r, row in enumerate(SAMPLES):  # each cell its own text object, as PDF tables are
        for c, cell in enumerate(row):
            ops.append(f"BT /F1 11 Tf {72 + c * 110} {700 - r * 20} Td ({cell}) Tj ET")
    write_pdf(path, ["\n".join(ops).encode()])


CASES = [
    ("staff.docx", _docx, "Which office does Marcus Lindqvist work in?", "Marcus Lindqvist",
     "Office: Leeds"),
    ("prices.xlsx", _xlsx, "What did a steel hinge cost in Q2 2026?", "Steel hinge",
     "Q2 2026: 3.25"),
    ("water.pdf", _pdf, "What was the nitrate level of sample W-04?", "W-04",
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
