"""Tables in a photo or a scan, read from where OCR found each piece of text.

OCR gives lines of fragments; joined with spaces, a table's row loses which value sat under
which column ("S = 6% 50.47 3.03" under "GST Analysis Goods Tax Amount", a column's name over
two or three lines above). Here a run of lines whose fragments stand in the same columns, under
a block of lines of names, is written the way tables from other files are (``tables.row_line``):
``"GST Analysis: S = 6% | Goods: 50.47 | Tax Amount: 3.03"``, so a small model reads the value
of the column asked for.

What makes a table (all must hold, else the lines stay as they are):

- data rows: lines of three or more fragments, one after the first starting with a number, each
  fragment mostly (``INSIDE``) under exactly one column: the spans of the first data row's
  fragments, widened by the rows below;
- a line that is no data row, its fragments under columns, continues the row above when its
  first column is empty and each fragment is a number where the row above has one (a second
  value in a cell, not a sum's label), or when it is one fragment without a digit (a receipt's
  item name under its code); no line lies more than ``MAX_GAP`` line heights below the one above;
- a header block right above the first data row (no gap taller than ``MAX_GAP`` line heights):
  lines whose fragments are all names (a few words, no digit, no "field: value"), each over some
  column, naming at least two columns and more than half of them. A name over two columns (a
  merged header cell, "Results" over "Accuracy" and "Time to complete") heads both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

from core.ocr import OcrFragment, OcrLine
from ingest.loaders.tables import CELL_SEPARATOR, row_line

#: A fragment that starts with a number (an amount, a count, a percentage, "7.90*3", "CHF 12.50").
_NUMBER_START = re.compile(r"[-+(]?(?:[$€£¥₹]|[A-Z]{3}\s)?\s?\d")
#: Lines of a table have at least this many columns.
MIN_COLUMNS = 3
#: The share of a cell's width that lies under its column's span.
INSIDE = 0.5
#: Words in one fragment of a column's name (a longer one is prose above the table).
MAX_NAME_WORDS = 4
#: Lines of column names read above a table's first row.
MAX_HEADER_LINES = 8
#: The largest vertical gap, in median line heights, inside a header block and between it and
#: the first row.
MAX_GAP = 1.5


def _numeric(text: str) -> bool:
    return _NUMBER_START.match(text) is not None


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _name(fragment: OcrFragment) -> bool:
    """A column's name or part of one: a few words, no digit, no "field: value"."""
    text = fragment.text
    return (
        len(text.split()) <= MAX_NAME_WORDS and not _has_digit(text) and ": " not in text.rstrip()
    )


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return min(a[1], b[1]) - max(a[0], b[0])


@dataclass
class _Table:
    spans: list[tuple[int, int]]
    rows: list[list[list[str]]] = field(default_factory=list)
    lines: list[list[OcrLine]] = field(default_factory=list)

    def columns_of(self, line: OcrLine) -> list[int] | None:
        """The column of each fragment of ``line``; None when one is not mostly (``INSIDE``)
        under one column, or two share one."""
        found = []
        for piece in line.fragments:
            x = (piece.box[0], piece.box[2])
            width = max(1, x[1] - x[0])
            under = [i for i, span in enumerate(self.spans) if _overlap(x, span) >= INSIDE * width]
            if len(under) != 1 or under[0] in found:
                return None
            found.append(under[0])
        return found

    def alike(self, line: OcrLine, columns: list[int]) -> bool:
        """Whether each fragment of ``line`` is a number where the row above has one in its
        column, and words where it has words (a second value in a cell, not a sum's label)."""
        above = self.rows[-1]
        return all(
            bool(above[c]) and _numeric(above[c][0]) == _numeric(piece.text)
            for piece, c in zip(line.fragments, columns, strict=True)
        )

    def take(self, line: OcrLine, columns: list[int], goes_on: bool = False) -> None:
        """Add ``line`` (its fragments under ``columns``) as a row, or to the row above."""
        cells: list[list[str]]
        if goes_on and self.rows:
            cells = self.rows[-1]
            self.lines[-1].append(line)
        else:
            cells = [[] for _ in self.spans]
            self.rows.append(cells)
            self.lines.append([line])
        for piece, col in zip(line.fragments, columns, strict=True):
            cells[col].append(piece.text)
            lo, hi = self.spans[col]
            self.spans[col] = (min(lo, piece.box[0]), max(hi, piece.box[2]))


