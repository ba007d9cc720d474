"""Tables in a PDF page's text layer, found in pypdf's layout-mode text and written one row per
line with the column headers (see :mod:`ingest.loaders.tables`).

pypdf's plain extraction writes a table's cells separated by single spaces, so "Nitrate mg/L" and
"Lead ug/L" run together and a value cannot be told from its column. Layout mode keeps the
horizontal gaps: a run of at least three lines that split at gaps of two or more spaces into the
same number (two or more) of short cells is taken as a table, its first line as the header. Two
columns of prose split the same way but into long cells, which the length limit leaves alone.
"""

from __future__ import annotations

import re

from ingest.loaders.tables import table_lines

_GAP = re.compile(r"\s{2,}")
#: A table's rows at least, and a cell's characters at most (longer: prose in columns).
MIN_ROWS = 3
MAX_CELL = 32


def _cells(line: str) -> list[str]:
    return [c for c in _GAP.split(line.strip()) if c]


def _is_row(cells: list[str]) -> bool:
    return len(cells) >= 2 and all(len(c) <= MAX_CELL for c in cells)


def layout_with_tables(layout_text: str) -> str | None:
    """The page's text with each table rewritten as rows with their headers, the other lines
    with their spacing collapsed; None when the page has no table (keep the plain text)."""
    lines = [ln for ln in layout_text.splitlines() if ln.strip()]
    out: list[str] = []
    found = False
    i = 0
    while i < len(lines):
        cells = _cells(lines[i])
        j = i + 1
        if _is_row(cells):
            while (
                j < len(lines) and len(_cells(lines[j])) == len(cells) and _is_row(_cells(lines[j]))
            ):
                j += 1
        if j - i >= MIN_ROWS:
            out += table_lines([_cells(ln) for ln in lines[i:j]])
            found = True
            i = j
        else:
            out.append(" ".join(lines[i].split()))
            i += 1
    return "\n".join(out) if found else None
