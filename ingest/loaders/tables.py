"""Rows of a table (a CSV file, a worksheet) cut into sections that each repeat the header."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from core.types import Section

MAX_ROWS = 10
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


def table_sections(
    sheet: str,
    rows: Iterable[tuple[int, list[str]]],
    max_rows: int = MAX_ROWS,
    max_chars: int = MAX_CHARS,
) -> list[Section]:
    """Sections of at most ``max_rows`` rows (and about ``max_chars`` characters), each opening
    with the sheet name and the header row, so a question about one cell finds its row.

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
            lines = [f"{sheet} ({word} {span})", " | ".join(header)] + [r for _, r in batch]
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
        line = " | ".join(cells)
        if batch and (len(batch) >= max_rows or size + len(line) > max_chars):
            flush()
        batch.append((number, line))
        size += len(line)
    flush()
    if header is not None and not sections:  # a header and nothing else
        sections.append(Section(f"{sheet}\n{' | '.join(header)}", {"sheet": sheet, "rows": "1"}))
    return sections
