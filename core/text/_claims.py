"""The names and numbers a text states, and whether a text holds them: the words the grounding
check, the relation check, retrieval's names exemption and the two-step bridge compare.

A name is a capitalised word that does not open a sentence and is not a common word; a number is
a run of digits (with "," or "." inside). Both are compared case- and accent-folded.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import ftfy

from core.text._citations import CITATION
from core.text._dates import dates
from core.text._numbers import (
    DASHES,
    FIGURE_WORDS,
    MULTI_DIGIT_NUMBER,
    NUMBER,
    YEAR_RANGE,
    number_key,
    number_keys,
    worded_number_keys,
    year_range,
)
from core.text._sentences import SENTENCE_OR_LINE_GAP
from core.text._words import CALENDAR_WORDS, NOT_NAMES

WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
#: An e-mail address or a web address: a fact of its own, like a number (an answer gives one
#: for a name, so a passage must hold the two together).
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)[^\s<>\]\[()]+[\w/]")
_POSSESSIVE = re.compile(r"['’]s$")  # "Okafor's role": the name is "Okafor"


_DASH = re.compile(f"[{DASHES}]")
#: What UTF-8 read as Latin-1 or cp1252 leaves: a lead byte's character (U+00C2-U+00F4) before
#: a continuation byte's (U+0080-U+00BF, or cp1252's characters for 0x80-0x9F), or a lead
#: byte's before the blank its no-break space became ("Ã la": ftfy's restore_byte_a0).
_MAYBE_MOJIBAKE = re.compile(
    "[\xc2-\xf4][\x80-\xbf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6"
    "\u02dc\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u2030\u2039"
    "\u203a\u20ac\u2122]|[\xc2\xc3\xc5\xce\xd0\xd9] "
)


def repair(text: str) -> str:
    """``text`` with mojibake written as it was meant: UTF-8 read as cp1252 or Latin-1, once or
    more ("1991â€“92" -> "1991–92", "GÃ©nÃ©ral" -> "Général"), by ``ftfy.fix_encoding`` (which
    leaves text alone unless a re-decoding makes it plainly better); ASCII is returned as it is.
    Loaders' text goes through it before chunking (ingest/chunker.py), questions and answers
    when folded (:func:`fold`, on the grounding checks' path): text without a pair of
    characters mojibake is made of (``_MAYBE_MOJIBAKE``) is returned without calling ftfy (on
    the held-out chunks, the same output at 1/40 of the time)."""
    if text.isascii() or not _MAYBE_MOJIBAKE.search(text):
        return text
    return ftfy.fix_encoding(text)


def fold(text: str) -> str:
    """``text`` lower-cased, accents removed, mojibake repaired and every dash written "-"
    ("Café" -> "cafe", "1991â€“92" -> "1991-92")."""
    text = unicodedata.normalize("NFKD", _DASH.sub("-", repair(text)))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


#: A code of numbers joined by underscores ("cycle 2012_2", "run 14_03"): one identifier.
CODE = re.compile(r"(?<![\w.])\d+(?:_\d+)+(?!\w)")
#: A street address: a house number, a compass point, capitalised words and the street's kind
#: ("300 N MICHIGAN AVE", "221 Baker Street"): one identifier, not a number and some names.
STREET = re.compile(
    r"(?<![\w.])\d{1,5}[A-Z]? (?:[NSEW]\.? )?(?:[A-Z][\w'’.-]* ){1,3}"
    r"(?i:AVE|AVENUE|ST|STREET|RD|ROAD|BLVD|BOULEVARD|DR|DRIVE|LN|LANE|WAY|PL|PLACE|CT|COURT"
    r"|PKWY|PARKWAY|HWY|HIGHWAY|TER|TERRACE|SQ|SQUARE)\b\.?"
)


def _numbers(text: str, pattern: re.Pattern[str] = NUMBER) -> list[tuple[int, str]]:
    """(position, as written) of each number of ``text`` (as ``pattern`` finds them), a year
    range or season ("1991–92"), a code ("2012_2") and a street address ("300 N MICHIGAN AVE")
    each as one rather than as their numbers."""
    spans = [(m.start(), m.end()) for m in YEAR_RANGE.finditer(text) if year_range(m)]
    spans += [(m.start(), m.end()) for m in CODE.finditer(text)]
    spans += [(m.start(), m.end()) for m in STREET.finditer(text)]
    found = [(a, text[a:b].rstrip(".")) for a, b in spans]
    for m in pattern.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            found.append((m.start(), m.group(0).rstrip(".,")))
    return sorted(found)


def claims(answer: str) -> list[str]:
    """The names and numbers an answer states: numbers, and capitalised words that do not open
    a sentence and are not common words."""
    text = repair(CITATION.sub(" ", answer))
    found: list[str] = [n for _, n in _numbers(text)]
    for sentence in SENTENCE_OR_LINE_GAP.split(text):
        words = list(WORD.finditer(sentence))
        for i, m in enumerate(words):
            word = _POSSESSIVE.sub("", m.group(0)).strip("'’-")
            lowered = word.lower()
            if i == 0 or not word or not word[0].isupper() or lowered in NOT_NAMES:
                continue
            if lowered.rstrip(".") in CALENDAR_WORDS:
                continue
            found.append(word)
    seen: list[str] = []
    for item in found:
        if item and item not in seen:
            seen.append(item)
    return seen


def names_in(question: str) -> list[str]:
    """The names a question asks about (``claims`` without numbers): "What is Helen Okafor's
    role?" -> ["Helen", "Okafor"]."""
    return [c for c in claims(question) if not c[0].isdigit()]


def holds_all(names: Iterable[str], text: str) -> bool:
    """True when ``text`` holds every one of ``names`` as a whole word (case and accents folded;
    an underscore parts words, as in file names: "hornbach_23092016.jpg" holds "Hornbach");
    False for no names."""
    folded = fold(text)
    wanted = [fold(n) for n in names]
    return bool(wanted) and all(
        re.search(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])", folded) for w in wanted
    )


