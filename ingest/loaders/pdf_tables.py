"""Tables in a PDF page's text layer, found from the positions of its words in pypdf's
layout-mode text and written one row per line with the column headers (see
:mod:`ingest.loaders.tables`), whether or not the table has ruling lines.

pypdf's plain extraction writes a table's cells separated by single spaces, so "Nitrate mg/L" and
"Lead ug/L" run together and a value cannot be told from its column. Layout mode keeps each word
at its horizontal place: a run of at least three lines that split at gaps of two or more spaces
into the same number (two or more) of short cells is taken as a table, its first line as the
header. The last column of a table of three or more columns may hold a longer description
("Notes: Layouts of scanned modern magazines and scientific reports", a table without ruling
lines); such a table's rows must also stand column under column (each cell's character span
overlaps its column's, give or take a little). Two columns of prose split the same way but
into long cells, which the length limits leave alone.

A caption ("Table 1: Current layout detection models ...") that pypdf writes away from its
table (a table drawn as its own object comes last in the layout text) is moved to the line
before the table, so that the rows and the words of their caption are read together.

pdfplumber's text-strategy table finder was tried on the held-out PDFs (issue 35) and not used:
on prose pages it found whole-page "tables" (a two-column paper, a memo, a report page), and it
split the model-zoo table's columns wrongly ("Large Model Notes" as one cell).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.loaders.tables import table_lines

_CELL = re.compile(r"\S+(?: \S+)*")
#: A table's rows at least, and a cell's characters at most (longer: prose in columns).
MIN_ROWS = 3
MAX_CELL = 32
#: The last column's characters at most, in a table of at least ``LONG_LAST_FROM`` columns.
MAX_LAST_CELL = 90
LONG_LAST_FROM = 3
#: Characters a cell may stand beside its column's span and still be under it: at least
#: ``ALIGN_SLACK``, or this share of the blank between the column and its nearest neighbour
#: (centred columns of different widths: "~70%" above "electricity").
ALIGN_SLACK = 2
ALIGN_SHARE = 0.25
_CAPTION = re.compile(r"^\s*(?:Table|Tab\.)\s+[0-9IVX]+[.:]\s", re.IGNORECASE)


@dataclass(frozen=True)
class _Cell:
    text: str
    start: int
    end: int


def _cells(line: str) -> list[_Cell]:
    """The cells of a layout line: runs of words split at gaps of two or more spaces, with
    their character columns."""
    return [_Cell(m.group(0), m.start(), m.end()) for m in _CELL.finditer(line)]


def _is_row(cells: list[_Cell]) -> bool:
    if len(cells) < 2:
        return False
    *first, last = cells
    longest_last = MAX_LAST_CELL if len(cells) >= LONG_LAST_FROM else MAX_CELL
    return all(len(c.text) <= MAX_CELL for c in first) and len(last.text) <= longest_last


def _slack(columns: list[tuple[int, int]], i: int) -> float:
    gaps = [columns[i][0] - columns[i - 1][1]] if i > 0 else []
    gaps += [columns[i + 1][0] - columns[i][1]] if i + 1 < len(columns) else []
    return max(ALIGN_SLACK, ALIGN_SHARE * min(gaps, default=0))


def _aligned(columns: list[tuple[int, int]], cells: list[_Cell]) -> bool:
    """Each cell lies under its column (their spans overlap, give or take ``_slack``)."""
    return len(cells) == len(columns) and all(
        c.start <= end + _slack(columns, i) and c.end >= start - _slack(columns, i)
        for i, ((start, end), c) in enumerate(zip(columns, cells, strict=True))
    )


def _widen(columns: list[tuple[int, int]], cells: list[_Cell]) -> list[tuple[int, int]]:
    return [(min(s, c.start), max(e, c.end)) for (s, e), c in zip(columns, cells, strict=True)]


def _long(cells: list[_Cell]) -> bool:
    return len(cells[-1].text) > MAX_CELL


def _table_end(lines: list[str], i: int) -> int:
    """The end (exclusive) of the run of rows starting at line ``i``: as many cells as the
    first, and once a row has a long last cell, each under its column (pypdf's layout places
    a header's words only roughly above a table of short cells, so those are not held to it)."""
    cells = _cells(lines[i])
    if not _is_row(cells):
        return i + 1
    columns = [(c.start, c.end) for c in cells]
    long = _long(cells)
    j = i + 1
    while j < len(lines):
        row = _cells(lines[j])
        if not (_is_row(row) and len(row) == len(cells)):
            break
        long = long or _long(row)
        if long and not _aligned(columns, row):
            break
        columns = _widen(columns, row)
        j += 1
    return j


def layout_with_tables(layout_text: str) -> str | None:
    """The page's text with each table rewritten as rows with their headers (its caption, if
    the page has one apart from it, on the line before), the other lines with their spacing
    collapsed; None when the page has no table (keep the plain text)."""
    lines = [ln for ln in layout_text.splitlines() if ln.strip()]
    blocks: list[list[str] | str] = []  # a table's lines, or one line of text
    i = 0
    while i < len(lines):
        j = _table_end(lines, i)
        if j - i >= MIN_ROWS:
            blocks.append(table_lines([[c.text for c in _cells(ln)] for ln in lines[i:j]]))
            i = j
        else:
            blocks.append(" ".join(lines[i].split()))
            i += 1
    tables = [n for n, b in enumerate(blocks) if isinstance(b, list)]
    if not tables:
        return None
    _place_captions(blocks, tables)
    out: list[str] = []
    for block in blocks:
        out.extend(block if isinstance(block, list) else [block])
    return "\n".join(line for line in out if line)


def _place_captions(blocks: list[list[str] | str], tables: list[int]) -> None:
    """Move each table's caption to the line before it, when the page has as many captions as
    tables and a caption stands apart from its table (in page order: the n-th caption is the
    n-th table's)."""
    captions = [n for n, b in enumerate(blocks) if isinstance(b, str) and _CAPTION.match(b)]
    if len(captions) != len(tables):
        return
    for caption, table in zip(captions, tables, strict=True):
        if caption == table - 1:
            continue
        text = blocks[caption]
        table_block = blocks[table]
        assert isinstance(text, str) and isinstance(table_block, list)
        blocks[table] = [text, *table_block]
        blocks[caption] = ""
