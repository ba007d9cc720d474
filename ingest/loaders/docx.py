"""Word documents (.docx): paragraphs and tables in order, sections by heading style."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.encryption import office_package
from ingest.loaders.hidden import record_hidden, visible_paragraph_text
from ingest.loaders.sections import SectionBuilder
from ingest.loaders.tables import table_lines


def _heading_level(paragraph: Any) -> int | None:
    name = (paragraph.style.name or "") if paragraph.style is not None else ""
    if name == "Title":
        return 1
    if name.startswith("Heading "):
        try:
            return int(name.split()[1])
        except (IndexError, ValueError):
            return None
    return None


@handles("docx", (".docx",))
class DocxLoader:
    """Word documents with the heading path of each section."""

    file_type = "docx"
    library = "python-docx"
    provenance = "heading (path)"

    def load(self, path: Path) -> list[Section]:
        """Sections under each heading; a table's rows become lines, each with its headers."""
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        with office_package(path, ".docx", "Word document") as package:
            try:
                document = docx.Document(str(package))
            except Exception as exc:
                raise LoaderError(f"{path.name}: not a readable Word document ({exc})") from exc
        builder = SectionBuilder()
        hidden = 0
        for item in document.iter_inner_content():
            if isinstance(item, Paragraph):
                text, left_out = visible_paragraph_text(item)
                hidden += left_out
                level = _heading_level(item) if text else None
                if level is not None:
                    builder.heading(level, text)
                else:
                    builder.add(text)
            elif isinstance(item, Table):
                for line in table_lines(_table_rows(item)):
                    builder.add(line)
        return record_hidden(builder.finish(), hidden)


def _table_rows(table: Any) -> list[list[str]]:
    """Cell texts per row. python-docx gives a merged cell once per grid column it spans: in the
    first row (the header) its text stands for every column it spans; below, for the first."""
    rows: list[list[str]] = []
    for r, row in enumerate(table.rows):
        cells, previous = [], None
        for cell in row.cells:
            same = previous is not None and cell._tc is previous
            cells.append("" if same and r > 0 else cell.text.strip())
            previous = cell._tc
        rows.append(cells)
    return rows
