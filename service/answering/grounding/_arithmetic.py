"""Arithmetic between two cited numbers, done by Hearth rather than by the model (issue 35, item
5): "How many years after the 1914 Cicero translation did Lorem Ipsum become the industry's
standard dummy text?" was answered with a number from one passage ("10" for 29); both inputs
were in the passages. The question is read for its two sides (``X`` and ``Y`` of "how many
years after X did Y", "how many days between X and Y"); each side's year or date is the one the
side states ("the 1914 Cicero translation"), or else the one whose clause in a passage holds
the side's words best (at least half of them); the difference is computed and shown with both
inputs and their citations. When a side's input is not found, or the two are one, nothing is
computed (the model's reply is reviewed as usual).

Amounts the same way: "how much more/less X did A have than B" and "how many more A than B
were delivered" (the difference), "what was the total of A and B" and "how many X did A and B
have in total / combined" (the sum), "by what percentage was A higher/lower than B" and "what
is the percentage difference between A and B" ((A - B) / B in percent). Each side's amount is
the number whose clause (a table row: its column's header and the row's labels) holds the
side's words best, at least half of them, the words the sides share ("sales", "delivered")
breaking ties; years, dates and citation numbers are never amounts.

A change the same way: "by how much did X rise", "by how many mg does the plan raise the
dose", "how much did X fall": the size of a change a passage writes as "from A to B"
("Increase Lisinopril from 10mg to 20mg once daily"), in the clause holding most of the
question's words; by what percentage: (B - A) / A.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from core.text import (
    CITATION,
    CLAUSE_GAP,
    COUNT_WORDS,
    NUMBER,
    SENTENCE_GAP,
    STOP_WORDS,
    YEAR,
    YEAR_RANGE,
    dates,
    fold,
    number_key,
    quoted,
)
from service.answering.grounding._comparison import Compared, compare, comparison_sides

#: "how many years after X did Y", "how many days before X was Y", "how long after X did Y".
_AFTER = re.compile(
    r"^\s*how\s+(?:many\s+(?P<unit>years|days)|long)\s+(?P<dir>after|before|later\s+than|"
    r"earlier\s+than)\s+(?P<x>.+?)\s+(?:did|was|were|is|are|had|has|have|do|does)\s+"
    r"(?P<y>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "how many years passed between X and Y", "how many days are there between X and Y".
_BETWEEN = re.compile(
    r"^\s*how\s+many\s+(?P<unit>years|days)\s+(?:\w+\s+){0,2}?between\s+(?P<x>.+?)\s+and\s+"
    r"(?P<y>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: Words of a side that say when, not what: a side made only of them names its date by its
#: place (a letter's date stands alone on a line at its head: "was the memo dated").
_DATED = {"dated", "date", "written", "sent", "signed"}
_DATED_KEYS = {w[:5] for w in _DATED}
#: Words of a side naming the document itself ("the memo", "the letter", "the e-mail").
_DOCUMENT_KEYS = {"memo", "lette", "email", "mail", "docum", "note", "messa", "notic"}
#: Words that carry no content for finding a side's input (beyond ``STOP_WORDS``).
_SCAFFOLD = STOP_WORDS | {"become", "became", "take", "took", "place", "happen", "happened"}
_WORDS = re.compile(r"[^\W\d_]{3,}")
#: A line starting a list item ("- ", "• ", "2. ", "b) ").
_LIST_ITEM = re.compile(r"^\s*(?:[-•·*▪◦]|\d{1,2}[.)]|[a-z][.)])\s+")
#: Prose lines whose start a letter's or memo's date heads.
_HEAD_LINES = 2


@dataclass(frozen=True)
class Operand:
    """One cited input: its value as written, the passage number holding it, and its clause."""

    written: str
    value: int | float | dt.date
    passage: int
    clause: str


#: How each operation is written in the answer shown and in the verdict's record.
_SHOWN = {"-": "−", "+": "+", "%": "vs"}


@dataclass(frozen=True)
class Computed:
    """A result Hearth computed from two cited inputs: ``later - earlier`` (``op`` "-", years,
    days or an amount: "later" is the first operand, the larger one asked about), ``later +
    earlier`` ("+", a total) or ``(later - earlier) / earlier * 100`` ("%", in percent).
    ``unit`` is "years", "days", "" (an amount) or "%"; ``result`` a number (an int when
    whole), shown with ``places`` decimals at most (``shown``);
    ``base``: the percentage's base when it is not ``earlier`` ("by what percentage was A
    lower than B": (B - A) / B, B being ``later``)."""

    result: int | float
    unit: str
    later: Operand
    earlier: Operand
    op: str = "-"
    base: Operand | None = None
    places: int = 0
    #: The inputs after the first two of a total of several ("+": "11.97 + 11.07 + 10.47").
    more: tuple[Operand, ...] = ()

    @property
    def inputs(self) -> list[Operand]:
        """Every input, in the order the sum writes them."""
        return [self.later, self.earlier, *self.more]

    @property
    def passages(self) -> list[int]:
        """The passage numbers holding the inputs, first cited first, without repeats."""
        return list(dict.fromkeys(x.passage for x in self.inputs))

    def shown(self) -> str:
        """The result as shown: "7500", "56.6", "-12.5"."""
        return _shown(self.result, self.places)

    def _with_unit(self) -> str:
        if self.unit == "%":
            return f"{self.shown()}%"
        if not self.unit:
            return self.shown()
        unit = self.unit if self.result != 1 else self.unit.rstrip("s")
        return f"{self.shown()} {unit}"

    def text(self) -> str:
        """The answer shown: the result, the sum, and each input with its clause and citation."""
        a, b = self.later, self.earlier
        if self.op == "%":
            base = (self.base or b).written
            how = f"({a.written} − {b.written}) / {base} × 100 = {self.shown()}%"
        else:
            written = f" {_SHOWN[self.op]} ".join(x.written for x in self.inputs)
            how = f"{written} = {self.shown()}"
        by_clause: dict[tuple[str, int], list[str]] = {}
        for x in self.inputs:  # inputs of one clause quoted once
            by_clause.setdefault((x.clause, x.passage), []).append(x.written)
        inputs = " ".join(
            f"{_listed(written)}: “{quoted(clause)}” [{passage}]."
            for (clause, passage), written in by_clause.items()
        )
        count = _NUMBER_WORDS.get(len(self.inputs), str(len(self.inputs)))
        shown = self._with_unit()
        return f"{shown} (computed by Hearth from {count} cited numbers: {how}). {inputs}"

    def formula(self) -> str:
        """``"1966 - 1914 = 52 years"``, ``"10,000 + 2,500 = 12500"``, ``"(120 - 100) / 100 =
        20%"``: the verdict's record of it."""
        a, b = self.later.written, self.earlier.written
        if self.op == "%":
            return f"({a} - {b}) / {(self.base or self.earlier).written} = {self.shown()}%"
        written = f" {self.op} ".join(x.written for x in self.inputs)
        return f"{written} = {self._with_unit()}"


