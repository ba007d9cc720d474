"""Arithmetic between two cited numbers, done by Hearth rather than by the model (issue 35, item
5): "How many years after the 1914 Cicero translation did Lorem Ipsum become the industry's
standard dummy text?" was answered with a number from one passage ("10" for 29); both inputs
were in the passages. The question is read for its two sides (``X`` and ``Y`` of "how many
years after X did Y", "how many days between X and Y"); each side's year or date is the one the
side states ("the 1914 Cicero translation"), or else the one whose clause in a passage holds
the side's words best (at least half of them); the difference is computed and shown with both
inputs and their citations. When a side's input is not found, or the two are one, nothing is
computed (the model's reply is reviewed as usual).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from core.text import (
    CLAUSE_GAP,
    SENTENCE_GAP,
    STOP_WORDS,
    YEAR,
    YEAR_RANGE,
    dates,
    fold,
)

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
#: Prose lines whose start a letter's or memo's date heads.
_HEAD_LINES = 2


@dataclass(frozen=True)
class Operand:
    """One cited input: its value as written, the passage number holding it, and its clause."""

    written: str
    value: int | dt.date
    passage: int
    clause: str


@dataclass(frozen=True)
class Computed:
    """A difference Hearth computed: ``later - earlier = result`` in ``unit``."""

    result: int
    unit: str
    later: Operand
    earlier: Operand

    def text(self) -> str:
        """The answer shown: the result, the sum, and each input with its clause and citation."""
        a, b = self.later, self.earlier
        return (
            f"{self.result} {self.unit if self.result != 1 else self.unit.rstrip('s')} "
            f"(computed by Hearth from two cited numbers: {a.written} − {b.written} = "
            f"{self.result}). {a.written}: “{a.clause}” [{a.passage}]. "
            f"{b.written}: “{b.clause}” [{b.passage}]."
        )

    def formula(self) -> str:
        """``"1966 - 1914 = 52 years"``: the verdict's record of it."""
        return f"{self.later.written} - {self.earlier.written} = {self.result} {self.unit}"


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


def compute(question: str, passages: dict[int, str]) -> Computed | None:
    """The difference a years- or days-between question asks for, from two numbers the
    passages (number -> text) hold; None when the question is not one, or either input is not
    found. Years: whole years ("1966" - "1914" = 52); days: calendar days between two dates."""
    m = _AFTER.match(question) or _BETWEEN.match(question)
    if not m:
        return None
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


def _order(spot: _Spot) -> int:
    return spot.value.toordinal() if isinstance(spot.value, dt.date) else spot.value


def _difference(later: int | dt.date, earlier: int | dt.date) -> int:
    if isinstance(later, dt.date) and isinstance(earlier, dt.date):
        return (later - earlier).days
    assert isinstance(later, int) and isinstance(earlier, int)
    return later - earlier
