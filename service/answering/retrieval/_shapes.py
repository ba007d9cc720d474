"""The shape of the answer a question asks for, when it has one a text shows on its face: an
e-mail address, a phone number, a web address, a percentage, a sum of money, a year, a date (an
expected answer type, as question answering systems since the TREC QA track have used it to
rank candidate passages). Fitting scores the sentences and rows holding that shape a little
higher: "what e-mail addresses are given for contacting Plutext?" is answered by "Plutext can
be contacted at either jason@plutext.org, or jharrop@plutext.com", which reads less like the
question than the sentences around it (held-out dev h623)."""

from __future__ import annotations

import re
from collections.abc import Callable

from core.text import ADDRESS, DAY_OF_MONTH, dates

#: A date written in figures: "01.07.2020", "9/7/15", "2015-07-09".
_NUMERIC_DATE = re.compile(
    r"(?<![\w.])(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2})(?![\w])"
)


def _holds_date(text: str) -> bool:
    """A date in words or figures ("July 9, 2015", "9 July", "09/07/2015")."""
    return bool(dates(text) or DAY_OF_MONTH.search(text) or _NUMERIC_DATE.search(text))


def _holds_email(text: str) -> bool:
    """An e-mail address (core.text's ``ADDRESS``, the one with an "@")."""
    return any("@" in m.group() for m in ADDRESS.finditer(text))


#: What a question asking for the shape says, and whether a text holds one of that shape.
_SHAPES: dict[str, tuple[re.Pattern[str], Callable[[str], object]]] = {
    "e-mail address": (re.compile(r"\be-?mail\s+address(?:es)?\b", re.IGNORECASE), _holds_email),
    "phone number": (
        re.compile(
            r"\b(?:(?:tele)?phone|mobile|cell|fax)(?:\s+|-)(?:numbers?|no\.?)", re.IGNORECASE
        ),
        re.compile(r"(?<![\w.])\+?\(?\d[\d ()/.-]{6,}\d(?![\w.])").search,
    ),
    "web address": (
        re.compile(r"\b(?:web\s?site|web\s+address|url|home\s?page)s?\b", re.IGNORECASE),
        re.compile(
            r"(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|org|net|edu|gov|io|info|[a-z]{2})/?(?!\w)",
            re.IGNORECASE,
        ).search,
    ),
    "percentage": (
        re.compile(r"\bper\s?cent(?:age)?s?\b|%", re.IGNORECASE),
        re.compile(r"\d\s?%|\bper\s?cent\b", re.IGNORECASE).search,
    ),
    "money": (
        re.compile(
            r"\bhow\s+much\b.*\b(?:cost|costs|pay|paid|price|spend|spent|worth|charged?|fees?|"
            r"earn|earned|owe|owed)\b|\bwhat\s+(?:was|is|were|are)\s+the\s+(?:\w+\s+)?"
            r"(?:price|cost|amount|total|fee|salary|pay)\b",
            re.IGNORECASE,
        ),
        re.compile(
            r"[$€£¥₹]\s?\d|\d\s?(?:[$€£¥₹]|(?:EUR|USD|CHF|GBP|CAD|AUD|INR|MDL|JPY)\b)|"
            r"\b(?:EUR|USD|CHF|GBP|CAD|AUD|INR|MDL|JPY|Rs\.?)\s?\d",
        ).search,
    ),
    "year": (
        re.compile(r"\b(?:what|which)\s+year\b", re.IGNORECASE),
        re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)").search,
    ),
    "date": (
        re.compile(
            r"\b(?:what|which)\s+(?:date|day)\b|\bon\s+what\s+date\b|\bwhen\s+(?:was|is|did|does"
            r"|were|will)\b",
            re.IGNORECASE,
        ),
        _holds_date,
    ),
}


def asked_shapes(question: str) -> list[str]:
    """The shapes (``_SHAPES`` keys) the answer to ``question`` has, by what it asks for:
    "What is Robert Schneider AG's mobile number?" -> ["phone number"]."""
    return [shape for shape, (asks, _) in _SHAPES.items() if asks.search(question)]


def holds_shape(text: str, shape: str) -> bool:
    """True when ``text`` holds a value of ``shape`` (an ``asked_shapes`` name)."""
    return bool(_SHAPES[shape][1](text))
