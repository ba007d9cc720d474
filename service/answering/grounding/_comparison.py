"""Which of two named things a table gives the larger (or smaller) value, decided by Hearth
rather than by the model (issue 35, item 5: two facts combined): "According to the franchising
table, did Germany or the UK have more franchisees in 1994?" was answered "Germany" from the
rows "Germany | ... | 1994, number of franchisees: 18000" and "UK | ... | 1994, number of
franchisees: 24900", both given (held-out dev h413).

Read the way a person reads a table: each side names a row (its label cells hold the side's
words) and the rest of the question names one column (the header holding most of its words and
years, the same header in both rows); or each side names a column ("was revenue higher in Q4
2024 or Q3 2024?") and the rest names the row. The two cells' values are compared and the
answer names the side, with both cells quoted and cited. When a side matches no row or several,
the column is not one header, a value is no number, or the two are equal, nothing is decided
(the model's reply is reviewed as usual).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar

from core.text import STOP_WORDS, cell_amount, fold, quoted, stems

_VERB = r"(?:did|does|do|was|were|is|are|has|have|had)"
_MORE = ("more", "higher", "greater", "bigger", "larger", "most", "highest", "greatest",
         "biggest", "largest")  # fmt: skip
_LESS = ("less", "fewer", "lower", "smaller", "least", "fewest", "lowest", "smallest")
_CMP = "|".join((*_MORE, *_LESS))
#: "did A or B have more X", "was A or B the larger X", "did A or B record the higher X".
_EITHER_FIRST = re.compile(
    rf"^\s*{_VERB}\s+(?P<a>.+?)\s+or\s+(?P<b>.+?)\s+(?:\w+\s+)?(?:the\s+)?(?P<cmp>{_CMP})\b"
    r"(?P<what>.*?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "which state had the bigger X, A or B", "who had more X: A or B", "which is larger, A or B".
_WHICH = re.compile(
    rf"^\s*(?:which|who|what)\b(?P<head>.*?)\b(?P<cmp>{_CMP})\b(?P<what>.*?)\s*[,:;]\s*"
    r"(?P<a>[^,:;]+?)\s+or\s+(?P<b>[^,:;]+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "was revenue higher in A or B", "were sales lower for A or B".
_WHAT_FIRST = re.compile(
    rf"^\s*{_VERB}\s+(?:the\s+)?(?P<what>.+?)\s+(?P<cmp>{_CMP})\s+(?:in|for|at|on|during|"
    r"with)\s+(?P<a>.+?)\s+or\s+(?P<b>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: A question's opening clause naming where to read ("According to the table, ...").
_LEAD = re.compile(r"^\s*(?:according\s+to|in|on|from|for)\b[^,]{1,80},\s*", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W_]+")
_CELL_GAP = " | "
_K = TypeVar("_K")
#: Words of the question that say how to compare, not what (beyond ``STOP_WORDS``).
_SCAFFOLD = {"which", "who", "what", "one", "two", "value", "figure", "amount", "number", "of"}


@dataclass(frozen=True)
class Cell:
    """One compared input: its side as the question names it, its value as written, the
    passage number holding it, and its row's labels with the cell (for the quote)."""

    side: str
    written: str
    value: float
    passage: int
    clause: str


@dataclass(frozen=True)
class Compared:
    """The side whose cell holds the larger (``larger`` True) or smaller value, and both
    cells; ``later``/``earlier`` name the chosen and the other cell (the names ``Computed``
    gives its two inputs, so a review shows either the same way)."""

    later: Cell
    earlier: Cell
    larger: bool

    @property
    def passages(self) -> list[int]:
        """The passage numbers holding the two cells, without repeats."""
        return list(dict.fromkeys([self.later.passage, self.earlier.passage]))

    def text(self) -> str:
        """The answer shown: the side, both values, each cell quoted with its citation."""
        a, b = self.later, self.earlier
        sign = ">" if self.larger else "<"
        inputs = (
            f"{a.side}: “{quoted(a.clause)}” [{a.passage}]."
            if (a.clause, a.passage) == (b.clause, b.passage)
            else f"{a.side}: “{quoted(a.clause)}” [{a.passage}]. "
            f"{b.side}: “{quoted(b.clause)}” [{b.passage}]."
        )
        return (
            f"{a.side} (compared by Hearth from two cited numbers: {a.side} {a.written} {sign} "
            f"{b.side} {b.written}). {inputs}"
        )

    def formula(self) -> str:
        """``"UK 24900 > Germany 18000"``: the verdict's record of it."""
        sign = ">" if self.larger else "<"
        a, b = self.later, self.earlier
        return f"{a.side} {a.written} {sign} {b.side} {b.written}"


def _keys(text: str) -> list[str]:
    """``text``'s content words stemmed and its numbers as written, folded."""
    tokens = [t for t in _TOKEN.findall(fold(text)) if t not in STOP_WORDS | _SCAFFOLD]
    words = [t for t in tokens if not t.isdigit()]
    return [*stems(words), *(t for t in tokens if t.isdigit())]


