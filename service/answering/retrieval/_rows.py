"""The rows of a table passage a question names by a value ("ISIN", "Maple Leafs"), rows as
ingest/loaders/tables.py writes them: each cell names its column ("Team: Leafs | Cups: 13")."""

from __future__ import annotations

import re

from core.text import NUMERIC_CELL, STOP_WORDS, asked_months, dates, fold, month_year

#: Between a row's cells.
CELL_GAP = " | "
#: A row's value of words at least this long may be how a question names it.
MIN_NAME_CHARS = 3


def _named_values(row: str) -> list[str]:
    """The row's values a question may name it by, each at least ``MIN_NAME_CHARS`` long: its
    values of words ("Maple Leafs", "TOR"), and its first cell's value even if a figure (a
    table of years: "Year: 2015")."""
    return [
        v
        for k, v in enumerate(_values(row))
        if len(v) >= MIN_NAME_CHARS
        and (k == 0 or not NUMERIC_CELL.fullmatch(v))
        and v.lower() not in STOP_WORDS
    ]


def is_row(line: str) -> bool:
    """True for a table row that names its columns ("Team: Leafs | Cups: 13")."""
    return CELL_GAP in line and ": " in line


def value_named_rows(lines: list[str], question: str) -> set[int]:
    """Indexes into ``lines`` of the rows (lines with cells naming their columns) that
    ``question`` names by one of their values, matched whole and case-folded, or by a date
    however either writes it ("14 July 2017" names the "14-jul-17" row: ``dates``), or by a
    month of a year ("July 2012" names the "DATE: JUL-2012" row: ``month_year``)."""
    asked = f" {fold(question)} "
    days = {d for _, d, _ in dates(question)}
    months = {(m, y) for _, m, y in asked_months(question)} - {(d.month, d.year) for d in days}
    return {
        k
        for k, line in enumerate(lines)
        if is_row(line)
        and (
            any(re.search(rf"\W{re.escape(fold(v))}\W", asked) for v in _named_values(line))
            or (days and any(d in days for _, d, _ in dates(line)))
            or (months and any(month_year(v) in months for v in _values(line)))
        )
    }


def _values(row: str) -> list[str]:
    return [c.split(": ", 1)[-1].strip() for c in row.split(CELL_GAP)]


def is_cells_line(line: str) -> bool:
    """True for a line of table cells, a row or a header line: three cells cut by ``CELL_GAP``
    or more, or two that name their columns (a sentence's "{xx | x is any binary string}" is
    no row)."""
    cells = line.split(CELL_GAP)
    return len(cells) >= 3 or (len(cells) == 2 and all(": " in c for c in cells))


def carries_headers(text: str) -> bool:
    """True for table text whose rows each name their columns (at least half of its lines
    with cells): any row means something on its own."""
    rows = [ln for ln in text.splitlines() if "|" in ln]
    return bool(rows) and sum(": " in ln for ln in rows) >= len(rows) / 2


def names_a_row(text: str, question: str) -> bool:
    """True when ``text`` is a table whose rows name their columns and ``question`` names one
    of its rows by a value."""
    return carries_headers(text) and bool(value_named_rows(text.splitlines(), question))
