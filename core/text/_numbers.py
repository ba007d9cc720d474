"""Numbers as an answer or a passage writes them: a run of digits with "," or "." inside, the
group separators of other locales ("2,32,822", "1.234,5", "3'949.75", "12 500" with a no-break
space), and ranges and seasons ("1991–92", "2021/22", "1991-1992"), compared as one key each."""

from __future__ import annotations

import re
from functools import lru_cache

from text_to_num import alpha2digit

#: Characters that part digit groups when exactly three digits follow: an apostrophe (Swiss
#: "3'949.75", "3`949.75" as OCR reads it), a no-break or thin space ("12 500").
_GROUP = "'`’\u00a0\u202f\u2009"
_GROUPED = rf"[{_GROUP}](?=\d{{3}}(?!\d))"
#: A number: digits with "," or "." inside ("1,240", "12.5"), or a group separator before three
#: digits ("3'949.75"), or one digit standing alone; not part of a word or of a longer dotted run.
NUMBER = re.compile(rf"(?<![\w.])\d(?:[\d,.]|{_GROUPED})*\d|(?<![\w.])\d(?![\w])")
#: A number of two or more digits standing alone ("2027", "W-09"): not "17th", "1700s", "3".
MULTI_DIGIT_NUMBER = re.compile(rf"(?<![\w.])\d(?:[\d,.]|{_GROUPED})*\d(?![\w])")
#: A multi-digit number not followed by a word character, else a word: a text's tokens.
NUMBER_OR_WORD = re.compile(rf"(?<![\w.])\d(?:[\d,.]|{_GROUPED})*\d(?!\w)|\w+", re.UNICODE)
#: Dashes of every width (and the minus sign); ``fold`` writes each as "-".
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
#: A range of years or a season: a year, a dash or "/", and a later year in full or by its last
#: two digits ("1991–92", "2021/22", "1991 - 1992"), also at a sentence's or clause's end
#: ("covers 2021-22."); not a date ("2021-04-17") nor a part of a longer number ("2021-22.5").
#: Group 1 is the first year, group 2 the second as written.
YEAR_RANGE = re.compile(
    rf"(?<![\w.,/{DASHES}-])([12]\d{{3}}) ?[/{DASHES}-] ?(\d{{4}}|\d{{2}})(?!\w|[.,/{DASHES}-]\d)"
)

#: A year standing alone (1000-2199): not a piece of a longer number, a date or a range.
YEAR = re.compile(
    rf"(?<![\w.,/{DASHES}-])(?:1\d{{3}}|20\d{{2}}|21\d{{2}})(?![\w]|[.,/{DASHES}-]\d)"
)


def year_range(match: re.Match[str]) -> tuple[int, int] | None:
    """The (first, last) years of a ``YEAR_RANGE`` match, or None when the second does not come
    after the first (within a century written in full, 20 years written by two digits; so
    "2019-05", a month, is not a range): "2021/22" -> (2021, 2022), "1999–00" -> (1999, 2000)."""
    first, last = int(match.group(1)), match.group(2)
    if len(last) == 4:
        end = int(last)
        return (first, end) if first < end <= first + 100 else None
    end = first // 100 * 100 + int(last)
    if end <= first and first % 100 >= 80:
        end += 100  # "1999–00"
    return (first, end) if first < end <= first + 20 else None


def ranges(text: str) -> list[tuple[str, int, int]]:
    """The year ranges and seasons ``text`` writes: (as written, first year, last year)."""
    found = []
    for m in YEAR_RANGE.finditer(text):
        years = year_range(m)
        if years:
            found.append((m.group(0), *years))
    return found