def _read(question: str) -> tuple[str, str, str, bool] | None:
    """(side A, side B, the words naming what is compared, larger?) of a comparison
    question; None when it is not one."""
    for text in (question, _LEAD.sub("", question, count=1)):
        m = _EITHER_FIRST.match(text) or _WHICH.match(text) or _WHAT_FIRST.match(text)
        if m:  # "which state had ...": the head names the sides' kind, not what is compared
            what = m.group("what")
            a, b = (_ARTICLE.sub("", m.group(s).strip()) for s in ("a", "b"))
            return a, b, what, m.group("cmp").lower() in _MORE
    return None


@dataclass(frozen=True)
class _Row:
    passage: int
    labels: tuple[str, ...]  # its cells without a number: what the row is about
    cells: tuple[tuple[str, str], ...]  # (header, value) of its cells holding a number

    def cell(self, side: str, header: str) -> Cell:
        """The cell under ``header`` as the input for ``side``, quoted with the row's labels."""
        value = dict(self.cells)[header]
        number = cell_amount(value)
        assert number is not None  # a cell of ``cells`` holds a number
        quoted = _CELL_GAP.join([*self.labels, f"{header}: {value}" if header else value])
        return Cell(side, value, number, self.passage, quoted)


def _rows(passages: dict[int, str]) -> list[_Row]:
    """The table rows of the passages (lines of cells "header: value | ..."), with a number."""
    rows: list[_Row] = []
    for number in sorted(passages):
        for line in passages[number].splitlines():
            parts = [c.strip() for c in line.split(_CELL_GAP)]
            labels, cells = [], []
            for part in parts:
                header, sep, value = part.rpartition(": ")
                if cell_amount(value if sep else part) is not None:
                    cells.append((header, value if sep else part))
                elif part:
                    labels.append(part)
            if len(parts) >= 2 and cells:
                rows.append(_Row(number, tuple(labels), tuple(cells)))
    return rows


def _holds(words: list[str], text: str) -> bool:
    held = set(_keys(text))
    return bool(words) and all(w in held for w in words)


def _best(scores: dict[_K, int], asked: int) -> _K | None:
    """The one key of the highest score, holding at least half of the ``asked`` words; None
    when none does or two tie."""
    best = max(scores.values(), default=0)
    top = [k for k, v in scores.items() if v == best]
    return top[0] if best and best >= asked / 2 and len(top) == 1 else None


def _by_rows(a: str, b: str, what: list[str], rows: list[_Row]) -> tuple[Cell, Cell] | None:
    """Each side a row (its labels hold the side's words), ``what`` the column: the header
    holding most of its words, the same in both rows."""
    found: list[tuple[str, Cell]] = []
    for side in (a, b):
        words = _keys(side)
        cells: dict[tuple[str, float], Cell] = {}
        for row in (r for r in rows if _holds(words, " ".join(r.labels))):
            header = _best({h: len(set(what) & set(_keys(h))) for h, _ in row.cells}, len(what))
            if header is not None:
                cell = row.cell(side, header)
                cells.setdefault((header, cell.value), cell)
        if len(cells) != 1:
            return None  # no row, or rows giving different values
        [((header, _), cell)] = cells.items()
        found.append((header, cell))
    (h1, first), (h2, second) = found
    if h1 != h2 or first.clause == second.clause:
        return None
    return first, second


def _by_columns(a: str, b: str, what: list[str], rows: list[_Row]) -> tuple[Cell, Cell] | None:
    """Each side a column of one row (its header holds the side's words), ``what`` the row:
    the one whose labels hold most of its words."""
    labels = {i: len(set(what) & set(_keys(" ".join(r.labels)))) for i, r in enumerate(rows)}
    best = _best(labels, len(what))
    if best is None:
        return None
    row = rows[best]
    found: list[Cell] = []
    for side in (a, b):
        headers = [h for h, _ in row.cells if _holds(_keys(side), h)]
        if len(headers) != 1:
            return None
        found.append(row.cell(side, headers[0]))
    return found[0], found[1]


def comparison_sides(question: str) -> tuple[str, str] | None:
    """The two sides of a comparison question with what is compared, as search queries
    ("Germany franchisees in 1994", "UK franchisees in 1994"); None for any other question."""
    read = _read(question)
    if read is None:
        return None
    a, b, what, _ = read
    return f"{a} {what.strip()}".strip(), f"{b} {what.strip()}".strip()


def compare(question: str, passages: dict[int, str]) -> Compared | None:
    """The side of a comparison question ("did A or B have more X", "which had the bigger X,
    A or B") whose table cell holds the larger (or smaller) value, from the table rows of the
    passages (number -> text, rows written "header: value | ..."); None when the question is
    not one, a side's cell is not found as one, or the two values are equal."""
    read = _read(question)
    if read is None:
        return None
    a, b, what_text, larger = read
    sides = set(_keys(a)) | set(_keys(b))
    what = list(dict.fromkeys(w for w in _keys(what_text) if w not in sides))
    rows = _rows(passages)
    pair = _by_rows(a, b, what, rows) or _by_columns(a, b, what, rows)
    if pair is None or pair[0].value == pair[1].value:
        return None
    first, second = pair
    chosen = first if (first.value > second.value) == larger else second
    other = second if chosen is first else first
    return Compared(chosen, other, larger)
