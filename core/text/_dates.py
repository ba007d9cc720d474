"""Calendar dates as documents write them ("January 23, 2023", "23 Jan 2023", "2023-01-23"),
read into ``datetime.date``: what a days-between question is computed from."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH = r"(?P<{g}>" + "|".join(f"{m[:3]}(?:{m[3:]})?" for m in _MONTHS) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
#: A date: "January 23, 2023" (a line break may part its pieces), "23 January 2023" ("23rd of
#: Jan. 2023"), or ISO "2023-01-23".
DATE = re.compile(
    rf"\b{_MONTH.format(g='m1')}\s+(?P<d1>\d{{1,2}}){_ORD},?\s+(?P<y1>\d{{4}})\b"
    rf"|\b(?P<d2>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH.format(g='m2')},?\s+(?P<y2>\d{{4}})\b"
    r"|(?<![\w.-])(?P<y3>\d{4})-(?P<m3>\d{2})-(?P<d3>\d{2})(?![\w.-])",
    re.IGNORECASE,
)


#: A month and day without a year ("March 3", "3 March", "the 3rd of March"): the month in group
#: ``month`` or ``month2``, the day in ``day`` or ``day2``.
DAY_OF_MONTH = re.compile(
    rf"\b{_MONTH.format(g='month')}\s+(?P<day>\d{{1,2}}){_ORD}\b"
    rf"|\b(?P<day2>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH.format(g='month2')}(?!\w)",
    re.IGNORECASE,
)


def month_number(name: str) -> int:
    """The number (1-12) of a month named in full or by its first three letters ("Sept." -> 9).

    Raises:
        ValueError: ``name`` names no month.
    """
    return [m[:3] for m in _MONTHS].index(name[:3].lower()) + 1


def date_of(match: re.Match[str]) -> dt.date | None:
    """The date a ``DATE`` match writes, or None when it is no calendar day ("February 30")."""
    g = match.groupdict()
    try:
        if g["y1"]:
            return dt.date(int(g["y1"]), month_number(g["m1"]), int(g["d1"]))
        if g["y2"]:
            return dt.date(int(g["y2"]), month_number(g["m2"]), int(g["d2"]))
        return dt.date(int(g["y3"]), int(g["m3"]), int(g["d3"]))
    except ValueError:
        return None


#: A month's short name in the languages whose tables write "14-jul-17" or "19-mai-17"
#: (English, Portuguese, Spanish, French, German, Italian, Dutch; accents folded), its number.
_SHORT_MONTHS: dict[str, int] = {
    **{m[:3]: i for i, m in enumerate(_MONTHS, start=1)},
    "sept": 9, "fev": 2, "abr": 4, "mai": 5, "ago": 8, "set": 9, "out": 10, "dez": 12,
    "ene": 1, "dic": 12, "janv": 1, "fevr": 2, "avr": 4, "juin": 6, "juil": 7, "aou": 8,
    "mae": 3, "mrz": 3, "okt": 10, "gen": 1, "mag": 5, "giu": 6, "lug": 7, "ott": 10,
    "mrt": 3, "mei": 5,
}  # fmt: skip
#: A date written day-month-year with hyphens and the month's short name ("14-jul-17",
#: "19-mai-2017", "14-Jul-2017"), or with dots and figures, as Europe writes it ("23.04.2020").
DAY_MONTH_YEAR = re.compile(
    r"(?<![\w.-])(?P<d>\d{1,2})-(?P<m>[^\W\d_]{3,4})\.?-(?P<y>\d{4}|\d{2})(?![\w-])"
    r"|(?<![\w.])(?P<d2>\d{1,2})\.(?P<m2>\d{1,2})\.(?P<y2>\d{4})(?![\w]|\.\d)"
)


def _day_month_year(match: re.Match[str]) -> dt.date | None:
    """The date a ``DAY_MONTH_YEAR`` match writes (a two-figure year is 2000-2049 or
    1950-1999), or None: no month of ``_SHORT_MONTHS``, or no calendar day."""
    g = match.groupdict()
    if g["d"]:
        name = unicodedata.normalize("NFKD", g["m"].lower()).encode("ascii", "ignore").decode()
        month = _SHORT_MONTHS.get(name)
        day, year = int(g["d"]), int(g["y"])
        if len(g["y"]) == 2:
            year += 2000 if year < 50 else 1900
    else:
        day, month, year = int(g["d2"]), int(g["m2"]), int(g["y2"])
    try:
        return dt.date(year, month, day) if month else None
    except ValueError:
        return None


def dates(text: str) -> list[tuple[str, dt.date, int]]:
    """The dates ``text`` writes: (as written, the date, its start offset), in order: "January
    23, 2023", "23 Jan 2023", "2023-01-23" (``DATE``), "23-jan-23" and "23.01.2023"
    (``DAY_MONTH_YEAR``)."""
    found = []
    for m in DATE.finditer(text):
        day = date_of(m)
        if day is not None:
            found.append((m.group(0), day, m.start()))
    for m in DAY_MONTH_YEAR.finditer(text):
        day = _day_month_year(m)
        if day is not None:
            found.append((m.group(0), day, m.start()))
    return sorted(found, key=lambda f: f[2])


def month_forms(word: str) -> tuple[str, ...]:
    """The other ways documents write the month ``word`` names (lower-cased), for a keyword
    search: "july" -> ("jul",), "jul" -> ("july",), "sept" -> ("september", "sep"); empty for a
    word naming no month, and for "may" (a verb as often as a month, one form only)."""
    for name in _MONTHS:
        forms = (name, name[:3], *(("sept",) if name == "september" else ()))
        if word in forms and name != "may":
            return tuple(f for f in forms if f != word)
    return ()


#: A month of a year as a question asks for it: "in December 2015", "on 12 March 1999",
#: "October 6, 1973" (the month's name capitalised, the year after it).
_ASKED_MONTH = re.compile(
    r"\b(?P<month>" + "|".join(m.capitalize() for m in _MONTHS) + r")\s+"
    r"(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?(?P<year>\d{4})\b"
)


def asked_months(question: str) -> list[tuple[str, int, int]]:
    """The months of a year ``question`` asks about: (as written, month 1-12, year)."""
    return [
        (m.group(0), month_number(m.group("month")), int(m.group("year")))
        for m in _ASKED_MONTH.finditer(question)
    ]


#: A month of a year written alone, as a table's row label writes it: "JUL-2012", "Jul 2012",
#: "July 2012", "2012-07", "07/2012", "2012M07".
_MONTH_YEAR = re.compile(
    r"(?P<name>[^\W\d_]{3,9})\.?[-\s]?(?P<year>\d{4})"
    r"|(?P<y2>\d{4})(?:-|M)(?P<m2>\d{2})|(?P<m3>\d{1,2})/(?P<y3>\d{4})",
    re.IGNORECASE,
)


def month_year(value: str) -> tuple[int, int] | None:
    """(month, year) of a value that is a month of a year and nothing more (``_MONTH_YEAR``:
    "JUL-2012" -> (7, 2012)); None for anything else ("July 14, 2012", "Jupiter 2012")."""
    m = _MONTH_YEAR.fullmatch(value.strip())
    if m is None:
        return None
    if m["name"]:
        name = m["name"].lower()
        full = next((i for i, n in enumerate(_MONTHS, 1) if n.startswith(name)), None)
        month = full if len(name) >= 3 and full is not None else _SHORT_MONTHS.get(name)
        return (month, int(m["year"])) if month else None
    month, year = (int(m["m2"]), int(m["y2"])) if m["y2"] else (int(m["m3"]), int(m["y3"]))
    return (month, year) if 1 <= month <= 12 else None


def holds_month(text: str, month: int, year: int) -> bool:
    """True when ``text`` names ``month`` in any way: its name or first three letters as a word
    ("December", "Dec."), or a numeric date of that month of ``year`` ("2015-12", "12/2015",
    "12/3/2015"). Lenient on purpose (any mention of the month's name counts, whatever its
    year): it is what a passage answering for that month cannot lack. On SQuAD 2.0 dev, no
    answerable question's paragraph lacks the month it asks for (7 questions)."""
    name = _MONTHS[month - 1]
    if re.search(rf"\b{name[:3]}(?:{name[3:]}|t)?\b", text, re.IGNORECASE):  # "Sept"
        return True
    m = rf"0?{month}"
    return bool(
        re.search(rf"(?<!\d){year}-{m:s}(?!\d)|(?<!\d){m}/(?:\d{{1,2}}/)?{year}(?!\d)", text)
    )