def _data_row(line: OcrLine) -> bool:
    pieces = line.fragments
    return len(pieces) >= MIN_COLUMNS and any(_numeric(p.text) for p in pieces[1:])


def _over(line: OcrLine, spans: list[tuple[int, int]]) -> list[tuple[str, list[int]]] | None:
    """Each fragment of a line of column names with the columns it stands over; None when the
    line is not one: a fragment that is no name (``_name``), or over no column."""
    if not line.fragments or not all(_name(p) for p in line.fragments):
        return None
    over = []
    for piece in line.fragments:
        x = (piece.box[0], piece.box[2])
        cols = [c for c, span in enumerate(spans) if _overlap(x, span) > 0]
        if not cols:
            return None
        over.append((piece.text, cols))
    return over


def _header(
    lines: list[OcrLine], spans: list[tuple[int, int]], height: float
) -> tuple[int, list[str]] | None:
    """Index of the header block's first line and each column's name, read from the lines
    ending just above the table (``lines``, top to bottom); None when they name too few."""
    names: list[list[str]] = [[] for _ in spans]
    start = len(lines)
    for i in range(len(lines) - 1, max(-1, len(lines) - 1 - MAX_HEADER_LINES), -1):
        if start < len(lines) and lines[start].box[1] - lines[i].box[3] > MAX_GAP * height:
            break
        over = _over(lines[i], spans)
        if over is None:
            break
        for text, cols in reversed(over):  # read bottom up: each line's names go first
            for c in cols:
                names[c].insert(0, text)
        start = i
    named = sum(1 for n in names if n)
    if start == len(lines) or named < 2 or 2 * named <= len(spans):
        return None
    return start, [" ".join(n) for n in names]


def _table_line(text: str, group: list[OcrLine]) -> OcrLine:
    boxes = [ln.box for ln in group]
    box = (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )
    pieces = tuple(p for ln in group for p in ln.fragments)
    return OcrLine(text, box, min(ln.score for ln in group), pieces)


def tabulate(lines: list[OcrLine]) -> list[OcrLine]:
    """``lines`` with each table found in them rewritten: its header block as one line of column
    names, each row (with its continuation lines) as one line ``"Name: cell | Name: cell"``,
    boxes the union of the lines it came from. Lines of no table are returned as they are."""
    if not lines:
        return []
    height = median(max(1, ln.box[3] - ln.box[1]) for ln in lines)
    out: list[OcrLine] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _data_row(line):
            out.append(line)
            i += 1
            continue
        table = _Table([(p.box[0], p.box[2]) for p in line.fragments])
        table.take(line, list(range(len(line.fragments))))
        j = i + 1
        while j < len(lines):
            nxt = lines[j]
            cols = table.columns_of(nxt)
            if nxt.box[1] - lines[j - 1].box[3] > MAX_GAP * height or cols is None:
                break
            if _data_row(nxt):
                table.take(nxt, cols)
            elif (cols[0] != 0 and table.alike(nxt, cols)) or (
                len(cols) == 1 and not _has_digit(nxt.text)
            ):
                table.take(nxt, cols, goes_on=True)
            else:
                break
            j += 1
        found = _header(out, table.spans, height)
        if found is None:
            out.append(line)
            i += 1
            continue
        start, header = found
        head_lines = out[start:]
        del out[start:]
        out.append(_table_line(CELL_SEPARATOR.join(n for n in header if n), head_lines))
        for cells, group in zip(table.rows, table.lines, strict=True):
            out.append(_table_line(row_line(header, [" ".join(c) for c in cells]), group))
        i = j
    return out
