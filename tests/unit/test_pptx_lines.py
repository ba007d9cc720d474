"""A slide's line breaks (Shift+Enter, ``a:br``) part its lines: joining a paragraph's runs alone
ran a title's lines together (batch 11's Census deck: "2020 Census Small Business
ParticipationSubcontracting Goals", "VENDOR EXPO2020 Census")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pptx import Presentation

from ingest.loaders.base import Section
from ingest.loaders.pptx import PptxLoader
from ingest.loaders.tables import table_lines


def _only_slide(deck: Any, path: Path) -> Section:
    """The one section of ``deck`` saved at ``path`` and read back by the loader."""
    deck.save(str(path))
    (section,) = PptxLoader().load(path)
    return section


def test_a_line_break_inside_a_paragraph_starts_a_new_line(tmp_path: Path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    title = slide.shapes.title
    assert title is not None
    paragraph = title.text_frame.paragraphs[0]
    paragraph.add_run().text = "2020 Census Small Business Participation"
    paragraph.add_line_break()
    paragraph.add_run().text = "Subcontracting Goals"
    section = _only_slide(deck, tmp_path / "census.pptx")
    lines = section.text.splitlines()
    assert "2020 Census Small Business Participation" in lines
    assert "Subcontracting Goals" in lines
    assert section.provenance["title"] == (
        "2020 Census Small Business Participation Subcontracting Goals"
    )


def test_a_slide_tables_rows_name_their_columns(tmp_path: Path) -> None:
    """A slide table's rows were "Europe | 34,000,000 | 45,000,000 | 47,000,000", and the model
    counted columns to find Q3 (held-out dev h531); each row now names its columns as the Word,
    PDF and HTML tables do. A merged header cell names every column it spans; a merged cell
    below stands once, in its first column."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    shape = slide.shapes.add_table(4, 4, 0, 0, 6_000_000, 2_000_000)
    table = shape.table  # type: ignore[attr-defined]
    table.cell(0, 1).merge(table.cell(0, 2))
    table.cell(3, 1).merge(table.cell(3, 2))
    rows = [
        ["", "Quarter sales", "", "Total"],
        ["Nordics", "12.5", "14.0", "26.5"],
        ["Baltics", "3.25", "2.5", "5.75"],
        ["Iberia", "not reported", "", "8.0"],
    ]
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            if text:
                table.cell(r, c).text = text
    lines = _only_slide(deck, tmp_path / "regions.pptx").text.splitlines()
    assert "Quarter sales | Quarter sales | Total" in lines
    assert "Nordics | Quarter sales: 12.5 | Quarter sales: 14.0 | Total: 26.5" in lines
    assert "Baltics | Quarter sales: 3.25 | Quarter sales: 2.5 | Total: 5.75" in lines
    assert "Iberia | Quarter sales: not reported | Total: 8.0" in lines


def test_a_first_row_of_values_names_no_column() -> None:
    """A contents table's first row "Investment Opportunities | 15" named the rows under it
    "Investment Opportunities: US | 15: 17" (held-out dev h737); a header of years stays one."""
    rows = [["Investment Opportunities", "15"], ["US", "17"], ["Risks", "14"]]
    assert table_lines(rows) == ["Investment Opportunities | 15", "US | 17", "Risks | 14"]
    years = [["Item", "2023", "2022"], ["Sales", "12", "10"]]
    assert table_lines(years)[-1] == "Item: Sales | 2023: 12 | 2022: 10"