#: How many inputs a result was computed from, as the answer says it.
_NUMBER_WORDS = {n: word for word, n in COUNT_WORDS.items()}


def _listed(written: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return written[0] if len(written) == 1 else f"{', '.join(written[:-1])} and {written[-1]}"


def _keys(text: str) -> set[str]:
    """Content words of ``text`` as 5-letter prefixes ("delivery", "delivered" -> "deliv")."""
    return {w[:5] for w in _WORDS.findall(fold(text)) if w not in _SCAFFOLD}


@dataclass(frozen=True)
class _Spot:
    written: str
    value: int | dt.date
    passage: int
    clause: str
    clause_keys: frozenset[str]
    sentence_keys: frozenset[str]
    heads: bool  # alone on one of the first prose lines of its passage


def _units(passage: str) -> list[tuple[str, bool]]:
    """(text, at the head) of a passage's table rows and prose sentences (wrapped lines joined)."""
    units: list[tuple[str, bool]] = []
    prose: list[str] = []
    lines = passage.split("\n")

    def flush() -> None:
        if prose:
            units.extend((s, False) for s in SENTENCE_GAP.split(" ".join(prose)))
            prose.clear()

    for i, line in enumerate(lines):
        if _LIST_ITEM.match(line):  # a list item starts a unit of its own
            flush()
        if " | " in line or (i < _HEAD_LINES and len(line.split()) <= 4):
            flush()
            units.append((line.strip(), " | " not in line))
        elif line.strip():
            prose.append(line.strip())
        else:
            flush()
    flush()
    return units


def _spots(passages: dict[int, str], unit: str) -> list[_Spot]:
    """Every year (``unit`` years) or date (days) the passages write, with its clause."""
    found: list[_Spot] = []
    for number in sorted(passages):
        for text, heads in _units(passages[number]):
            values: list[tuple[str, int | dt.date, int]]
            if unit == "days":
                values = [(w, d, at) for w, d, at in dates(text)]
            else:
                ranged = [(m.start(), m.end()) for m in YEAR_RANGE.finditer(text)]
                values = [
                    (m.group(0), int(m.group(0)), m.start())
                    for m in YEAR.finditer(text)
                    if not any(a <= m.start() < b for a, b in ranged)
                ]
            for written, value, at in values:
                clause = _clause(text, at, at + len(written))
                found.append(
                    _Spot(
                        " ".join(written.split()),
                        value,
                        number,
                        clause,
                        frozenset(_keys(clause)),
                        frozenset(_keys(text)),
                        heads and len(text.split()) <= 4,
                    )
                )
    return found


def _clause(sentence: str, at: int, end: int) -> str:
    """The clause of ``sentence`` holding the value written from ``at`` to ``end`` (a date's
    own comma, "January 23, 2023", does not end it)."""
    start = 0
    for gap in CLAUSE_GAP.finditer(sentence):
        if gap.start() >= end:
            return sentence[start : gap.start()].strip()
        if gap.end() <= at:
            start = gap.end()
    return sentence[start:].strip()


def _given(side: str, spots: list[_Spot], unit: str) -> _Spot | None:
    """The spot of the year or date the side itself states ("the 1914 Cicero translation"),
    the one whose context holds the side's words best; None when the side states none or no
    passage holds it."""
    said: set[int | dt.date]
    if unit == "days":
        said = {d for _, d, _ in dates(side)}
    else:
        said = {int(m.group(0)) for m in YEAR.finditer(side)}
    if not said:
        return None
    keys = _keys(side)
    held = [s for s in spots if s.value in said]
    return max(held, key=lambda s: _fit(keys, s), default=None)


def _fit(keys: set[str], spot: _Spot) -> float:
    return len(keys & spot.clause_keys) + 0.5 * len(keys & (spot.sentence_keys - spot.clause_keys))


def _found(side: str, spots: list[_Spot], other: _Spot | None) -> _Spot | None:
    """The year or date the side names by its words: the spot whose clause (1) and sentence
    (0.5) hold the side's content words best, at least half of them; a side saying only when
    a document was dated takes a date alone at a passage's head. None when none fits, or two
    different values fit as well."""
    keys = _keys(side)
    pool = [s for s in spots if other is None or s.value != other.value]
    if keys & _DATED_KEYS and keys <= _DATED_KEYS | _DOCUMENT_KEYS:
        heads = [s for s in pool if s.heads]
        if heads:
            return heads[0]
    if not keys:
        return None
    scored = sorted(((_fit(keys, s), i) for i, s in enumerate(pool)), reverse=True)
    if not scored or scored[0][0] < max(1.0, len(keys) / 2):
        return None
    best = pool[scored[0][1]]
    rivals = [pool[i] for score, i in scored[1:] if score == scored[0][0]]
    if any(r.value != best.value for r in rivals):
        return None  # two different years fit as well: not Hearth's to choose
    return best


#: A lead-in naming where before the question proper ("On the McDonald's receipt, how much
#: more ...", "According to Table 4 of the S2ORC paper, how many more ...").
_LEAD_IN = re.compile(
    r"^\s*(?:(?:on|in|from|for|at|according\s+to|as\s+(?:stated|given|shown)\s+in)\s+[^,?]{1,80}"
    r"|nationally|overall),\s+(?=(?:how|by|what)\b)",
    re.IGNORECASE,
)
#: A tail naming where ("..., according to the ONS subnational trade workbook?").
_TAIL = re.compile(
    r",\s*(?:according\s+to|as\s+(?:stated|given|shown|reported)\s+(?:in|by))\s+[^,?]{1,80}"
    r"(?=\?*\s*$)",
    re.IGNORECASE,
)


def _asked(question: str) -> str:
    """The question without a lead-in or a tail naming its document: the document is
    retrieval's to find (``retrieval._documents``), the arithmetic reads the question proper."""
    return _TAIL.sub("", _LEAD_IN.sub("", question, count=1), count=1)


def compute(question: str, passages: dict[int, str]) -> Computed | Compared | None:
    """The result a years- or days-between question, an amounts question (a difference, a
    total, a percentage difference) or a comparison of two table cells ("did A or B have more
    X": ``_comparison.compare``) asks for, from two numbers the passages (number -> text)
    hold; None when the question is not one, or either input is not found. Years: whole years
    ("1966" - "1914" = 52); days: calendar days between two dates; amounts: see ``amounts``.
    A lead-in or tail naming the document ("On the receipt, how much more ...") is read past."""
    asked = _asked(question)
    m = _AFTER.match(asked) or _BETWEEN.match(asked)
    if not m:
        return (
            amounts(asked, passages)
            or items(asked, passages)
            or change(asked, passages)
            or between(question, passages)
            or compare(question, passages)
        )
    unit = (m.groupdict().get("unit") or "years").lower()
    x_side, y_side = m.group("x"), m.group("y")
    spots = _spots(passages, unit)
    x = _given(x_side, spots, unit)
    y = _given(y_side, spots, unit)
    x = x or _found(x_side, spots, y)
    y = y or _found(y_side, spots, x)
    if x is None or y is None or x.value == y.value:
        return None
    direction = (m.groupdict().get("dir") or "").lower()
    later, earlier = (x, y) if direction.startswith(("before", "earlier")) else (y, x)
    if not direction:  # "between": whichever comes first
        later, earlier = (x, y) if _order(x) > _order(y) else (y, x)
    result = _difference(later.value, earlier.value)
    if result <= 0:
        return None  # the inputs contradict the question's order: not computed
    return Computed(
        result,
        unit,
        Operand(later.written, later.value, later.passage, later.clause),
        Operand(earlier.written, earlier.value, earlier.passage, earlier.clause),
    )


def sides(question: str) -> tuple[str, str] | None:
    """The two sides of an arithmetic question whose inputs a passage each may hold, as search
    queries: X and Y of a years- or days-between question ("the Lion Air Flight 610 accident",
    "the Ethiopian Airlines Flight 302 accident"), A and B of an amounts question with the
    words both share ("Zone NA make revenue"). None for any other question (a change "from A
    to B" is one passage's), A and B of a comparison with what is compared."""
    asked = _asked(question)
    if m := _AFTER.match(asked) or _BETWEEN.match(asked):
        return m.group("x"), m.group("y")
    read = _sides(asked)
    if read is None:
        return _period_sides(question) or comparison_sides(question)
    _, a, b, shared = read
    return f"{a} {shared}".strip(), f"{b} {shared}".strip()


def _order(spot: _Spot) -> int:
    return spot.value.toordinal() if isinstance(spot.value, dt.date) else spot.value


def _difference(later: int | dt.date, earlier: int | dt.date) -> int:
    if isinstance(later, dt.date) and isinstance(earlier, dt.date):
        return (later - earlier).days
    assert isinstance(later, int) and isinstance(earlier, int)
    return later - earlier


# --- amounts: differences, totals and percentage differences -------------------------------

_VERB = r"(?:did|was|were|is|are|does|do|has|have|had)"
_LESS = {"less", "fewer", "lower", "smaller", "below"}
#: "how much more revenue did A make than B", "how many more blankets than laptops were sent".
_MORE = re.compile(
    r"^\s*how\s+(?:much|many)\s+(?P<cmp>more|less|fewer|higher|lower|greater|bigger|larger|"
    r"smaller)\s+(?P<a>.+?)\s+than\s+(?P<b>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "what was the total of A and B", "what is the sum of A and B".
_TOTAL_OF = re.compile(
    r"^\s*what\s+(?:is|was|are|were)\s+the\s+(?:total|sum|combined\s+\w+)\s+(?:of\s+)?"
    r"(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "how many blankets and laptops were delivered in total", "how much did A and B earn combined".
_IN_TOTAL = re.compile(
    r"^\s*how\s+(?:much|many)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?:in\s+total|in\s+all|"
    r"combined|together|altogether)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "by what percentage was A higher than B", "by how many percent did A exceed B".
_PERCENT = re.compile(
    r"^\s*by\s+(?:what\s+(?:percentage|percent)|how\s+many\s+percent|how\s+much\s+percent)"
    r"\s+(?P<a>.+?)\s+(?P<cmp>higher|lower|more|less|greater|larger|smaller|bigger|fewer|"
    r"above|below)\s+than\s+(?P<b>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "what is the percentage difference between A and B" (relative to B).
_PERCENT_BETWEEN = re.compile(
    r"^\s*what\s+(?:is|was)\s+the\s+(?:percentage|percent)\s+difference\s+between\s+"
    r"(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*\?*\s*$",
    re.IGNORECASE,
)
_AUX = re.compile(rf"\b{_VERB}\b", re.IGNORECASE)
#: Words of a side that say how, not what (beyond ``_SCAFFOLD``).
_AMOUNT_SCAFFOLD = {"much", "many", "more", "less", "total", "combined", "together", "number"}
#: Decimal places shown at most in a percentage.
PERCENT_PLACES = 1
#: Words of a question asking what someone paid: its inputs are sums of money as a bill or a
#: receipt writes them (``_MONEY``), not a quantity, an item or a branch number beside them.
_SPENDING = re.compile(
    r"\b(?:spen[dt]s?|spending|pa(?:y|id|ys)|costs?|costing|charged?|prices?|owed?)\b", re.I
)
#: A sum of money: cents written ("19,90", "3'949.75"), or a currency mark beside the digits.
_MONEY = re.compile(r"\d[.,]\d{2}(?!\d)")
_CURRENCY = re.compile(r"[$€£¥₹]|\b(?:EUR|USD|CHF|GBP|Fr|SFr|Rs|INR|JPY|euros?|dollars?)\b", re.I)
#: Characters either side of an amount a currency mark may stand within.
_CURRENCY_REACH = 5


@dataclass(frozen=True)
class _Amount:
    written: str
    value: float
    passage: int
    clause: str
    near: frozenset[str]  # the words nearer to it than to another amount
    clause_keys: frozenset[str]
    sentence_keys: frozenset[str]


_SHORT_WORDS = re.compile(r"[^\W\d_]{2,}")


def _amount_keys(text: str) -> set[str]:
    """Content words as 5-letter prefixes, two-letter codes kept ("Zone NA": zone, na)."""
    scaffold = _SCAFFOLD | _AMOUNT_SCAFFOLD
    return {w[:5] for w in _SHORT_WORDS.findall(fold(text)) if w not in scaffold}


def _nearest(
    text: str, spans: list[tuple[int, int]], counts: list[tuple[int, int]] | None = None
) -> list[set[str]]:
    """For each amount at ``spans`` of a prose sentence, the content words nearest to it
    rather than to another amount, counted in words ("10,000 blankets, 2,500 laptops and
    1,200 bottles": laptops go with 2,500); a word halfway goes with the amount before it (a
    count comes before what it counts). With ``counts`` (the spans of numbers that are not the
    amounts asked for: quantities beside prices), a count opens a record: the words after it go
    with the next amount ("1 Med Ice Lemon Tea 2.95 1 Coffee with Milk 2.40": coffee goes with
    2.40, not with the tea's 2.95 before it; held-out dev h949)."""
    tokens: list[tuple[int, str | None, bool]] = []  # (position, word key or None, a count)
    marks = [*spans, *(counts or [])]
    for m in _SHORT_WORDS.finditer(text):
        if not any(a <= m.start() < b for a, b in marks):
            tokens.append((m.start(), m.group(0), False))
    tokens += [(a, None, False) for a, _ in spans]
    tokens += [(a, None, True) for a, _ in counts or []]
    tokens.sort(key=lambda t: t[0])
    places = [n for n, (_, word, count) in enumerate(tokens) if word is None and not count]
    near: list[set[str]] = [set() for _ in spans]
    opened = False  # the last number before this word was a count
    for n, (_, word, count) in enumerate(tokens):
        if word is None:
            opened = count
            continue
        if not places:
            continue
        after = [k for k in range(len(places)) if places[k] > n]
        if opened and after:
            best = after[0]
        else:
            best = min(range(len(places)), key=lambda k: (abs(places[k] - n), places[k] > n))
        near[best] |= _amount_keys(word)
    return near


#: A web or mail address: its digits are a path, not an amount (".../articles/2017").
_ADDRESS = re.compile(r"\b(?:https?://|www\.)\S+|\S+@\S+\.\w+", re.IGNORECASE)
#: A table's column without a header, named by its place ("column 3: Eastern Scotland",
#: ingest/loaders/tables.py): the place is no amount.
_PLACE_NAME = re.compile(r"\bcolumn \d+(?=:)")


def _not_amounts(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` whose digits are no amounts: dates, years, ranges, citations, web
    addresses and the names of unnamed columns."""
    spans = [(m.start(), m.end()) for m in _ADDRESS.finditer(text)]
    spans += [(m.start(), m.end()) for m in _PLACE_NAME.finditer(text)]
    spans += [(at, at + len(w)) for w, _, at in dates(text)]
    spans += [(m.start(), m.end()) for m in YEAR_RANGE.finditer(text)]
    spans += [(m.start(), m.end()) for m in YEAR.finditer(text)]
    spans += [(m.start(), m.end()) for m in CITATION.finditer(text)]
    return spans


def _numbers(text: str) -> list[re.Match[str]]:
    """The numbers ``text`` writes that may be amounts (``_not_amounts`` left out), in order."""
    skip = _not_amounts(text)
    return [m for m in NUMBER.finditer(text) if not any(a <= m.start() < b for a, b in skip)]


def _row_context(row: str, at: int) -> str:
    """A table row's words bearing on the cell at ``at``: that cell (its header and value) and
    the row's cells without digits (its labels)."""
    cells, start = [], 0
    for cell in row.split(" | "):
        end = start + len(cell)
        if start <= at <= end or not any(c.isdigit() for c in cell):
            cells.append(cell)
        start = end + 3
    return " | ".join(cells)


def _money(text: str, m: re.Match[str]) -> bool:
    """Whether the number ``m`` of ``text`` is written as a sum of money."""
    beside = text[max(0, m.start() - _CURRENCY_REACH) : m.end() + _CURRENCY_REACH]
    return bool(_MONEY.search(m.group(0)) or _CURRENCY.search(beside))


def _amounts(passages: dict[int, str], money: bool = False) -> list[_Amount]:
    """Every amount the passages write, with the words around it, its clause and sentence;
    with ``money``, the sums of money only (the other numbers are counts beside them)."""
    found: list[_Amount] = []
    for number in sorted(passages):
        for text, _ in _units(passages[number]):
            matches = _numbers(text)
            counts = [(m.start(), m.end()) for m in matches if money and not _money(text, m)]
            if money:
                matches = [m for m in matches if _money(text, m)]
            nearest = _nearest(text, [(m.start(), m.end()) for m in matches], counts)
            for m, words in zip(matches, nearest, strict=True):
                try:
                    value = float(number_key(m.group(0)))
                except ValueError:
                    continue
                if " | " in text:  # a table row: its column's header and the row's labels
                    clause = _row_context(text, m.start())
                    near = _amount_keys(clause)
                else:
                    clause, near = _clause(text, m.start(), m.end()), words
                found.append(
                    _Amount(
                        m.group(0),
                        value,
                        number,
                        clause,
                        frozenset(near),
                        frozenset(_amount_keys(clause)),
                        frozenset(_amount_keys(text)),
                    )
                )
    return found


def _split_verb(side: str) -> tuple[str, str]:
    """(before, after) the first auxiliary verb of a side ("revenue did Zone NA make" ->
    ("revenue", "Zone NA make")); ("", side) without one."""
    m = _AUX.search(side)
    if not m:
        return "", side
    return side[: m.start()].strip(), side[m.end() :].strip()


def _sides(question: str) -> tuple[str, str, str, str] | None:
    """(operation, side A, side B, the words both share) of an amounts question: operation
    "-" (A - B), "-r" (B - A: "how much less"), "+", "%" ((A - B) / B), "%r" ((B - A) / B)
    or "%=" ((A - B) / B, whatever its sign: "the percentage difference between A and B")."""
    if m := _MORE.match(question):
        what, a = _split_verb(m.group("a"))
        b, shared = m.group("b"), what
        if not what:  # "more blankets than laptops were delivered": the verb comes after B
            b, tail = _split_verb(m.group("b"))
            b, shared = (b, tail) if b else (m.group("b"), "")
        op = "-r" if m.group("cmp").lower() in _LESS else "-"
        return op, a, b, shared
    if m := _PERCENT.match(question):
        _, a = _split_verb(m.group("a"))
        op = "%r" if m.group("cmp").lower() in _LESS else "%"
        return op, a, m.group("b"), ""
    if m := _PERCENT_BETWEEN.match(question):
        return "%=", m.group("a"), m.group("b"), ""
    if m := (_TOTAL_OF.match(question) or _IN_TOTAL.match(question)):
        what, a = _split_verb(m.group("a"))
        b, tail = _split_verb(m.group("b"))
        if not b:
            b, tail = m.group("b"), ""
        return "+", a, b, f"{what} {tail}"
    return None


def _best(keys: set[str], shared: set[str], hints: set[str], pool: list[_Amount]) -> _Amount | None:
    """The amount whose words hold the side's own words best (at least half of them; near
    it 1, its clause 0.5, its sentence 0.25), the words both sides share, then half the other
    side's own words ("... of Zone NA higher than that of Zone EUR": the measure named once)
    breaking ties; None when none fits or two different amounts fit as well."""
    if not keys:
        return None

    def own(a: _Amount) -> float:
        return (
            len(keys & a.near)
            + 0.5 * len(keys & (a.clause_keys - a.near))
            + 0.25 * len(keys & (a.sentence_keys - a.clause_keys - a.near))
        )

    def score(a: _Amount) -> tuple[float, float]:
        around = a.near | a.clause_keys
        common = len(shared & around) + 0.5 * len(shared & a.sentence_keys)
        return own(a), common + 0.5 * len(hints & around)

    fitting = [a for a in pool if own(a) >= max(1.0, len(keys) / 2)]
    if not fitting:
        return None
    ranked = sorted(fitting, key=score, reverse=True)
    best = ranked[0]
    if any(score(r) == score(best) and r.value != best.value for r in ranked[1:]):
        return None
    return best


def _shown(value: float, places: int) -> str:
    if isinstance(value, int):
        return str(value)
    text = f"{value:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _places(written: str) -> int:
    key = number_key(written)
    return len(key.split(".", 1)[1]) if "." in key else 0


def amounts(question: str, passages: dict[int, str]) -> Computed | None:
    """The difference, total or percentage difference of two amounts an amounts question asks
    for ("how much more X did A have than B", "what was the total of A and B", "by what
    percentage was A higher than B"), from the passages (number -> text); None when the
    question is not one, a side's amount is not found (or two fit it as well), both sides are
    one amount, or the result contradicts the question (A "more" than B, yet smaller). A
    question about what was spent, paid or cost takes sums of money only ("2 + 547" had added
    a quantity and a store's branch number for "how much did I spend at A and B together")."""
    read = _sides(question)
    if read is None:
        return None
    op, a_side, b_side, shared_text = read
    a_keys, b_keys = _amount_keys(a_side), _amount_keys(b_side)
    common = a_keys & b_keys  # "Zone NA sales" and "Zone GC sales": "sales" is shared
    shared = _amount_keys(shared_text) | common
    # "how much did I spend at A and B": sums of money only
    pool = _amounts(passages, money=bool(_SPENDING.search(question)))
    a = _best(a_keys - common, shared, b_keys - common, pool)
    b = _best(b_keys - common, shared, a_keys - common, [s for s in pool if s is not a])
    if (
        a is None
        or b is None
        or (a.passage, a.clause, a.written) == (b.passage, b.clause, b.written)
    ):
        return None
    first, second = (b, a) if op.endswith("r") else (a, b)
    places = max(_places(first.written), _places(second.written))
    if op.startswith("%"):  # relative to B, "than B" or "between A and B"
        if b.value == 0:
            return None
        result = (first.value - second.value) / b.value * 100
        places = PERCENT_PLACES
    elif op == "+":
        result = first.value + second.value
    else:
        result = first.value - second.value
    if op not in ("+", "%=") and result <= 0:
        return None  # "more" than B, yet not: the inputs contradict the question

    def operand(x: _Amount) -> Operand:
        return Operand(x.written, x.value, x.passage, x.clause)

    percent = op.startswith("%")
    whole = float(result).is_integer() and not percent
    return Computed(
        int(result) if whole else round(result, places),
        "%" if percent else "",
        operand(first),
        operand(second),
        op="%" if percent else ("+" if op == "+" else "-"),
        base=operand(b) if percent and b is first else None,
        places=places,
    )


# --- a total of several items named alike ------------------------------------------------------

#: "How much did the three kinds of pizza cost together?", "What would the two Belkin products
#: cost together?": a count of items, what they are, and a cost.
_ITEMS = re.compile(
    r"^\s*(?:how\s+much|what)\s+(?:did|do|does|would|will|could|was|were|is|are)\s+"
    r"(?:all\s+)?(?:the\s+|my\s+|your\s+)?(?P<n>two|three|four|five|six|seven|eight|nine|ten|\d{1,2})"
    r"\s+(?:(?:kinds?|types?|sorts?)\s+of\s+|different\s+)?(?P<item>.+?)\s+"
    r"(?:cost|come\s+to|add\s+up\s+to)\b.*$",
    re.IGNORECASE,
)


def items(question: str, passages: dict[int, str]) -> Computed | None:
    """The total cost of the items a question counts ("How much did the three kinds of pizza
    cost together?": 11.97 + 11.07 + 10.47 over "3 Supreme Pizza 11.97 3 Pepperoni Pizza 11.07
    3 Cheese Pizza 10.47"): the sums of money whose item words hold most of the question's item
    words, when exactly as many as it counts do (the same line in two passages counted once).
    None when the question is no such question, more or fewer sums fit as well (a fourth
    pizza), or a sum stands beside another (a unit price and its line's total)."""
    m = _ITEMS.match(question)
    if not m:
        return None
    n = m.group("n").lower()
    count = COUNT_WORDS.get(n) or int(n)
    keys = _amount_keys(m.group("item"))
    if count < 2 or not keys:
        return None
    fits: dict[tuple[str, frozenset[str]], tuple[int, _Amount]] = {}
    for amount in _amounts(passages, money=True):
        held = len(keys & amount.near)
        seen = (amount.written, amount.near)  # one line of two overlapping passages: once
        if held and (seen not in fits or fits[seen][0] < held):
            fits[seen] = (held, amount)
    best = max((held for held, _ in fits.values()), default=0)
    chosen = [a for held, a in fits.values() if held == best]
    if not best or len(chosen) != count or any(_paired(a.clause, a.written) for a in chosen):
        return None
    places = max(_places(a.written) for a in chosen)
    total = sum(a.value for a in chosen)
    whole = float(total).is_integer() and places == 0
    first, second, *more = (
        Operand(a.written, a.value, a.passage, _item_line(a.clause, a.written)) for a in chosen
    )
    return Computed(
        int(total) if whole else round(total, places),
        "",
        first,
        second,
        op="+",
        places=places,
        more=tuple(more),
    )


def _sums(clause: str) -> list[re.Match[str]]:
    """The sums of money ``clause`` writes, in order."""
    return [m for m in _numbers(clause) if _money(clause, m)]


def _item_line(clause: str, written: str) -> str:
    """The part of a receipt's ``clause`` that is the item of the sum ``written``: from after
    the sum of money before it to it ("26 Med Drink 43.94 3 Supreme Pizza 11.97" -> "3
    Supreme Pizza 11.97"); the clause when ``written`` is not in it."""
    sums = _sums(clause)
    for i, m in enumerate(sums):
        if m.group(0) == written:
            start = sums[i - 1].end() if i else 0
            return clause[start : m.end()].strip(" ,;:")
    return clause


def _paired(clause: str, written: str) -> bool:
    """Whether the sum ``written`` stands beside another with no word between them ("22,99
    45,98": a unit price and its line's total), so that which one is the item's is not said."""
    sums = _sums(clause)
    for i, m in enumerate(sums):
        if m.group(0) != written:
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(sums):
                a, b = sorted((m, sums[j]), key=lambda x: x.start())
                if not _SHORT_WORDS.search(clause[a.end() : b.start()]):
                    return True
    return False


# --- a change written "from A to B" ------------------------------------------------------------

_UP = (
    r"rais(?:e|es|ed)|ris(?:e|es|en)|rose|increas(?:e|es|ed)|gr(?:ow|ows|own|ew)|"
    r"climb(?:s|ed)?|go\s+up|went\s+up"
)
_DOWN = (
    r"fall(?:s|en)?|fell|drop(?:s|ped)?|decreas(?:e|es|ed)|declin(?:e|es|ed)|reduc(?:e|es|ed)|"
    r"lower(?:s|ed)?|cut|shr(?:ink|inks|ank|unk)|go\s+down|went\s+down"
)
#: "by how much did X rise", "by how many mg per day does the plan raise the dose", "how much
#: did revenue fall", "by what percentage did sales increase".
_CHANGE = re.compile(
    r"^\s*(?:by\s+)?(?:how\s+(?:much|many)|what\s+(?P<pct>percentage|percent))"
    r"(?P<unit>(?:\s+[\w%$€£/]+){0,3}?)\s+(?:did|does|do|was|is|were|are|will|would|has|have|had)"
    rf"\s+(?P<before>.+?)\s+(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b(?P<after>.*?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: "from 10mg to 20mg", "from $1.2 million to $1.5 million", "from 10% to 15%".
_FROM_TO = re.compile(
    rf"\bfrom\s+(?:[A-Z]{{3}}\s+|[$€£]\s*)?(?P<a>{NUMBER.pattern})\s*(?P<ua>%|[^\W\d_]{{1,12}}\b)?"
    rf"[^.;:\n]{{0,24}}?\s+to\s+(?:[A-Z]{{3}}\s+|[$€£]\s*)?(?P<b>{NUMBER.pattern})\s*(?P<ub>%|[^\W\d_]{{1,12}}\b)?",
    re.IGNORECASE,
)


def _asks_for(question: re.Match[str]) -> str:
    """What a change question (``_CHANGE``) asks the change in: "points" ("by how many
    percentage points"), "percent" ("by what percentage", "by how many percent") or "" (the
    amounts' own unit). One reading for ``change`` and ``between``."""
    unit_words = question.group("unit") or ""
    if re.search(r"\bpoints?\b", unit_words, re.IGNORECASE):
        return "points"
    if question.group("pct") or re.search(r"\bpercent|%", unit_words, re.IGNORECASE):
        return "percent"
    return ""


#: A unit that makes an amount a percentage ("69.4 percent", "15%", "3 pct").
_PERCENT_UNIT = re.compile(r"%|percent|pct", re.IGNORECASE)


def change(question: str, passages: dict[int, str]) -> Computed | None:
    """The size of a change the question asks for ("by how much did X rise", "by what
    percentage did X fall") from a passage writing it "from A to B": the clause with a
    "from A to B" holding most of the question's content words (at least one), B - A for a
    rise, A - B for a fall, (B - A) / A in percent when a percentage is asked of amounts that
    are no percentages. None when the question is no such question, no clause fits, two
    clauses fit as well with different results, A or B is a year, or the change goes the
    other way than the question says."""
    m = _CHANGE.match(question)
    if not m:
        return None
    keys = _amount_keys(f"{m.group('before')} {m.group('after')}")
    if not keys:
        return None
    asked = _asks_for(m)
    found: list[tuple[float, Computed]] = []
    for number in sorted(passages):
        for text, _ in _units(passages[number]):
            for hit in _FROM_TO.finditer(text):
                got = _changed(hit, text, number, m, asked, keys)
                if got is not None:
                    found.append(got)
    if not found:
        return None
    found.sort(key=lambda f: f[0], reverse=True)
    best_score, best = found[0]
    if any(score == best_score and c.result != best.result for score, c in found[1:]):
        return None
    return best


def _relative(start: Operand, end: Operand, rise: bool) -> Computed | None:
    """A change from ``start`` to ``end`` in percent of ``start`` (a fall as a positive
    percentage); None when ``start`` is 0."""
    assert isinstance(start.value, float) and isinstance(end.value, float)
    a, b = start.value, end.value
    if a == 0:
        return None
    value = round((b - a) / a * 100 * (1 if rise else -1), PERCENT_PLACES)
    first, second = (end, start) if rise else (start, end)
    return Computed(value, "%", first, second, op="%", base=start, places=PERCENT_PLACES)


def _changed(
    hit: re.Match[str],
    text: str,
    number: int,
    question: re.Match[str],
    asked: str,
    keys: set[str],
) -> tuple[float, Computed] | None:
    """(how well its clause fits, the change) of one "from A to B" of a passage's ``text``,
    in what the question asks (``_asks_for``): percentage points between two percentages,
    percent of A between two amounts that are no percentages."""
    a_written, b_written = hit.group("a"), hit.group("b")
    if YEAR.fullmatch(a_written) and YEAR.fullmatch(b_written):
        return None  # "from 2019 to 2021": a period, not a change
    try:
        a, b = float(number_key(a_written)), float(number_key(b_written))
    except ValueError:
        return None
    clause = _clause(text, hit.start(), hit.end())
    held = len(keys & _amount_keys(clause))
    if not held:
        return None  # the clause of the change names nothing the question asks about
    score = held + 0.5 * len(keys & _amount_keys(text))
    rise = question.group("up") is not None
    if (b - a if rise else a - b) <= 0:
        return None  # the passage's change goes the other way
    ua, ub = hit.group("ua") or "", hit.group("ub") or ""
    # each as written, with its unit ("10mg", "1,234.5 million")
    at_a = text[hit.start("a") : hit.end("ua") if ua else hit.end("a")]
    at_b = text[hit.start("b") : hit.end("ub") if ub else hit.end("b")]
    start, end = Operand(at_a, a, number, clause), Operand(at_b, b, number, clause)
    first, second = (end, start) if rise else (start, end)
    shares = any(_PERCENT_UNIT.fullmatch(u) for u in (ua, ub))  # "69.4 percent to 71.1%"
    if asked == "percent" and not shares:
        relative = _relative(start, end, rise)
        return None if relative is None else (score, relative)
    if asked == "percent":
        return None  # percentage points or a relative change: the question does not say
    places = max(_places(a_written), _places(b_written))
    result = b - a if rise else a - b
    whole = result.is_integer()
    unit = ub if ub and ub == (ua or ub) else ""
    if shares:
        unit = "percentage points"
    elif asked == "points":
        unit = "points"  # of an index or a score
    return score, Computed(
        int(result) if whole else round(result, places), unit, first, second, places=places
    )


# --- a change between two periods of a table ---------------------------------------------------

#: The two periods a change is asked between ("between 1950-1955 and 2005-2010", "from Q4 2007
#: to Q1 2009"), each with a figure.
_TOKEN = r"[\w./-]*\d[\w./-]*"  # a word holding a figure: "2007", "Q4", "1950-1955", "FY21"
_PERIOD = rf"(?:[^\W\d_]{{3,9}}\s)?{_TOKEN}(?:\s{_TOKEN})?"  # "Q4 2007", "March 2020"
_PERIODS = re.compile(
    rf"\b(?:between|from)\s+(?:the\s+)?(?P<p>{_PERIOD})\s+(?:and|to)\s+(?:the\s+)?"
    rf"(?P<q>{_PERIOD})(?![\w.-])",
    re.IGNORECASE,
)


def _periods(question: str) -> tuple[re.Match[str], str, str, set[str]] | None:
    """(the change question read, period P, period Q, the content words of what changed) of
    "by how much did X fall between P and Q" (or "from P to Q"), or of a change question
    naming two years anywhere, its lead-in too ("In the slide comparing content in 1997 vs.
    1995, by how many percentage points did the share of text-only slides drop?": from the
    earlier year to the later); None for any other question."""
    m = _CHANGE.match(_asked(question))
    if not m:
        return None
    words = f"{m.group('before')} {m.group('after')}"
    hit = _PERIODS.search(m.group("after")) or _PERIODS.search(m.group("before"))
    if hit:
        p, q = hit.group("p"), hit.group("q")
        words = words.replace(hit.group(0), " ")
    else:
        years = list(dict.fromkeys(y.group(0) for y in YEAR.finditer(question)))
        if len(years) != 2:
            return None
        p, q = sorted(years)
        words = YEAR.sub(" ", words)
    keys = _amount_keys(words)
    return (m, p, q, keys) if keys else None


def _period_sides(question: str) -> tuple[str, str] | None:
    """What changed with each period, as two searches ("average price of all UK houses Q4
    2007", "... Q1 2009"): a table with a row per period holds each in another row."""
    read = _periods(question)
    if read is None:
        return None
    m, p, q, _ = read
    what = f"{m.group('before')} {m.group('after')}".replace(p, " ").replace(q, " ")
    what = re.sub(r"\b(?:between|from|and|to)\s*(?=\s|$)", " ", what)
    what = " ".join(what.split())
    return f"{what} {p}", f"{what} {q}"


def _is_period(cell_part: str, period: str) -> bool:
    """Whether a header or a cell's value names the ``period`` (folded, dashes alike, as a
    whole run of words: "2005-2010" in "2005-2010", not in "2005-2010 variant B"'s "2005")."""
    return bool(
        re.search(
            rf"(?<![\w.-]){re.escape(fold(period))}(?![\w.-])", " ".join(fold(cell_part).split())
        )
    )


def _without(header: str, period: str) -> str:
    """A header's words but the ``period``'s: what the column measures."""
    rest = re.sub(rf"(?<![\w.-]){re.escape(fold(period))}(?![\w.-])", " ", fold(header))
    return " ".join(re.sub(r"[^\w%]+", " ", rest).split())


def _cells(row: str) -> list[tuple[str, str, int]]:
    """(header, value, where the value starts) of a table row's "header: value" cells; a cell
    without a header ("Germany | 1993, number of franchisors: 370") has the header ""."""
    out, start = [], 0
    for cell in row.split(" | "):
        header, colon, value = cell.partition(": ")
        if colon:
            out.append((header, value.strip(), start + len(header) + 2))
        elif cell.strip() and cell.strip() != "…":
            out.append(("", cell.strip(), start))
        start += len(cell) + 3
    return out


def _figure(value: str) -> float | None:
    """A cell's value as a number ("-16.5", "29%", "183,959"); None for a label."""
    digits = value.lstrip("-−").removesuffix("%").rstrip()
    if not NUMBER.fullmatch(digits):
        return None
    try:
        number = float(number_key(digits))
    except ValueError:
        return None
    return -number if value[:1] in "-−" else number


def _labelled(row: str, period: str, header: str) -> str:
    """The cell of ``row`` naming the ``period`` and its cell under ``header``: "1952 Q4 = 100:
    Q4 2007 | £, All Houses (UK), Price: 184131"."""
    cells = _cells(row)
    label = next(f"{h}: {v}" for h, v, _ in cells if _is_period(v, period))
    value = next(f"{h}: {v}" for h, v, _ in cells if h == header)
    return f"{label} | {value}"


def between(question: str, passages: dict[int, str]) -> Computed | None:
    """The change a question asks for between two periods of a table ("By how many percentage
    points did Brazil's growth rate fall between 1950-1955 and 2005-2010?", "By how much did
    the average price of all UK houses fall between Q4 2007 and Q1 2009?"): the two cells of
    one row under the two periods' columns (the row holding most of the question's words), or
    the cells under the same column (the one whose header holds most of them) of the two rows
    the periods label. Q - P for a rise, P - Q for a fall; in percent of P when a percentage
    of amounts is asked, in percentage points when points are. None when the question is no
    such question, no row or column holds one of its words, two fit as well with different
    results, or the change goes the other way than the question says."""
    read = _periods(question)
    if read is None:
        return None
    m, p, q, keys = read
    said = set(_SHORT_WORDS.findall(fold(question)))

    def fit(words: str) -> tuple[int, int]:
        """The question's content words ``words`` hold, then fewer words it does not say
        ("New Houses (UK), Price" loses to "All Houses (UK), Price" for "all UK houses")."""
        return len(keys & _amount_keys(words)), -len(set(_SHORT_WORDS.findall(fold(words))) - said)

    rows = [
        (number, text)
        for number in sorted(passages)
        for text, _ in _units(passages[number])
        if " | " in text
    ]
    found: list[tuple[tuple[int, int], Operand, Operand]] = []
    for number, row in rows:  # one row, a column per period, the same measure under both
        cells = _cells(row)
        labels = " ".join(f"{h} {v}" for h, v, _ in cells if _figure(v) is None)
        for hp, vp, ap in cells:
            if not _is_period(hp, p) or _figure(vp) is None:
                continue
            measure = _without(hp, p)  # "1994, number of franchisees" -> "number of franchisees"
            for hq, vq, aq in cells:
                if not _is_period(hq, q) or _figure(vq) is None or _without(hq, q) != measure:
                    continue
                held = fit(f"{labels} {measure}")
                if held[0]:
                    found.append(
                        (
                            held,
                            Operand(vp, _figure(vp) or 0.0, number, _row_context(row, ap)),
                            Operand(vq, _figure(vq) or 0.0, number, _row_context(row, aq)),
                        )
                    )
    labelled = {
        period: [
            (n, row) for n, row in rows if any(_is_period(v, period) for _, v, _ in _cells(row))
        ]
        for period in (p, q)
    }
    for n_p, row_p in labelled[p]:  # a row per period, the same column
        for n_q, row_q in labelled[q]:
            cells_q = {h: v for h, v, _ in _cells(row_q)}
            for header, vp, _ in _cells(row_p):
                vq = cells_q.get(header, "")
                held = fit(header)
                if held[0] and _figure(vp) is not None and _figure(vq) is not None:
                    found.append(
                        (
                            held,
                            Operand(vp, _figure(vp) or 0.0, n_p, _labelled(row_p, p, header)),
                            Operand(vq, _figure(vq) or 0.0, n_q, _labelled(row_q, q, header)),
                        )
                    )
    if not found:
        return None
    found.sort(key=lambda f: f[0], reverse=True)
    best, start, end = found[0]
    if any(
        score == best and (b.value, a.value) != (end.value, start.value)
        for score, a, b in found[1:]
    ):
        return None  # two rows or columns fit as well: not Hearth's to choose
    assert isinstance(start.value, float) and isinstance(end.value, float)
    rise = m.group("up") is not None
    a, b = start.value, end.value
    result = b - a if rise else a - b
    if result <= 0:
        return None
    first, second = (end, start) if rise else (start, end)
    asked = _asks_for(m)
    if asked == "percent":
        return _relative(start, end, rise)
    places = max(_places(start.written), _places(end.written))
    whole = result.is_integer()
    return Computed(
        int(result) if whole else round(result, places),
        "percentage points" if asked == "points" else "",
        first,
        second,
        places=places,
    )
