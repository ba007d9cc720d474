"""Word documents (.docx): paragraphs and tables in order, sections by heading style.

Word wraps content in elements python-docx's iterators pass over: content controls (``w:sdt``,
around paragraphs, tables, cells' paragraphs or runs), custom XML and smart tags, tracked
insertions (``w:ins``), simple fields. Their text is read as the reader sees it; deleted text of
tracked changes (``w:del``, ``w:moveFrom``) is not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.cues import speaker_turns
from ingest.loaders.encryption import office_package
from ingest.loaders.hidden import record_hidden, run_hidden
from ingest.loaders.sections import SectionBuilder
from ingest.loaders.tables import table_lines

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
#: Block-level wrappers whose content stands in the document's flow.
_BLOCK_WRAPPERS = {f"{_W}customXml"}
#: Run-level wrappers whose runs are part of the paragraph's visible text.
_RUN_WRAPPERS = {
    f"{_W}{t}" for t in ("hyperlink", "ins", "smartTag", "customXml", "fldSimple", "moveTo")
}


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


def _unwrap(
    container: Any, leaves: Mapping[str, Callable[[Any], Any]], wrappers: set[str]
) -> Iterator[Any]:
    """``leaves``' objects made from the children of ``container`` in document order, looking
    inside content controls (their ``w:sdtContent``) and ``wrappers``."""
    for child in container.iterchildren():
        make = leaves.get(child.tag)
        if make is not None:
            yield make(child)
        elif child.tag == f"{_W}sdt":
            content = child.find(f"{_W}sdtContent")
            if content is not None:
                yield from _unwrap(content, leaves, wrappers)
        elif child.tag in wrappers:
            yield from _unwrap(child, leaves, wrappers)


def iter_blocks(container: Any, parent: Any) -> Iterator[Any]:
    """python-docx ``Paragraph`` and ``Table`` objects of ``container`` (a body, cell or
    content-control element) in document order, content controls and custom XML opened."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    leaves = {f"{_W}p": lambda e: Paragraph(e, parent), f"{_W}tbl": lambda e: Table(e, parent)}
    return _unwrap(container, leaves, _BLOCK_WRAPPERS)


def _iter_runs(paragraph: Any) -> Iterator[Any]:
    """python-docx ``Run`` objects of a paragraph, through run-level wrappers."""
    from docx.text.run import Run

    return _unwrap(paragraph._p, {f"{_W}r": lambda e: Run(e, paragraph)}, _RUN_WRAPPERS)


class _Reader:
    """Visible text of paragraphs and table cells, counting the hidden characters left out."""

    def __init__(self) -> None:
        self.hidden = 0

    def paragraph(self, paragraph: Any) -> str:
        parts: list[str] = []
        for run in _iter_runs(paragraph):
            if run_hidden(run):
                self.hidden += len(run.text)
            else:
                parts.append(run.text)
        return "".join(parts).strip()

    def cell(self, cell: Any) -> str:
        """A cell's paragraphs and nested tables (their rows as lines), in order."""
        from docx.table import Table

        lines: list[str] = []
        for block in iter_blocks(cell._tc, cell):
            if isinstance(block, Table):
                lines.extend(table_lines(self.table_rows(block)))
            else:
                lines.append(self.paragraph(block))
        return "\n".join(line for line in lines if line).strip()

    def table_rows(self, table: Any) -> list[list[str]]:
        """Cell texts per row. python-docx gives a merged cell once per grid column it spans: in
        the first row (the header) its text stands for every column it spans; below, for the
        first."""
        rows: list[list[str]] = []
        for r, row in enumerate(table.rows):
            cells, previous = [], None
            for cell in row.cells:
                same = previous is not None and cell._tc is previous
                cells.append("" if same and r > 0 else self.cell(cell))
                previous = cell._tc
            rows.append(cells)
        return rows


@handles("docx", (".docx",))
class DocxLoader:
    """Word documents with the heading path of each section."""

    file_type = "docx"
    library = "python-docx"
    provenance = "heading (path)"

    def load(self, path: Path) -> list[Section]:
        """Sections under each heading; a table's rows become lines, each with its headers; a
        meeting transcript's cues become turns (``cues.speaker_turns``).

        Raises:
            LoaderError: the file is not a readable Word document (or needs a password).
        """
        import docx
        from docx.table import Table

        with office_package(path, ".docx", "Word document") as package:
            try:
                document = docx.Document(str(package))
            except Exception as exc:
                raise LoaderError(f"{path.name}: not a readable Word document ({exc})") from exc
        builder = SectionBuilder()
        reader = _Reader()
        for item in iter_blocks(document.element.body, document._body):
            if isinstance(item, Table):
                for line in table_lines(reader.table_rows(item)):
                    builder.add(line)
                continue
            text = reader.paragraph(item)
            level = _heading_level(item) if text else None
            if level is not None:
                builder.heading(level, text)
            else:
                builder.add(text)
        # a meeting transcript's cues as turns ("James Bond (0:03–0:04): Umm.")
        sections = [Section(speaker_turns(s.text), s.provenance) for s in builder.finish()]
        return record_hidden(sections, reader.hidden)
