"""Issue 35, item 4: a PDF table without ruling lines (a paper's model-zoo table with a long
"Notes" column) is found from its words' columns and written as rows with their headers, its
caption on the line before; prose PDFs, and layouts whose cells do not stand in columns, are
left as they were. Real files through the loader (bench/heldout/files)."""

from __future__ import annotations

from pathlib import Path

from ingest.loaders import loader_for
from ingest.loaders.pdf_tables import layout_with_tables

FILES = Path(__file__).resolve().parents[2] / "bench" / "heldout" / "files"


def _text(name: str) -> str:
    path = FILES / name
    return "\n".join(s.text for s in loader_for(path).load(path))


def test_a_table_without_rules_becomes_rows_with_headers_and_its_caption() -> None:
    lines = _text("layout-parser-paper-with-table.pdf").splitlines()
    row = (
        "Dataset: Newspaper [17] | Base Model1: F | Large Model: - | Notes: Layouts of scanned "
        "US newspapers from the 20th century"
    )
    assert row in lines, lines
    assert "Dataset: TableBank [18] | Base Model1: F | Large Model: F" in "\n".join(lines)
    caption = lines.index("Dataset | Base Model1 | Large Model | Notes") - 1
    assert lines[caption].startswith("Table 1: Current layout detection models"), lines


def test_a_prose_pdf_is_read_as_before() -> None:
    from pypdf import PdfReader

    for name in ("fake-memo.pdf", "2305.03393v1-pg9.pdf"):  # a memo; a paper's prose page
        pages = PdfReader(FILES / name).pages
        plain = "\n".join((p.extract_text() or "").strip() for p in pages)
        assert _text(name) == plain, name


def test_a_long_last_column_needs_its_cells_under_their_columns() -> None:
    table = (
        "Name        Kind     Notes\n"
        "Ash         tree     Grows in damp woods across most of northern Europe\n"
        "Heather     shrub    Flowers on open moorland in late summer and autumn\n"
    )
    text = layout_with_tables(table) or ""
    assert "Name: Ash | Kind: tree | Notes: Grows in damp woods across most of" in text, text
    drifting = (
        "Name        Kind     Notes\n"
        "   a long run of prose words      then some more    and a much longer tail of prose here\n"
        "Heather          shrub                Flowers on open moorland in late summer\n"
    )
    assert layout_with_tables(drifting) is None
    two_columns = "Ash     Grows in damp woods across most of northern Europe and beyond\n" * 3
    assert layout_with_tables(two_columns) is None  # a long cell needs three columns or more
