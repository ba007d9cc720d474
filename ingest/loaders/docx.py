"""Word documents (.docx): paragraphs and tables in order, sections by heading style."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.archive import check_zip
from ingest.loaders.base import register
from ingest.loaders.hidden import record_hidden, visible_paragraph_text
from ingest.loaders.sections import SectionBuilder


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


@register("docx", (".docx",))
class DocxLoader:
    """Word documents with the heading path of each section."""

    file_type = "docx"
    library = "python-docx"
    provenance = "heading (path)"

    def load(self, path: Path) -> list[Section]:
        """Sections under each heading; table rows become lines of cells."""
        check_zip(path, ".docx")
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        try:
            document = docx.Document(str(path))
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
                for row in item.rows:
                    cells = [c.text.strip() for c in row.cells]
                    builder.add(" | ".join(cells) if any(cells) else "")
        return record_hidden(builder.finish(), hidden)
