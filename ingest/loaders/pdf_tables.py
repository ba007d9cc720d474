"""Tables in a PDF page's text layer, found from the positions of its words and written one
row per line with the column headers (see :mod:`ingest.loaders.tables`), whether or not the
table has ruling lines.

pypdf's plain extraction writes a table's cells separated by single spaces, so "Nitrate mg/L" and
"Lead ug/L" run together and a value cannot be told from its column. The words' places come
from PDFium (``DrawnWord``: each character's box, as ``PdfTextPage.get_charbox`` gives it) or,
for a page that hides text, from pypdf's layout-mode text (each word at its character column).
Words of one line further apart than ``CELL_GAP`` of their height are in two cells. A run of at
least three lines of two or more short cells is a table, its first line the header; every row
stands column under column (each cell's span overlaps its column's, give or take a little, each
in its own column, blank cells left blank: "Rentals" empty in most rows of a background-check
table), the columns keeping a blank between them (justified prose lines up too, without one).
Drawn words must also hold a column of values (a cover page's text boxes line up by chance).
In layout text, a row has as many cells as the header; one with a longer last cell (a "Notes"
column) must stand column under column too.

Headers as tables write them: group labels on the line above the header ("Pre-Pawn" over
"Handgun | Long Gun | *Other") are joined to the columns under them ("Handgun, Pre-Pawn"); a
header on two lines above a first row of values ("# / enc-layers") or whose cells run
together ("Base Model1 Large Model") is read word by word over the columns; cells written once
for two rows (centred between them) fill the blank first cells of the row below. A first row of
values is never the header: up to four lines above it name the columns, the top one's labels
centred over two columns or more ("Revenue" over "Medical & Public Health" and "Family
Welfare") joined after the names stacked under them, a line of years naming columns too; rows
of ".." and "n.a." are rows of values; a header row going on in the row under it ("Eliminate"
over "Stops") is joined to it, and a line above naming some columns ("Cycle" over "Name")
prefixes them. Dot leaders ("Robbery . . . . 102.1") end a row's name, and a name wrapped onto
two lines or more is one cell: the last part indented under the first ("Murder and
nonnegligent / manslaughter"), or going on from its place in lower case ("Productos primarios
/ pesqueros | 663 | 2.5%") or under a code's line holding no value ("0511.91 | Prod. no exp.
en / otros capítulos. / No apto p/c humano | 203"), a code's row keeping its name up to
``MAX_NAME_CELL`` too; layout text with no names is written as rows of cells.

The page's text outside its tables keeps the order the page writes it (a two-column paper's
columns stay apart); each table comes where its first word does. A caption ("Table 1: Current
layout detection models ...") that the page writes away from its table is moved to the line
before the table, so that the rows and the words of their caption are read together.

pdfplumber's text-strategy table finder was tried on the held-out PDFs (issue 35) and not used:
on prose pages it found whole-page "tables" (a two-column paper, a memo, a report page), and it
split the model-zoo table's columns wrongly ("Large Model Notes" as one cell).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from core.text import NUMBER
from ingest.loaders.tables import CELL_SEPARATOR, TABLE_CAPTION, data_like, table_lines

_CELL = re.compile(r"\S+(?: \S+)*")
#: A table's rows at least, and a cell's characters at most (longer: prose in columns).
MIN_ROWS = 3
MAX_CELL = 32
#: A row's name (its first cell) at most, before values only in a table of at least
#: ``LONG_LAST_FROM`` columns.
MAX_NAME_CELL = 64
#: The last column's characters at most, in a table of at least ``LONG_LAST_FROM`` columns.
MAX_LAST_CELL = 90
LONG_LAST_FROM = 3
#: Characters a cell may stand beside its column's span and still be under it: at least
#: ``ALIGN_SLACK``, or this share of the blank between the column and its nearest neighbour
#: (centred columns of different widths: "~70%" above "electricity").
ALIGN_SLACK = 2
ALIGN_SHARE = 0.25
_CAPTION = TABLE_CAPTION


@dataclass(frozen=True)
class _Cell:
    """A cell of a line: its text and its horizontal span in character widths."""

    text: str
    start: float
    end: float
    words: tuple[int, ...] = ()  # the indexes of its drawn words (PDFium's), if any
    parts: tuple[tuple[str, float, float], ...] = ()  # its words with their spans

    def split(self) -> list[_Cell]:
        """The cell's words as cells of their own (the cell itself when it has one word)."""
        return [_Cell(t, a, b) for t, a, b in self.parts] or [self]


