"""The rows of a table passage a question names by a value ("ISIN", "Maple Leafs"), rows as
ingest/loaders/tables.py writes them: each cell names its column ("Team: Leafs | Cups: 13")."""

from __future__ import annotations

import datetime as dt
import re

from core.text import (
    NUMERIC_CELL,
    STOP_WORDS,
    asked_months,
    dates,
    fold,
    holds_all,
    month_year,
    names_in,
)

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
    words = set(re.findall(r"[^\W_]+(?:[/.,][^\W_]+)*", asked))
    days = {d for _, d, _ in dates(question)}
    months = {(m, y) for _, m, y in asked_months(question)} - {(d.month, d.year) for d in days}
    return {
        k
        for k, line in enumerate(lines)
        if is_row(line)
        and (
            any(re.search(rf"\W{re.escape(fold(v))}\W", asked) for v in _named_values(line))
            or _label_parts_named(_values(line)[0], words)
            or (days and any(d in days for _, d, _ in dates(line)))
            or (months and any(month_year(v) in months for v in _dated_values(line)))
        )
    }


def _label_parts_named(label: str, words: set[str]) -> bool:
    """True when a row's label of two or more parts, a figure among them, has every part among
    a question's ``words`` (folded), however the question orders them: "2012/2013 - 5" is named
    by "period 5 of 2012/2013" (held-out batch 9 dev h912), "2026 Q2" by "Q2 of 2026"."""
    parts = [p for p in re.split(r"\s+[-–]\s+|\s+", fold(label).strip()) if p]
    return (
        len(parts) >= 2
        and any(any(ch.isdigit() for ch in p) for p in parts)
        and any(len(p) >= 3 for p in parts)
        and all(p in words for p in parts)
    )


def _values(row: str) -> list[str]:
    return [c.split(": ", 1)[-1].strip() for c in row.split(CELL_GAP)]


def _dated_values(row: str) -> list[str]:
    """The row's values read after their cell's last ": ", as a date or month is (a header
    made of several header rows' labels names the cell "Units: Description: Name: DATE:
    JUL-2012")."""
    return [c.rsplit(": ", 1)[-1].strip() for c in row.split(CELL_GAP)]


#: A day (a date) or a month of a year ((month, year)).
When = dt.date | tuple[int, int]

#: A question asking how something changed or compares, which needs the dates it does not name
#: too ("how much more had been harvested by 14 July than the week before?").
_COMPARING = re.compile(
    r"\b(?:chang\w*|differ\w*|compar\w*|since|between|previous|prior|earlier|before|after|"
    r"increas\w*|decreas\w*|grow\w*|grew|growth|ris(?:e|es|en)|rose|f[ae]ll|falls|drop\w*|"
    r"trend\w*|progress\w*|evolv\w*|over\s+time|from\b.*\bto)\b",
    re.IGNORECASE,
)


def when(value: str) -> When | None:
    """The day or month of a year a cell's value (or a column's name) is and nothing more:
    "14-jul-17" -> 2017-07-14, "JUL-2012" -> (7, 2012); None for anything else ("Q2 2026",
    "Sales, January-June 2023", "2021")."""
    value = value.strip()
    found = dates(value)
    if len(found) == 1 and found[0][0].strip(" .,") == value.strip(" .,"):
        return found[0][1]
    return month_year(value)


def asked_whens(question: str) -> set[When]:
    """The days and months of a year ``question`` asks about, each once (a day's month is not
    added: "14 July 2017" asks a day); empty for a question comparing or asking a change
    (``_COMPARING``), which needs the neighbouring dates too."""
    if _COMPARING.search(question):
        return set()
    days = {d for _, d, _ in dates(question)}
    months = {(m, y) for _, m, y in asked_months(question)} - {(d.month, d.year) for d in days}
    return {*days, *months}


def is_asked(value: When, asked: set[When]) -> bool:
    """True when the day or month ``value`` is one ``asked``, or a day of an asked month, or
    the month of an asked day (a monthly table read for "14 July 2012")."""
    if value in asked:
        return True
    if isinstance(value, dt.date):
        return (value.month, value.year) in asked
    return any(isinstance(a, dt.date) and (a.month, a.year) == value for a in asked)


def row_whens(lines: list[str]) -> dict[int, When]:
    """Indexes into ``lines`` of the rows (``is_row``) labelled by a day or month (their first
    cell's value: "Regiões do IMEA: 30-jun-17 | ..."), with it."""
    out = {}
    for k, line in enumerate(lines):
        if is_row(line) and (label := when(_dated_values(line)[0])) is not None:
            out[k] = label
    return out


def other_dated_cells(cells: list[str], asked: set[When]) -> set[int]:
    """Indexes into a row's ``cells`` ("Header: value") of those whose column is named by a
    day or month not ``asked`` ("7-jul-17: 61,41%" for "by 14 July 2017"), when another of its
    columns is named by one asked; empty otherwise. The first cell (the row's label) never."""
    named = {
        i: is_asked(w, asked)
        for i, c in enumerate(cells[1:], 1)
        if ": " in c and (w := when(c.split(": ", 1)[0])) is not None
    }
    if not asked or not any(named.values()):
        return set()
    return {i for i, held in named.items() if not held}


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


def lacked_names(piece: str, question: str) -> list[str]:
    """The names ``question`` asks about (``names_in``) that ``piece`` lacks, when ``piece`` is a
    table whose rows name their columns and the question names one of its rows by a value
    (``names_a_row``): a wide row cut into several chunks holds the asked column in another
    ("Ireland" for "July 2012": the "DATE: JUL-2012" row's first chunk holds Belgium and
    Germany). Empty otherwise."""
    names = names_in(question)
    lacking = [n for n in names if not holds_all([n], piece)]
    if not lacking or not names_a_row(piece, question):
        return []
    return lacking


def piece_holding(others: list[str], lacking: list[str], question: str) -> int | None:
    """The index into ``others`` (the other chunks of a row cut into several, nearest first) of
    the first that names the same row (``names_a_row``) and holds one of the ``lacking`` names
    (``lacked_names``); None when none does."""
    for i, other in enumerate(others):
        if any(holds_all([n], other) for n in lacking) and names_a_row(other, question):
            return i
    return None