def holds_figure(text: str) -> bool:
    """True when ``text`` gives a figure: a digit, or a word (folded) of ``FIGURE_WORDS``
    ("twice", "none", "a dozen")."""
    return any(c.isdigit() for c in text) or bool(FIGURE_WORDS & set(WORD.findall(fold(text))))


def present(claim: str, haystack: str) -> bool:
    """True when ``claim`` is in the folded ``haystack``; a number also with its commas dropped,
    or written another way (``number_key``: "2,32,822" is "232822", "1.234,5" is "1234.5", the
    season "1991–92" is "1991-1992" and "1991/92"), or in words (``worded_number_keys``: "20"
    is in "twenty years" and in "vingt ans"), and a year in a date that writes it with two
    figures ("2017" is in "14-jul-17": ``dates``)."""
    folded = fold(claim)
    if folded in haystack:
        return True
    digits = folded.replace(",", "")
    if bool(digits) and digits in haystack.replace(",", ""):
        return True
    if not (NUMBER.fullmatch(folded) or YEAR_RANGE.fullmatch(folded)):
        return False
    key = number_key(folded)
    if key in number_keys(haystack) or key in worded_number_keys(haystack):
        return True
    return _YEAR.fullmatch(folded) is not None and any(
        day.year == int(folded) for _, day, _ in dates(haystack)
    )


#: A year a date may write with two figures.
_YEAR = re.compile(r"(?:19|20)\d\d")


#: A name of at least this many letters is the same name with one letter wrong.
MISSPELT_MIN = 8


def one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by exactly one letter changed, added or dropped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next(
        (k for k, (x, y) in enumerate(zip(short, long[: len(short)], strict=True)) if x != y),
        len(short),
    )
    return short[i:] == long[i + 1 :]


def present_misspelt(claim: str, haystack: str) -> bool:
    """True when ``claim``, one word of at least ``MISSPELT_MIN`` letters, is one edit from a
    word of the folded ``haystack``: the same name, one of the two misspelt ("Penitenciarul"
    asked, "Penetenciarul" in the procurement sheet: held-out dev h705)."""
    folded = fold(claim)
    if len(folded) < MISSPELT_MIN or not folded.isalpha():
        return False
    return any(one_edit(folded, w) for w in set(WORD.findall(haystack)))


def asked_numbers(question: str) -> list[str]:
    """The numbers a question asks about that any passage answering it must hold: runs of two or
    more digits standing alone ("in 2027", "sample W-09"), not ordinals or decades ("17th",
    "1700s") nor one-digit counts, which passages often write another way ("three layers").
    On SQuAD 2.0 dev (2,910 answerable questions) every such number is in the question's own
    paragraph."""
    text = repair(CITATION.sub(" ", question))
    return [n for _, n in _numbers(text, MULTI_DIGIT_NUMBER)]


#: A number joined by a hyphen to capitals on one side: a code ("W-09", "10-K", "COVID-19");
#: not a measure ("18-inch", "5-year").
_CODE = re.compile(r"(?<![\w-])(?:[A-Z][A-Za-z]*-\d+|\d+-[A-Z][A-Za-z]*)(?![\w-])")


def asked_codes(question: str) -> dict[str, str]:
    """The codes a question writes around its asked numbers (``asked_numbers``), number ->
    code: "10" -> "10-K" of "Form 10-K", "09" -> "W-09" of "sample W-09". A passage or a
    document's head holding the number alone does not hold the code ("10-Q" is not "10-K")."""
    text = repair(CITATION.sub(" ", question))
    numbers = set(asked_numbers(question))
    codes: dict[str, str] = {}
    for match in _CODE.finditer(text):
        number = next((p for p in match.group().split("-") if p.isdigit()), "")
        if number in numbers:
            codes.setdefault(number, match.group())
    return codes


def holds_code(code: str, haystack: str) -> bool:
    """True when the folded ``haystack`` writes ``code`` ("10-K") with a hyphen, a space or
    nothing between its parts ("10-k", "10 k", "10k")."""
    left, _, right = fold(code).partition("-")
    pattern = rf"(?<![\w]){re.escape(left)}[-\s]?{re.escape(right)}(?![\w])"
    return re.search(pattern, haystack) is not None
