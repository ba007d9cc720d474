"""Tables as text a reader (and a retriever) can use: every row written with its column headers
("Office: Leeds | Start year: 2019"), so that a cell is found by its row and column words and a
small model reads the value of the column asked for, not its neighbour's. Sheets and CSV files are
cut into sections that each repeat the header; tables inside documents (DOCX, HTML, PDF) become
one line per row."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from core.types import Section

MAX_ROWS = 10
CELL_SEPARATOR = " | "  # between a row's cells; the chunker splits a too-long row there
MAX_CHARS = 500


def cell_text(value: Any) -> str:
    """A cell as text: whole floats without ``.0``, dates in ISO form, None as empty."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())


def row_line(header: list[str], cells: list[str]) -> str:
    """One row with its headers: ``"Name: Ann | Office: Leeds"`` (empty cells left out; a cell
    without a header, or equal to it, as itself)."""
    parts = []
    for i, cell in enumerate(cells):
        if not cell:
            continue
        name = header[i] if i < len(header) else ""
        parts.append(f"{name}: {cell}" if name and name != cell else cell)
    return CELL_SEPARATOR.join(parts)


def table_lines(rows: list[list[str]]) -> list[str]:
    """A table inside a document as lines: the header row, then each row with its headers.

    The first row with two or more non-empty cells is the header; rows before it (a title row
    spanning the table) are kept as they are. A merged cell should come as its text in the first
    column it spans and empty strings after (a merged header cell: its text in every column).
    """
    rows = [r for r in rows if any(r)]
    start = next((i for i, r in enumerate(rows) if sum(1 for c in r if c) >= 2), None)
    if start is None:
        return [CELL_SEPARATOR.join(c for c in r if c) for r in rows]
    header = rows[start]
    out = [CELL_SEPARATOR.join(c for c in r if c) for r in rows[: start + 1]]
    out += [row_line(header, r) for r in rows[start + 1 :]]
    return out


def table_sections(
    sheet: str,
    rows: Iterable[tuple[int, list[str]]],
    max_rows: int = MAX_ROWS,
    max_chars: int = MAX_CHARS,
) -> list[Section]:
    """Sections of at most ``max_rows`` rows (and about ``max_chars`` characters), each opening
    with the sheet name and the header row, every row with its headers (:func:`row_line`), so a
    question about one cell finds its row.

    ``rows`` are (row number, cells); the first non-empty row is the header. Provenance is
    ``{"sheet": name, "rows": "first-last"}`` in the numbering a spreadsheet shows.
    """
    header: list[str] | None = None
    sections: list[Section] = []
    batch: list[tuple[int, str]] = []
    size = 0

    def flush() -> None:
        nonlocal batch, size
        if batch and header is not None:
            first, last = batch[0][0], batch[-1][0]
            span = f"{first}-{last}" if last != first else str(first)
            word = "rows" if last != first else "row"
            lines = [f"{sheet} ({word} {span})", CELL_SEPARATOR.join(header)] + [
                r for _, r in batch
            ]
            text = "\n".join(lines)
            sections.append(Section(text, {"sheet": sheet, "rows": span}))
        batch, size = [], 0

    for number, cells in rows:
        while cells and not cells[-1]:
            cells = cells[:-1]
        if not any(cells):
            continue
        if header is None:
            header = [c or f"column {i}" for i, c in enumerate(cells, start=1)]
            continue
        header += [f"column {i}" for i in range(len(header) + 1, len(cells) + 1)]
        line = row_line(header, cells)
        if batch and (len(batch) >= max_rows or size + len(line) > max_chars):
            flush()
        batch.append((number, line))
        size += len(line)
    flush()
    if header is not None and not sections:  # a header and nothing else
        sections.append(Section(f"{sheet}\n{' | '.join(header)}", {"sheet": sheet, "rows": "1"}))
    return sections