def number_key(text: str) -> str:
    """A number as compared: group separators out, a decimal comma as a point, no trailing
    zeros after the point ("12.10" -> "12.1", "2,32,822" -> "232822", "1.234,5" -> "1234.5",
    "3'949.75" -> "3949.75"); a year range as its two years ("1991–92" -> "1991-1992")."""
    m = YEAR_RANGE.fullmatch(text.strip())
    if m and (years := year_range(m)):
        return f"{years[0]}-{years[1]}"
    key = re.sub(f"[{_GROUP}]", "", text)
    if "," in key and "." in key:
        if key.rfind(",") > key.rfind("."):  # "1.234,5": points group, the comma is decimal
            key = key.replace(".", "").replace(",", ".")
        else:
            key = key.replace(",", "")
    elif key.count(".") > 1 and re.fullmatch(r"\d{1,3}(\.\d{3})+", key):
        key = key.replace(".", "")  # "1.234.567"
    elif re.fullmatch(r"\d+,\d{1,2}", key):
        key = key.replace(",", ".")  # "2,5": a decimal comma (a thousands comma has 3 digits)
    else:
        key = key.replace(",", "")
    if "." in key:
        key = key.rstrip("0").rstrip(".")
    return key


@lru_cache(maxsize=256)
def number_keys(text: str) -> frozenset[str]:
    """The ``number_key`` of every number and year range ``text`` writes (the range's two
    years are numbers too)."""
    keys = {number_key(m.group(0)) for m in NUMBER.finditer(text)}
    for _, first, last in ranges(text):
        keys.update((f"{first}-{last}", str(first), str(last)))
    return frozenset(keys)


#: The languages whose number words are read (those text2num's ``alpha2digit`` reads).
NUMBER_WORD_LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl", "da")


@lru_cache(maxsize=256)
def worded_number_keys(text: str) -> frozenset[str]:
    """The ``number_key`` of every number ``text`` writes in words, in any language of
    ``NUMBER_WORD_LANGUAGES`` ("he waited twenty years" and "cela faisait vingt ans" give "20",
    "fifteen hundred dollars" "1500"); words below ten stay words ("one of them"). From
    text2num's ``alpha2digit`` (allo-media/text2num), run once per language over the text;
    numbers written in digits are left to ``number_keys``. The converted texts are read
    without ``number_keys``' cache (each is read once; they would push out the passages)."""
    keys: set[str] = set()
    for language in NUMBER_WORD_LANGUAGES:
        converted = alpha2digit(text, language)
        if converted != text:
            keys |= number_keys.__wrapped__(converted)
    return frozenset(keys - number_keys(text))


#: A table cell that is a number: a sign or "(", a currency, digits with separators, a "%".
NUMERIC_CELL = re.compile(r"[-+(]?[$€£¥₹]?\d[\d,.' ]*%?\)?")
#: A cell's value as an amount: a sign, a currency, digits, a scale ("$12.5M", "€3bn"), a "%".
_CELL_AMOUNT = re.compile(
    r"(?P<sign>[-+−])?\s?(?:[$€£¥₹]|CHF|USD|EUR)?\s?(?P<digits>\d[\d.,' ]*\d|\d)\s?"
    r"(?P<scale>[kKmMbB]|bn|mn|million|billion|thousand)?\s?%?",
)
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9,
           "bn": 1e9, "billion": 1e9}  # fmt: skip


def cell_amount(value: str) -> float | None:
    """A table cell's value as a number, its scale applied ("24,900" -> 24900.0, "3.5%" ->
    3.5, "−12" -> -12.0, "$12.5M" -> 12500000.0); None when the cell is not one amount."""
    m = _CELL_AMOUNT.fullmatch(value.strip())
    if m is None:
        return None
    try:
        number = float(number_key(m.group("digits").replace(" ", "")))
    except ValueError:
        return None
    number *= _SCALES.get((m.group("scale") or "").lower(), 1.0)
    return -number if m.group("sign") in ("-", "−") else number


#: A figure as a summary states it: digits with "," "." ":" "/" "-" inside (times, dates).
FIGURE = re.compile(r"\d[\d,.:/-]*\d|\d")


#: The counts one to ten in English words, and their values ("the three kinds of pizza").
COUNT_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10,
}  # fmt: skip
#: Words that give a count or an amount without digits ("none", "twice", "a dozen", "free").
FIGURE_WORDS = frozenset(
    {
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
        "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
        "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion",
        "billions", "dozen", "dozens", "half", "quarter", "once", "twice", "thrice", "none", "no",
        "nothing", "nobody", "single", "both", "all", "every", "each", "several", "few", "many",
        "couple", "free",
    }
)  # fmt: skip
