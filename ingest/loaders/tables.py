"""Tables as text a reader (and a retriever) can use: every row written with its column headers
("Office: Leeds | Start year: 2019"), so that a cell is found by its row and column words and a
small model reads the value of the column asked for, not its neighbour's. Sheets and CSV files are
cut into sections that each repeat the header; tables inside documents (DOCX, HTML, PDF) become
one line per row."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from core.errors import LoaderError
from core.text import NUMERIC_CELL
from core.types import Section

#: A table's caption line: "Table 324. Arrests by Sex and Age: 2009", "Table 6.8: Franchising".
TABLE_CAPTION = re.compile(
    r"^\s*(?i:Table|Tab\.)\s+[0-9IVX]+(?:[-.][0-9]+)*(?:[.:]\s|\s\s|\s(?=[A-Z]))"
)
MAX_ROWS = 10
CELL_SEPARATOR = " | "  # between a row's cells; the chunker splits a too-long row there
MAX_CHARS = 500


#: A number format's literal text, escaped characters and bracketed parts (colours, locales,
#: elapsed-time markers): what is left are its codes ("mmm-yy" -> "mmm-yy").
_FORMAT_LITERALS = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]')


def cell_text(value: Any, number_format: str = "") -> str:
    """A cell as text: whole floats without ``.0``, others to 15 significant digits as Excel
    shows them (a formula's 3.1470000000000002 is 3.147), None as empty, and a date as its
    sheet shows it, written in full: a month format without a day ("mmm-yy": "Jan-02") as
    "January 2002", a day with the month's name ("mmmm d, yyyy") as "January 23, 2002", any
    other day in ISO form ("2002-01-23"; a time of day after it only when there is one:
    "2002-01-23 14:30"), a time alone as "14:30", a number in a percent format as a percentage
    (``percent_text``). ``number_format`` is the cell's Excel number format ("" when unknown).
    Questions say "in January 2002", which "2002-01-01T00:00:00"
    matches in no way."""
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool) and "%" in number_format:
        return percent_text(float(value), number_format)
    places = _decimal_places(number_format)
    if isinstance(value, float) and places is not None and not value.is_integer():
        return f"{value:.{places}f}"  # as the sheet shows it: 2245.59 in "#,##0" is 2246
    if isinstance(value, float):  # Excel shows 15 significant digits: 3.1470000000000002 -> 3.147
        shown = float(f"{value:.15g}")
        return str(int(shown)) if shown.is_integer() else repr(shown)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return _date_text(value, number_format)
    return _FOOTNOTE_MARK.sub("", " ".join(str(value).split()))


#: A footnote's mark on a label ("May¹", "Jan†", "Total*"): a superscript digit, a dagger or a
#: star after a word of three letters or more (a unit's "km²" keeps its square). "May¹" is no
#: word "May" for search or for a question's "May 2015".
_FOOTNOTE_MARK = re.compile(r"(?<=[^\W\d_]{3})[\u00b9\u00b2\u00b3\u2070-\u2079†‡*]+$")


#: The decimals of a percent format ("0%", "0.0%", "#,##0.00%").
_PERCENT_PLACES = re.compile(r"0(?:\.(0+))?%")


def percent_text(value: float, number_format: str) -> str:
    """A fraction shown in a percent number format as the sheet or chart shows it: 0.59 in
    "0%" -> "59%", 0.0405 in "0.0%" -> "4.1%" (O12Typical.pptx's Gallup chart read
    "Disapprove: 0.5900000000000003")."""
    m = _PERCENT_PLACES.search(_FORMAT_LITERALS.sub("", number_format))
    places = len(m.group(1) or "") if m else 0
    return f"{value * 100:.{places}f}%"


#: A number format's fixed decimals: "0", "#,##0", "0.00", "#,##0.0_);(#,##0.0)" (its first part).
_FIXED_PLACES = re.compile(r"[#,]*0(?:\.(0+))?(?:[_\s()*-].*)?")


def _decimal_places(number_format: str) -> int | None:
    """How many decimals a fixed number format shows (None for "General", dates, fractions,
    scientific and other formats, which keep 15 significant digits)."""
    codes = _FORMAT_LITERALS.sub("", number_format.split(";")[0]).strip(" _-*")
    m = _FIXED_PLACES.fullmatch(codes)
    return len(m.group(1) or "") if m else None


def _date_text(value: dt.datetime | dt.date | dt.time, number_format: str) -> str:
    codes = _FORMAT_LITERALS.sub("", number_format).lower()
    timed = "h" in codes or "s" in codes
    if isinstance(value, dt.time) or (
        isinstance(value, dt.datetime) and timed and "d" not in codes and "y" not in codes
    ):  # a time of day ("h:mm"): Excel stores it on 1899-12-30
        clock = value if isinstance(value, dt.time) else value.time()
        return clock.isoformat(timespec="seconds" if clock.second else "minutes")
    if isinstance(value, dt.datetime):
        if value.time() != dt.time(0):
            return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
        value = value.date()
    if not timed and "y" in codes and "m" in codes and "d" not in codes:
        return f"{value:%B} {value.year}"
    if not timed and "mmm" in codes and "d" in codes:
        return f"{value:%B} {value.day}, {value.year}"
    return value.isoformat()


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


#: Leading cells naming a row (``row_label``) at most, and their characters at most.
LABEL_CELLS = 3
MAX_LABEL_CHARS = 200


def row_label(line: str) -> str:
    """The cells naming the row ``line`` (a ``row_line``): its first cell and the cells after it,
    at most ``LABEL_CELLS``, up to the first whose value is a number (``"Descripción: A |
    column 2: AGRICULTURA"`` of ``"Descripción: A | column 2: AGRICULTURA | 2004: 3957"``);
    "" when they are longer than ``MAX_LABEL_CHARS``. The chunker opens each chunk that starts
    inside a long row with them, so the row's later cells keep what they are about."""
    cells = line.split(CELL_SEPARATOR)
    label = cells[:1]
    for cell in cells[1:LABEL_CELLS]:
        if _numeric(cell.rsplit(": ", 1)[-1].strip()):
            break
        label.append(cell)
    text = CELL_SEPARATOR.join(label)
    return text if len(text) <= MAX_LABEL_CHARS else ""


#: Column names given to a key-value table (an infobox, a form: a field then its value on each
#: row), whose rows have no header row above them.
KEY_VALUE_HEADER = ("Field", "Value")


def table_lines(rows: list[list[str]]) -> list[str]:
    """A table inside a document as lines: the header row, then each row with its headers.

    The first row with two or more non-empty cells is the header; rows before it (a title row
    spanning the table) are kept as they are. A merged cell should come as its text in the first
    column it spans and empty strings after (a merged header cell: its text in every column).
    A first such row holding a number other than a year is no header: the rows are given as
    they are. A first such row of a field and its value ("Document last updated: |
    10/17/2003") is no header: the table is a form's fields, under ``KEY_VALUE_HEADER`` (a
    Word spec's header table had named every row "Document last updated:: Program Manager |
    10/17/2003: LaBrowne").
    """
    rows = [r for r in rows if any(r)]
    if any(_captioning(rows[i - 1], rows[i]) for i in range(1, len(rows))):
        return _captioned(rows)
    # a first row of one merged cell across the whole table (given in every column) is its
    # title, not the name of every column (held-out 018367.docx: "Radiation Exposure
    # Compensation Act Workload ..." over the "FY 2004 Actual" header)
    rows = [[r[0]] if _spanning(r) else r for r in rows[:1]] + rows[1:]
    start = next((i for i, r in enumerate(rows) if sum(1 for c in r if c) >= 2), None)
    if start is None:
        return [CELL_SEPARATOR.join(c for c in r if c) for r in rows]
    filled = [c for c in rows[start] if c]
    if any(_numeric(c) and not _YEAR.fullmatch(c) for c in filled):
        # a row of values, no header: a contents table's "Investment Opportunities | 15"
        # named the rows under it "Investment Opportunities: US | 15: 17" (held-out dev h737)
        return [CELL_SEPARATOR.join(c for c in r if c) for r in rows]
    if len(filled) == 2 and filled[0].rstrip().endswith(":") and rows[start][0]:
        rows = [*rows[:start], list(KEY_VALUE_HEADER), *rows[start:]]
    header = rows[start]
    out = [CELL_SEPARATOR.join(c for c in r if c) for r in rows[: start + 1]]
    out += [row_line(header, r) for r in rows[start + 1 :]]
    return out


def _spanning(row: list[str]) -> bool:
    """Whether ``row`` is one cell across the table: every cell (two or more) the same text."""
    return len(row) >= 2 and bool(row[0].strip()) and all(c == row[0] for c in row)


#: A form's caption under its blank: "(State or other jurisdiction of incorporation)".
_CAPTION = re.compile(r"\(\s*[^()\d]*[A-Za-z][^()]*\)")


def _captions(cells: list[str]) -> bool:
    """Whether every filled cell of a row is a bracketed caption."""
    filled = [c.strip() for c in cells if c.strip()]
    return bool(filled) and all(_CAPTION.fullmatch(c) for c in filled)


def _filled_at(cells: list[str]) -> set[int]:
    return {i for i, c in enumerate(cells) if c.strip()}


def _captioning(row: list[str], below: list[str]) -> bool:
    """Whether ``below`` is a row of bracketed captions under exactly ``row``'s filled cells
    (not a units note such as "(in millions)" under a header's first cell only)."""
    return not _captions(row) and _captions(below) and _filled_at(row) == _filled_at(below)


def _captioned(rows: list[list[str]]) -> list[str]:
    """A form's table whose captions stand in brackets under the values they name (an SEC
    filing's cover: "Nevada | 20-8143439" over "(State or other jurisdiction of incorporation
    or organization) | (IRS Employer Identification No.)"): each value line written with its
    captions, ``"State or other jurisdiction of incorporation or organization: Nevada | IRS
    Employer Identification No.: 20-8143439"``; rows under no caption as they are. Read as a
    table, the first value row was the header of every row below (held-out dev h052)."""
    out: list[str] = []
    i = 0
    while i < len(rows):
        row = rows[i]
        below = rows[i + 1] if i + 1 < len(rows) else []
        if below and _captioning(row, below):
            names = [c.strip()[1:-1].strip() for c in below]
            pairs = [
                f"{names[j]}: {cell}" if j < len(names) and names[j] else cell
                for j, cell in enumerate(row)
                if cell
            ]
            out.append(CELL_SEPARATOR.join(pairs))
            i += 2
            continue
        out.append(CELL_SEPARATOR.join(c for c in row if c))
        i += 1
    return out


_YEAR = re.compile(r"(19|20)\d\d")
#: Rows held back while a sheet's header block is not yet settled (title rows, header rows and
#: the row labels between the header and the first values: ONS's Table A holds eight).
MAX_PENDING = 12
#: Header rows read together above a table (a caption row such as "In millions of CHF ...
#: January–June 2023" above the column names; ONS's "All Visits" over "North America" over
#: "European Union" over "NSA").
MAX_HEADER_ROWS = 4


#: The widest step between the years of a row of years read as a header (2000, 2005, 2010).
MAX_YEAR_STEP = 5


def _numeric(cell: str) -> bool:
    return bool(cell) and NUMERIC_CELL.fullmatch(cell.replace("\u2212", "-")) is not None


def data_like(cells: list[str]) -> bool:
    """A row holding values: some cell is a number, unless every number is a year under an
    empty first cell (a header row " | 2023 | 2022") or every number is a year of a run of three
    or more years in steps of at most ``MAX_YEAR_STEP`` ("Descripción | 2004 | 2005 | ... |
    2013" over a GDP sheet's quarter columns; not "Bach | 1685 | 1750", a row of values)."""
    numbers = [c for c in cells if _numeric(c)]
    if not numbers or not all(_YEAR.fullmatch(c) for c in numbers):
        return bool(numbers)
    years = [int(c) for c in numbers]
    distinct = list(dict.fromkeys(years))
    steps = {b - a for a, b in itertools.pairwise(distinct)}
    run = len(distinct) >= 3 and years == sorted(years) and len(steps) == 1
    return not (not cells[0] or (run and max(steps) <= MAX_YEAR_STEP))


#: A merged range: (first row, last row, first column, last column), numbered from 1, inclusive.
Merge = tuple[int, int, int, int]


def spread_merged(
    rows: Iterable[tuple[int, list[str]]], merges: Iterable[Merge]
) -> Iterator[tuple[int, list[str]]]:
    """``rows`` (row number, cells) with each merged cell's text given to every column it spans
    in a row of names (a year over its five quarter columns, "All Visits" over its three, for
    ``combined_header``) and to every row of a merge one column wide (a group's name beside its
    rows); a merged note across a row of values stays in its first cell, and so does a merge
    from the first column or the only text of its row (a title or a caption over the table: "In
    millions of CHF", "Segundo grado de secundaria" name none of the columns they span). Rows
    are read in order, a merge's text taken from its first row."""
    by_row: dict[int, list[Merge]] = {}
    for merge in merges:
        for number in range(merge[0], merge[1] + 1):
            by_row.setdefault(number, []).append(merge)
    anchors: dict[tuple[int, int], str] = {}
    for number, cells in rows:
        spans = by_row.get(number, ())
        for top, _, left, _ in spans:
            if number == top and left <= len(cells):
                anchors[(top, left)] = cells[left - 1]
        names = not data_like(cells)
        for top, _, left, right in spans:
            text = anchors.get((top, left), "")
            spread = names and left > 1 and _beside(cells, left, right)
            if not text or not (spread or left == right):
                continue
            cells = cells + [""] * (right - len(cells))
            for c in range(left - 1, right):
                cells[c] = cells[c] or text
        yield number, cells


def _beside(cells: list[str], left: int, right: int) -> bool:
    """Whether a row holds text outside its columns ``left``-``right`` (numbered from 1)."""
    return any(c for k, c in enumerate(cells, start=1) if c and not left <= k <= right)


def _texts(cells: list[str]) -> list[str]:
    """A row's texts once each: a merged cell spread over its columns is one text."""
    return list(dict.fromkeys(c for c in cells if c))


def _filled(cells: list[str]) -> int:
    return sum(1 for c in cells if c)


def _notes(cells: list[str]) -> bool:
    """A row of words written over a sheet rather than labels of its columns: half of its
    cells or more open in lower case ("at | the | top | of | their spreadsheets" above
    readxl's deaths.xlsx table; a group label reads "Revenue", "2023", "BID"). A label
    repeated over the columns of its merged cell counts once ("of which")."""
    filled = _texts(cells)
    return sum(1 for c in filled if c[0].islower()) * 2 >= len(filled)


def _numbered_title(cells: list[str]) -> bool:
    """A sheet's numbered title row (its first row): a table number in the first cell, then
    words ("1 | Overseas residents' visits to the UK by month" atop ONS's Table 1), not a row
    of values; a code ("01 | PRIVATE LTD COMPANY") is a value."""
    filled = [c for c in cells if c]
    return (
        len(filled) == 2
        and re.fullmatch(r"[1-9]\d{0,2}", cells[0]) is not None
        and len(filled[1].split()) >= 3
        and not _numeric(filled[1])
    )


#: A row label that sums the rows above it rather than naming one of a group.
_SUM_LABEL = re.compile(r"\s*(?:total|sum|all|overall|grand total|gesamt|summe)\b", re.I)


def combined_header(rows: list[list[str]]) -> list[str]:
    """Column names from one or more header rows: the last row names the columns; a label of an
    upper row (a year, a group) is added to the columns nearest to it (ties to the left one),
    but not to a column the rows above it write under another label (ONS's "European Union",
    under "of which", is not given to the columns under "All Visits"), the first column keeping
    what stands above it ("In millions of CHF")."""
    last = rows[-1]
    width = max(len(r) for r in rows)
    names = [last[i] if i < len(last) else "" for i in range(width)]
    above: list[list[str]] = []  # the upper rows read so far, as wide as the header
    for upper in rows[:-1]:
        labels = [(i, c) for i, c in enumerate(upper) if c and i > 0]
        if upper and upper[0] and upper[0] != names[0]:
            names[0] = f"{upper[0]} {names[0]}".strip()
        for i in range(1, width):
            if not (names[i] or (i < len(upper) and upper[i])):
                continue
            # not across a boundary the rows above write out (a merged cell's text is given
            # to each column it spans: ``XlsLoader``)
            near = [
                (j, c) for j, c in labels if not any(r[i] and r[j] and r[i] != r[j] for r in above)
            ]
            if not near:
                continue
            _, label = min(near, key=lambda lc: (abs(lc[0] - i), lc[0] > i))
            if label not in names[i].split(", "):
                names[i] = f"{names[i]}, {label}" if names[i] else label
        above.append([upper[i] if i < len(upper) else "" for i in range(width)])
    return [n or f"column {i}" for i, n in enumerate(names, start=1)]


#: Parts every column name shares (``shared_parts``) are said once, in the table's title, when
#: they hold at least this many characters, over at least ``MIN_SHARED_COLUMNS`` columns.
MIN_SHARED_CHARS = 40
MIN_SHARED_COLUMNS = 3


def shared_parts(names: list[str]) -> tuple[list[str], str]:
    """Column ``names`` without the ", "-separated parts every one of them holds (the first
    column, the rows' label, aside), and those parts joined; ``(names, "")`` when they are
    shorter than ``MIN_SHARED_CHARS`` or fewer than ``MIN_SHARED_COLUMNS`` columns share them.
    An ECB export names each of 27 columns "T01.01_r4, IRS.M.IE..., Ireland, Long-term
    interest rate for convergence purposes - Unspecified rate type, Debt security issued, 10
    years maturity, ..., PERCENT": every row line repeated the 150 shared characters per cell,
    a row filled seven chunks and the country's name was lost among them (held-out batch 9)."""
    columns = [n.split(", ") for n in names[1:]]
    if len(columns) < MIN_SHARED_COLUMNS:
        return names, ""
    common = [p for p in dict.fromkeys(columns[0]) if p and all(p in c for c in columns[1:])]
    if sum(len(p) for p in common) < MIN_SHARED_CHARS or any(
        all(p in common for p in c) for c in columns
    ):  # a column named by shared parts alone would lose its name
        return names, ""
    kept = [", ".join(p for p in c if p not in common) for c in columns]
    return [names[0], *kept], ", ".join(common)


#: One-cell rows between rows of values that retitle the rows below them, at most (ONS's
#: "Not seasonally adjusted", "Current account", "Trade in goods and services").
MAX_RETITLE_ROWS = 3


def _retitles(held: list[tuple[int, list[str]]]) -> bool:
    """Rows held between rows of values that title the next table of a sheet: at most
    ``MAX_RETITLE_ROWS`` rows of one cell each, words not a value ("Historía-Geografía y
    Economía")."""
    return 0 < len(held) <= MAX_RETITLE_ROWS and all(
        _filled(cells) == 1 and not data_like([c for c in cells if c]) for _, cells in held
    )


def _repeats(cells: list[str], header_rows: list[list[str]]) -> bool:
    """A row that opens another table below the first: an empty first cell then names (the shape
    of a column-header row), or half its cells are the first table's header cells."""
    if data_like(cells) or _filled(cells) < 2:
        return False
    if not cells[0]:
        return True
    seen = {c for r in header_rows for c in r if c}
    return sum(1 for c in cells if c and c in seen) * 2 >= _filled(cells)


def table_sections(
    sheet: str,
    rows: Iterable[tuple[int, list[str]]],
    max_rows: int = MAX_ROWS,
    max_chars: int = MAX_CHARS,
) -> list[Section]:
    """Sections of at most ``max_rows`` rows (and about ``max_chars`` characters), each opening
    with the sheet name (and the table's title rows) and the header row, every row with its
    headers (:func:`row_line`), so a question about one cell finds its row.

    ``rows`` are (row number, cells). The header is found as spreadsheets write it: single-cell
    title rows above it are the table's title; two or three rows of names straight above the
    first row of values are one header (:func:`combined_header`: "Sales (a), January–June 2023"),
    but for rows of lower-case words above the last (notes written over the sheet: its title);
    a header block again after values opens the next table of the sheet (two years stacked), and
    one to three one-cell rows between rows of values, or between the header and the first
    values, retitle the rows below (the sheet's next table under the same header: "Lectura",
    then "Matemática"; ONS's "Seasonally adjusted", "Current account"; the last title rows
    replaced). A header line longer than ``max_chars`` is left out (each row names its cells).
    Without rows of values the first non-empty row is the header. Provenance is
    ``{"sheet": name, "rows": "first-last"}`` in the numbering a spreadsheet shows.
    """
    header: list[str] | None = None
    header_rows: list[list[str]] = []
    title = ""
    titles: list[str] = []  # the title rows' texts, joined into ``title``
    shared = ""  # what every column name of the table holds (``shared_parts``)
    sections: list[Section] = []
    batch: list[tuple[int, str]] = []
    pending: list[tuple[int, list[str]]] = []
    size = 0
    group = ""  # the first cell of the last row of values that had one

    def flush() -> None:
        nonlocal batch, size
        if batch and header is not None:
            first, last = batch[0][0], batch[-1][0]
            span = f"{first}-{last}" if last != first else str(first)
            word = "rows" if last != first else "row"
            name = ": ".join(part for part in (sheet, title, shared) if part)
            names = CELL_SEPARATOR.join(header)
            # a header longer than a section is left out: each row line names its cells, and
            # repeated it filled whole chunks with column names, the rows' values cut off
            # from their label (an INDEC GDP sheet's 57 columns, held-out batch 9 dev h900)
            heading = [names] if len(names) <= max_chars else []
            lines = [f"{name} ({word} {span})", *heading] + [r for _, r in batch]
            text = "\n".join(lines)
            sections.append(Section(text, {"sheet": sheet, "rows": span}))
        batch, size = [], 0

    def emit(number: int, cells: list[str]) -> None:
        nonlocal header, size, header_rows, group
        if header is None:
            header = [c or f"column {i}" for i, c in enumerate(cells, start=1)]
            header_rows = [cells]
            return
        if cells[0]:
            group = cells[0] if data_like(cells) else ""
        elif (
            group and len(cells) > 1 and cells[1] and not _SUM_LABEL.match(cells[1])
        ) and data_like(cells):
            # a group's name written on its first row only ("2012 | Jan", " | Feb"): each
            # row of the group is read with it, as the sheet's reader does; a sum's row
            # (" | Total | 3") belongs to no group
            cells = [group, *cells[1:]]
        header += [f"column {i}" for i in range(len(header) + 1, len(cells) + 1)]
        line = row_line(header, cells)
        if batch and (len(batch) >= max_rows or size + len(line) > max_chars):
            flush()
        batch.append((number, line))
        size += len(line)

    def settle(values: bool) -> None:
        """Read the held-back rows: a header block when values follow it, else plain rows."""
        nonlocal header, header_rows, title, titles, pending, group, shared
        held, pending = pending, []
        labels: list[tuple[int, list[str]]] = []
        if values:
            # one-cell rows between a header block and the values label the rows below them
            # (ONS's years over quarters, then "Seasonally adjusted", "Current account"): set
            # aside while the header is looked for above them, they title the rows below
            cut = len(held)
            while cut > 0 and len(held) - cut < MAX_RETITLE_ROWS and _retitles(held[cut - 1 :]):
                cut -= 1
            if 0 < cut < len(held) and _filled(held[cut - 1][1]) >= 2:
                held, labels = held[:cut], held[cut:]
        names = len(held)
        while (
            names > 0
            and _filled(held[names - 1][1]) >= 2
            and len(held) - names < MAX_HEADER_ROWS
            and (names == len(held) or not _notes(held[names - 1][1]))
        ):
            names -= 1
        block = [cells for _, cells in held[names:]]
        opens = (
            values and block and (header is None or any(_repeats(c, header_rows) for c in block))
        )
        if not opens:
            held += labels
            if values and header is not None and _retitles(held):
                # a one-cell row between rows of values names the rows below it: the sheet's
                # next table under the same header ("Matemática" after "Lectura")
                flush()
                retitle(held)
                return
            for number, cells in held:
                emit(number, cells)
            return
        before = held[:names]
        first_table = header is None
        if header is not None:  # rows between two tables: notes of the one above, but for
            # the one-cell rows just above the next header ("Historía-Geografía y Economía")
            cut = len(before)
            while cut > 0 and _retitles(before[cut - 1 :]):  # at most MAX_RETITLE_ROWS
                cut -= 1
            for number, cells in before[:cut]:
                emit(number, cells)
            before = before[cut:]
        flush()
        if first_table:
            titles = [c for _, cells in before + labels for c in _texts(cells)] or titles
            title = " ".join(titles)
        elif before or labels:
            retitle(before + labels)
        header_rows = block
        header, shared = shared_parts(combined_header(block))
        group = ""

    def retitle(held: list[tuple[int, list[str]]]) -> None:
        """The title rows ``held`` replace the last title rows (the sheet's own stay)."""
        nonlocal title
        titles[max(0, len(titles) - len(held)) :] = [c for _, cells in held for c in _texts(cells)]
        title = " ".join(titles)

    for number, cells in rows:
        while cells and not cells[-1]:
            cells = cells[:-1]
        if not any(cells):
            continue
        if not data_like(cells) or (header is None and not pending and _numbered_title(cells)):
            pending.append((number, cells))
            if len(pending) > MAX_PENDING:
                settle(values=False)
            continue
        if pending:
            settle(values=True)
        emit(number, cells)
    settle(values=False)
    flush()
    if header is not None and not sections:  # a header and nothing else
        sections.append(Section(f"{sheet}\n{' | '.join(header)}", {"sheet": sheet, "rows": "1"}))
    return sections


def workbook_sections(
    name: str,
    sheets: Iterable[tuple[str, Iterable[tuple[int, list[str]]]]],
    close: Callable[[], object],
) -> list[Section]:
    """Every sheet's ``table_sections``, ``sheets`` read lazily as (sheet name, rows); ``close``
    runs at the end whatever happens. Raises ``LoaderError`` naming the file ``name`` when a
    sheet cannot be read."""
    try:
        return [s for title, rows in sheets for s in table_sections(title, rows)]
    except LoaderError:
        raise
    except Exception as exc:  # the readers raise their own errors, struct and index errors
        raise LoaderError(f"{name}: a sheet could not be read ({exc})") from exc
    finally:
        close()