_Line = list[_Cell]


class DrawnWord(NamedTuple):
    """A word as PDFium draws it: its text, its box in points, whether the page's text
    breaks the line before it, and whether it is written upright (a word set sideways is
    never a cell)."""

    text: str
    left: float
    bottom: float
    right: float
    top: float
    newline: bool
    upright: bool = True


#: Dot leaders between a row's name and its values ("Robbery . . . . 102.1"): a word of dots
#: only, and the run of dots ending a cell, with the one a name's last word ends on.
_LEADER = re.compile(r"[.·](?:\s+[.·])*")
_LEADERS = re.compile(r"(?:\s+[.…·]){2,}\s*$")
#: Cells a line read without its leaders must have to be read so (a table of contents' "Preface
#: . . . . xi" stays as drawn).
MIN_LEADER_CELLS = 3
_LEADER_END = re.compile(r"(?:\s*[.…·])+$")

#: Words of one line further apart than this share of their height (the font's size) are in
#: two cells (a space is about a quarter of it; "41 181", a thousands group, about a half).
CELL_GAP = 0.6
#: Words whose middles are closer than this share of the line's first word's height are on
#: one line.
SAME_LINE = 0.5
#: A row with blank cells is read under the header when it fills at least this share of it.
MIN_FILLED = 0.5
#: Header lines read above a table whose first line holds values (a line of group labels,
#: "Revenue" over two columns, above names written on three lines: "Medical & / Public /
#: Health").
MAX_HEADER_LINES = 4
#: A header line's words that may be numbers, at most (a share).
HEADER_VALUES = 1 / 3
#: A column of values: this share of its cells numbers or single words this short at most.
VALUE_SHARE = 2 / 3
VALUE_CHARS = 16
#: A column name's words at most.
MAX_HEADER_WORDS = 5
#: What tables write in a cell for a value they do not have.
MISSING_VALUES = frozenset({"..", "...", "n.a.", "n.a", "n/a", "N/A", "na", "-", "–", "—"})
_PROSE_ENDS = (".", ",", ";")
_YEAR_CELL = re.compile(r"(?:19|20)\d\d")


def _cells(line: str) -> _Line:
    """The cells of a layout line: runs of words split at gaps of two or more spaces, with
    their character columns."""
    return [
        _Cell(
            m.group(0),
            m.start(),
            m.end(),
            parts=tuple(
                (w.group(0), m.start() + w.start(), m.start() + w.end())
                for w in re.finditer(r"\S+", m.group(0))
            ),
        )
        for m in _CELL.finditer(line)
    ]


