"""Numbers as an answer or a passage writes them: a run of digits with "," or "." inside."""

from __future__ import annotations

import re

#: A number: digits with "," or "." inside ("1,240", "12.5"), or one digit standing alone; not
#: part of a word or of a longer dotted run.
NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d|(?<![\w.])\d(?![\w])")
#: A number of two or more digits standing alone ("2027", "W-09"): not "17th", "1700s", "3".
MULTI_DIGIT_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])")
#: A multi-digit number not followed by a word character, else a word: a text's tokens.
NUMBER_OR_WORD = re.compile(r"(?<![\w.])\d[\d,.]*\d(?!\w)|\w+", re.UNICODE)


def number_key(text: str) -> str:
    """A number as compared: no commas, no trailing zeros after a point ("12.10" -> "12.1")."""
    key = text.replace(",", "")
    if "." in key:
        key = key.rstrip("0").rstrip(".")
    return key


#: A table cell that is a number: a sign or "(", a currency, digits with separators, a "%".
NUMERIC_CELL = re.compile(r"[-+(]?[$€£¥₹]?\d[\d,.' ]*%?\)?")
#: A figure as a summary states it: digits with "," "." ":" "/" "-" inside (times, dates).
FIGURE = re.compile(r"\d[\d,.:/-]*\d|\d")