def segment_lines(words: list[DrawnWord]) -> list[_Line]:
    """Drawn words as lines of cells, top to bottom, in character widths (the page's median):
    words whose vertical middles lie within ``SAME_LINE`` of the first one's height from its
    middle are one line (a cell centred between two rows joins the upper one), read left to
    right, and those closer than ``CELL_GAP`` of their height are one cell."""
    drawn = [
        (k, w) for k, w in enumerate(words) if w.upright and w.text.strip() and w.right > w.left
    ]
    if not drawn:
        return []
    widths = sorted((w.right - w.left) / len(w.text) for _, w in drawn)
    unit = widths[len(widths) // 2]
    drawn.sort(key=lambda kw: (-(kw[1].bottom + kw[1].top) / 2, kw[1].left))
    grouped: list[list[tuple[int, DrawnWord]]] = []
    for k, w in drawn:
        middle = (w.bottom + w.top) / 2
        first = grouped[-1][0][1] if grouped else w
        if grouped and abs(middle - (first.bottom + first.top) / 2) <= SAME_LINE * (
            first.top - first.bottom
        ):
            grouped[-1].append((k, w))
        else:
            grouped.append([(k, w)])
    lines: list[_Line] = []
    for group in grouped:
        group.sort(key=lambda kw: kw[1].left)
        cells = _line_cells(group, unit, leaders=True)
        if len(cells) < MIN_LEADER_CELLS:  # a table of contents' line: as it was drawn
            cells = _line_cells(group, unit, leaders=False)
        if cells:
            lines.append(cells)
    return _join_wrapped_names(lines)


def _join_wrapped_names(lines: list[_Line]) -> list[_Line]:
    """A row's name written on two lines or more joined into the row's first cell: over an
    indented last part ("Murder and nonnegligent" over "manslaughter" and the row's values),
    or going on in lower case from the same place ("Productos primarios" over "pesqueros | 663
    | 2.5% | ..."; "0302 | Pescado fresco" over "o refrigerado." over "exc. filetes | 7.704 |
    ...": the cells before the name stay cells of their own)."""
    out: list[_Line] = []
    for line in lines:
        above = out[-1] if out else None
        if above is not None and _wraps_into(above, line):
            name, first = above[-1], line[0]
            joined = _Cell(
                f"{name.text} {first.text}",
                min(name.start, first.start),
                max(name.end, first.end),
                (*name.words, *first.words),
                (*name.parts, *first.parts),
            )
            out[-1] = [*above[:-1], joined, *line[1:]]
        else:
            out.append(line)
    return out


def _wraps_into(above: _Line, line: _Line) -> bool:
    """True when ``above`` holds the first part of ``line``'s name: its cells (one, or a code
    and the name's start) all end before ``line``'s second cell, its last cell is no longer
    than a cell and ends no sentence (but for a name going on in lower case), and ``line``
    (a row of values, or a line going on with the name) starts indented under it or in
    lower case at its place."""
    if not above or len(above) > 2 or not line:
        return False
    name, first = above[-1], line[0]
    # a name going on at its place: in lower case, or under a code's line that holds no value
    # ("0511.91 | Prod. no exp. en otros capítulos." over "No apto p/c humano | 203 | ...")
    coded = len(above) == 2 and len(line) > 1 and not any(_numeric_cell(c.text) for c in above[1:])
    going_on = (first.text[:1].islower() or coded) and abs(first.start - name.start) <= ALIGN_SLACK
    # indented under the name's first part, not a label far to its right ("2001-07" over "2001")
    indented = name.start < first.start <= name.end and len(above) == 1
    if not (going_on or indented) or len(name.text) > MAX_NAME_CELL:
        return False
    if len(line) == 1:  # a middle part of the name: joined only going on in lower case
        return going_on and len(first.text) <= MAX_NAME_CELL
    return (
        len(line) >= MIN_ROWS
        and all(c.end < line[1].start for c in above)
        and (going_on or not name.text.endswith((".", ":", ";")))
    )


def _line_cells(group: list[tuple[int, DrawnWord]], unit: float, leaders: bool) -> _Line:
    """One line's words, left to right, as cells (see ``segment_lines``); with ``leaders``,
    dot leaders are taken out of the text (kept among the cell's words) and end the cell."""
    cells: _Line = []
    right = 0.0
    led = False  # a dot leader ran from the last cell: the next word opens a cell
    for k, w in group:
        text = w.text.strip()
        if leaders and _LEADER.fullmatch(text):
            if cells:
                last = cells[-1]
                stripped = _LEADER_END.sub("", last.text) or last.text
                cells[-1] = _Cell(stripped, last.start, last.end, (*last.words, k), last.parts)
                led = True
            continue
        span = (w.left / unit, w.right / unit)
        if cells and not led and w.left - right < CELL_GAP * (w.top - w.bottom):
            last = cells[-1]
            cells[-1] = _Cell(
                f"{last.text} {text}",
                last.start,
                max(last.end, span[1]),
                (*last.words, k),
                (*last.parts, (text, *span)),
            )
        else:
            cells.append(_Cell(text, *span, (k,), ((text, *span),)))
        right = max(right, w.right)
        led = False
    if leaders:
        cells = [
            _Cell(_LEADERS.sub("", c.text) or c.text, c.start, c.end, c.words, c.parts)
            for c in cells
        ]
    return cells


def _is_row(cells: _Line) -> bool:
    if len(cells) < 2:
        return False
    name, *middle, last = cells
    wide = len(cells) >= LONG_LAST_FROM
    longest_last = MAX_LAST_CELL if wide else MAX_CELL

    def values(after: int) -> bool:
        return all(_numeric_cell(c.text) or c.text in MISSING_VALUES for c in cells[after:])

    # a longer name before values only: "Murder and nonnegligent manslaughter | 9,739 | 4,741",
    # also after a code: "0302 | Pescado fresco o refrigerado. exc. filetes | 7.704 | ..."
    coded = any(ch.isdigit() for ch in name.text)  # "0302", "1603.00.00": a code, then the name
    after_name = values(1)
    named = wide and (after_name or (coded and len(cells) > LONG_LAST_FROM and values(2)))
    longest_name = MAX_NAME_CELL if named else MAX_CELL
    longest_second = MAX_NAME_CELL if named and not after_name else MAX_CELL
    return (
        len(name.text) <= longest_name
        and all(
            len(c.text) <= (longest_second if k == 0 else MAX_CELL) for k, c in enumerate(middle)
        )
        and len(last.text) <= longest_last
    )


def _slack(columns: list[tuple[float, float]], i: int) -> float:
    gaps = [columns[i][0] - columns[i - 1][1]] if i > 0 else []
    gaps += [columns[i + 1][0] - columns[i][1]] if i + 1 < len(columns) else []
    return max(ALIGN_SLACK, ALIGN_SHARE * min(gaps, default=0))


def _under(columns: list[tuple[float, float]], i: int, cell: _Cell) -> float | None:
    """How far ``cell`` reaches into column ``i`` (negative: short of it, within its slack);
    None when it stands beside it."""
    start, end = columns[i]
    slack = _slack(columns, i)
    if cell.start > end + slack or cell.end < start - slack:
        return None
    return min(cell.end, end) - max(cell.start, start)


def _place(columns: list[tuple[float, float]], cells: _Line) -> list[int] | None:
    """The column each cell stands under, left to right and each in its own (the one it
    overlaps most); None when a cell stands under none of those left."""
    placed: list[int] = []
    for n, cell in enumerate(cells):
        first = placed[-1] + 1 if placed else 0
        last = len(columns) - (len(cells) - n)  # leave a column for each cell after it
        fits = [
            (reach, i)
            for i in range(first, last + 1)
            if (reach := _under(columns, i, cell)) is not None
        ]
        if not fits:
            return None
        placed.append(max(fits, key=lambda f: (f[0], -f[1]))[1])
    return placed


def _long(cells: _Line) -> bool:
    return len(cells[-1].text) > MAX_CELL


def _table(
    lines: list[_Line], i: int, exact: bool
) -> tuple[list[list[str]], list[tuple[float, float]]]:
    """The run of rows starting at line ``i``, as cells under the first line's columns (blank
    where a row has none). A row as many cells as the first is taken as it stands while every
    cell is short (pypdf's layout places a header's words only roughly above a table of short
    cells); a row with a long last cell, or with fewer cells (at least ``MIN_FILLED`` of them),
    must stand column under column; every row must when the positions are ``exact`` (drawn
    words, not layout text), and the columns widened by the rows must keep a blank between
    them (the words of justified prose stand roughly under each other too). Also the
    columns' spans, widened by the rows."""
    cells = lines[i]
    if not _is_row(cells):
        return [], []
    columns = [(c.start, c.end) for c in cells]
    rows = [[c.text for c in cells]]
    long = _long(cells)
    for row in lines[i + 1 :]:
        if not _is_row(row) or len(row) > len(columns) or (len(row) < len(columns) and not exact):
            break
        long = long or _long(row)
        if len(row) == len(columns) and not long and not exact:
            placed: list[int] | None = list(range(len(row)))
        elif len(row) >= MIN_FILLED * len(columns):
            placed = _place(columns, row)
        else:
            placed = None
        if placed is None:
            break
        widened = list(columns)
        texts = [""] * len(columns)
        for k, cell in zip(placed, row, strict=True):
            texts[k] = cell.text
            widened[k] = (min(columns[k][0], cell.start), max(columns[k][1], cell.end))
        if exact and any(a[1] >= b[0] for a, b in itertools.pairwise(widened)):
            break  # no blank left between two columns: words of prose, not cells
        columns = widened
        rows.append(texts)
    return rows, columns


def _label_columns(labels: _Line, columns: list[tuple[float, float]]) -> list[list[int]] | None:
    """The columns each label of a line stands over: those whose middles lie within half the
    distance to its neighbouring labels' middles (labels centred over their groups); None when
    a label stands over no column, or a label is too long for a header cell."""
    if len(labels) < 2 or not all(len(c.text) <= MAX_CELL for c in labels):
        return None
    middles = [(c.start + c.end) / 2 for c in labels]
    spans: list[list[int]] = []
    for n in range(len(labels)):
        left = middles[n] - middles[n - 1] if n > 0 else middles[n + 1] - middles[n]
        right = middles[n + 1] - middles[n] if n + 1 < len(labels) else left
        low, high = middles[n] - left / 2, middles[n] + right / 2
        under = [k for k, (a, b) in enumerate(columns) if low <= (a + b) / 2 < high]
        if not under:
            return None
        spans.append(under)
    return spans


def _group_labels(labels: _Line, columns: _Line) -> list[str] | None:
    """Header names with the group labels of the line above them ("Handgun, Pre-Pawn"): each
    label names the columns it stands over (``_label_columns``); None unless every label names
    two columns or more."""
    if len(labels) >= len(columns):
        return None
    spans = _label_columns(labels, [(c.start, c.end) for c in columns])
    if spans is None or any(len(under) < 2 for under in spans):
        return None
    names = [c.text for c in columns]
    for label, under in zip(labels, spans, strict=True):
        for k in under:
            names[k] = f"{names[k]}, {label.text}"
    return names


def _spanning_labels(line: _Line, columns: list[tuple[float, float]]) -> list[str] | None:
    """The top line of a header of several lines read as labels over one or more columns each
    ("1996" over "% of national turnover" and "no. of stores"; "Revenue" over "Medical &
    Public Health" and "Family Welfare", "Total" over one column): a label per column, blank
    where none stands; None unless the line has fewer cells than the table has columns and some
    label stands over two columns or more, its middle between two of them."""
    if len(line) >= len(columns):
        return None
    spans = _label_columns(line, columns)
    if spans is None or not any(
        len(under) >= 2 and not any(a <= (cell.start + cell.end) / 2 <= b for a, b in columns)
        for cell, under in zip(line, spans, strict=True)
    ):
        return None  # no label centred between the columns it names: one of stacked names
    names = [""] * len(columns)
    for label, under in zip(line, spans, strict=True):
        for k in under:
            names[k] = label.text
    return names


def _stacked_header(lines: list[_Line], columns: list[tuple[float, float]]) -> list[str] | None:
    """Column names from header lines above a table (a header of two lines: "# / enc-layers",
    "TEDs / complex"; a header whose cells run together: "Base Model1 Large Model"): each
    column takes the words of each line that stand over it (the one they overlap most), top
    to bottom (a column no word stands over is blank); None when a word stands over no
    column."""
    names = [""] * len(columns)
    for line in lines:
        for word in (w for cell in line for w in cell.split()):
            over = [
                (reach, k)
                for k in range(len(columns))
                if (reach := _under(columns, k, word)) is not None
            ]
            if not over:
                return None
            k = max(over)[1]
            names[k] = f"{names[k]} {word.text}".strip()
    return names


def _header_above(
    blocks: list[_Block],
    lines: list[_Line],
    i: int,
    columns: list[tuple[float, float]],
    strict: bool = False,
) -> list[str] | None:
    """The names of a table starting at line ``i`` with values from the up to
    ``MAX_HEADER_LINES`` text lines just above it that stand over its columns (the most that
    do; ``strict``: lines of two cells or more, none ending a sentence; see ``_names_above``);
    those lines are taken out of ``blocks`` (the caller adds them to the table's)."""
    for n in range(MAX_HEADER_LINES, 0, -1):
        above = lines[i - n : i] if i >= n else []
        if not above or len(blocks) < n or any(b.table for b in blocks[-n:]):
            continue
        if any(not _is_row(ln) and (strict or len(ln) != 1) for ln in above):
            continue
        if any(c.text.endswith(_PROSE_ENDS if strict else (",", ";")) for ln in above for c in ln):
            continue  # a sentence above the table, not its header
        if n > 2 and any(c.text.endswith(".") for ln in above for c in ln):
            continue  # a line of a paper's prose set beside the table
        if any(_captioned(ln) for ln in above):
            continue
        if any(not _year_labels(ln, columns) for ln in above if _mostly_values(ln)):
            continue
        if any(
            NUMBER.fullmatch(c.text) and not _year_labels(ln, columns) for ln in above for c in ln
        ):
            continue  # a row of values ("2", a page number) above more; a header has "(0.75)"
        names = _names_above(above, columns)
        if names:
            del blocks[-n:]
            return names
    return None


def _names_above(above: list[_Line], columns: list[tuple[float, float]]) -> list[str] | None:
    """Column names from header lines above a table: the top line's labels over one or more
    columns each (``_spanning_labels``: "1996" over two columns) joined after the names the
    lines under it stack (``_stacked_header``: "no. of stores, 1996"), or all the lines
    stacked; None unless every column after the first is named (the first, the rows' names,
    only under a header of two lines or more, or of years)."""
    top = _spanning_labels(above[0], columns) if len(above) > 1 else None
    stacked = _stacked_header(above[1:] if top else above, columns)
    if stacked is None:
        return None
    if top:
        stacked = [
            f"{a}, {b}" if a and b and a != b else a or b for a, b in zip(stacked, top, strict=True)
        ]
    if not all(stacked[1:]) or not (
        stacked[0] or len(above) > 1 or _year_labels(above[0], columns)
    ):
        return None  # one line naming no row names: a line of titles (a table of contents)
    return stacked


def _captioned(line: _Line) -> bool:
    """A caption's line ("Table 2-1  FUNCTION_USAGE view", its cells apart or not)."""
    return bool(_CAPTION.match(line[0].text) or _CAPTION.match(" ".join(c.text for c in line)))


def _year_labels(line: _Line, columns: list[tuple[float, float]]) -> bool:
    """A line of years over a table's value columns ("1994  1991  1987"): its numbers are all
    years, and no cell stands over the first column (the rows' names)."""
    numbers = [c.text for c in line if NUMBER.fullmatch(c.text)]
    first_end = columns[0][1] + _slack(columns, 0)
    return (
        bool(numbers)
        and all(_YEAR_CELL.fullmatch(n) for n in numbers)
        and line[0].start > first_end
    )


def _mostly_values(line: _Line) -> bool:
    """More than ``HEADER_VALUES`` of the line's words are numbers or dashes, in cells mostly of
    them: a row of values run together, not a header (which may hold one: "mAP (0.75)", "Under
    18")."""
    values = 0
    for cell in line:
        words = [w.text for w in cell.split()]
        numbers = sum(1 for w in words if w in "-–—" or data_like([w]))
        values += numbers if numbers * 2 > len(words) else 0  # "Under 18" is a name
    return values > HEADER_VALUES * sum(len(c.split()) for c in line)


def _values_row(cells: list[str]) -> bool:
    """A row of values, not of names: a number that is not a year ("47,824,589"), or, after its
    first cell, only numbers and the marks tables write for a missing value ("Greece | n.a. |
    n.a.", "Finland | .. | .."). A row whose numbers are all years names its columns."""
    rest = [c for c in cells[1:] if c]
    numbers = [c for c in cells if _numeric_cell(c)]
    if any(not _YEAR_CELL.fullmatch(c) for c in numbers):
        return True
    return (
        bool(rest)
        and all(c in MISSING_VALUES or _numeric_cell(c) for c in rest)
        and any(c in MISSING_VALUES for c in rest)
    )


def _numeric_cell(cell: str) -> bool:
    return data_like([cell])


def _fill_down(rows: list[list[str]]) -> None:
    """A row whose first cells are blank takes them from the row above (cells merged down
    over two rows: "6 | 6 | OTSL" above "HTML")."""
    for above, row in itertools.pairwise(rows):
        k = 0
        while k < len(row) and not row[k]:
            row[k] = above[k]
            k += 1


def _has_values(rows: list[list[str]]) -> bool:
    """Some column after the first holds values in at least ``VALUE_SHARE`` of its filled
    cells below the first row: numbers, or single words of at most ``VALUE_CHARS`` characters
    ("F", "VARCHAR(128)"). Lines of prose set side by side (a cover page's text boxes) line
    up too; they are left as text."""
    for k in range(1, len(rows[0])):
        cells = [r[k] for r in rows[1:] if r[k]]
        values = sum(1 for c in cells if data_like([c]) or (len(c) <= VALUE_CHARS and " " not in c))
        if cells and values >= VALUE_SHARE * len(cells):
            return True
    return False


def _looks_tabular(rows: list[list[str]]) -> bool:
    """Drawn words lined up as a table, not lines of prose set side by side (a cover page's
    text boxes line up too): a column of values (``_has_values``), under a first row of values
    or of names of at most ``MAX_HEADER_WORDS`` words each."""
    if not _has_values(rows):
        return False
    return data_like(rows[0]) or all(len(c.split()) <= MAX_HEADER_WORDS for c in rows[0])


def _prefixed_from_above(
    blocks: list[_Block],
    lines: list[_Line],
    i: int,
    columns: list[tuple[float, float]],
    names: list[str],
) -> list[str]:
    """The names of a table starting at line ``i`` with the words of the line just above that
    stand over some of its columns put before theirs ("Cycle" over "Name", "KI" over
    "(1/km)": "Cycle Name", "KI (1/km)"), when that line has two short cells or more, none
    ending a sentence, and each of its words stands over a column; that line is then taken out
    of ``blocks``. The names as they are otherwise."""
    above = lines[i - 1]
    if (
        len(above) < 2
        or not _is_row(above)
        or any(c.text.endswith(".") or NUMBER.fullmatch(c.text) for c in above)
        or _captioned(above)
    ):
        return names
    stacked = _stacked_header([above], columns)
    if stacked is None or sum(1 for n in stacked if n) < 2:
        return names
    del blocks[-1]
    return [f"{a} {b}".strip() for a, b in zip(stacked, names, strict=True)]


def _continued_header(names: list[str], body: list[list[str]]) -> list[list[str]]:
    """The names and the rows under them, the rows just under the names that go on naming the
    columns ("Eliminate" over "Stops": a blank first cell, no value, rows of values below) joined
    to the names word by word ("Eliminate Stops"), at most ``MAX_HEADER_LINES`` of them; the
    rows' blank first cells filled down (``_fill_down``)."""
    names = list(names)
    k = 0
    while (
        k < min(MAX_HEADER_LINES, len(body) - 1)
        and not body[k][0]
        and not _values_row(body[k])
        and any(_values_row(r) for r in body[k + 1 :])
    ):
        names = [f"{a} {b}".strip() for a, b in zip(names, body[k], strict=True)]
        k += 1
    rows = [list(r) for r in body[k:]]
    _fill_down(rows)
    return [names, *rows]


@dataclass
class _Block:
    """A table (its lines written as rows) or one line of text, and the lines it came from."""

    text: list[str]
    lines: list[int] = field(default_factory=list)
    table: bool = False


def _text_block(lines: list[_Line], i: int) -> _Block:
    return _Block([" ".join(" ".join(c.text.split()) for c in lines[i])], [i])


def _blocks(lines: list[_Line], exact: bool) -> list[_Block]:
    """The page's lines as blocks: each table rewritten as rows with their headers (group
    labels on the line above the header joined to the columns they stand over; a table whose
    first line holds values named by the lines above it; drawn words without names are left as
    text), each other line its cells joined by spaces; captions moved to their tables (see
    ``_place_captions``)."""
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        rows, columns = _table(lines, i, exact)
        if len(rows) < MIN_ROWS or (exact and not _looks_tabular(rows)):
            blocks.append(_text_block(lines, i))
            i += 1
            continue
        taken = list(range(i, i + len(rows)))
        if _values_row(rows[0]) and (
            exact or sum(map(_values_row, rows[1:])) * 2 >= len(rows) - 1
        ):  # a first row of values is no header: look above it (layout text: rows of values)
            kept = len(blocks)
            names = _header_above(blocks, lines, i, columns)
            taken = list(range(i - (kept - len(blocks)), i)) + taken
            if not names and exact:  # values without names: the page's own order reads as well
                blocks.append(_text_block(lines, i))
                i += 1
                continue
            _fill_down(rows)
            # layout text without names: rows of cells, never a row of values as their names
            text = (
                table_lines([names, *rows])
                if names
                else [CELL_SEPARATOR.join(filter(None, r)) for r in rows]
            )
        else:
            grouped = names = None
            if exact and blocks and not blocks[-1].table:
                grouped = _group_labels(lines[i - 1], lines[i])
                if not grouped and len(lines[i - 1]) < len(rows[0]):
                    kept = len(blocks)
                    names = _header_above(blocks, lines, i, columns, strict=True)
                    taken = list(range(i - (kept - len(blocks)), i)) + taken
            body = rows if names else rows[1:]
            header = names or grouped or rows[0]
            if exact and not names and not grouped and blocks and not blocks[-1].table:
                kept = len(blocks)
                header = _prefixed_from_above(blocks, lines, i, columns, header)
                taken = list(range(i - (kept - len(blocks)), i)) + taken
            text = table_lines(_continued_header(header, body))
        blocks.append(_Block(text, taken, table=True))
        i += len(rows)
    _place_captions(blocks, exact)
    return blocks


def layout_with_tables(layout_text: str) -> str | None:
    """The page's text (pypdf's layout mode) with each table rewritten as rows with their
    headers (its caption, if the page has one apart from it, on the line before), the other
    lines with their spacing collapsed; None when the page has no table (keep the plain
    text)."""
    lines = [_cells(ln) for ln in layout_text.splitlines() if ln.strip()]
    blocks = _blocks(lines, exact=False)
    if not any(b.table for b in blocks):
        return None
    return "\n".join(line for b in blocks for line in b.text if line)


def drawn_with_tables(words: list[DrawnWord]) -> str | None:
    """The page's text from PDFium's drawn words with each table rewritten as above, every
    cell where the page draws it (blank cells left blank, each row column under column): the
    text outside tables in the page's own order, words joined as its text joins them, each
    table where its first word comes; None when the page has no table."""
    lines = segment_lines(words)
    blocks = _blocks(lines, exact=True)
    tables = [b for b in blocks if b.table]
    if not tables:
        return None
    owner = {k: t for t, b in enumerate(tables) for i in b.lines for c in lines[i] for k in c.words}
    out: list[str] = []
    current: list[str] = []
    written: set[int] = set()
    for k, word in enumerate(words):
        table = owner.get(k)
        if (table is not None or word.newline) and current:
            out.append(" ".join(current))
            current = []
        if table is None:
            current.extend(word.text.split())
        elif table not in written:
            out.extend(tables[table].text)
            written.add(table)
    if current:
        out.append(" ".join(current))
    return "\n".join(line for line in out if line)


def _place_captions(blocks: list[_Block], drawn: bool) -> None:
    """Move each table's caption to the line before it, when the page has as many captions as
    tables and a caption stands apart from its table (in page order: the n-th caption is the
    n-th table's); always, for ``drawn`` words (lines in the order they stand on the page, not
    the order the page's text writes them)."""
    captions = [b for b in blocks if not b.table and _CAPTION.match(b.text[0])]
    tables = [b for b in blocks if b.table]
    if len(captions) != len(tables):
        return
    for caption, table in zip(captions, tables, strict=True):
        if not drawn and blocks.index(caption) == blocks.index(table) - 1:
            continue
        table.text = [*caption.text, *table.text]
        table.lines = [*caption.lines, *table.lines]
        blocks.remove(caption)
