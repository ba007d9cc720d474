"""The names and numbers a text states, and whether a text holds them: the words the grounding
check (grounding.py), the relation check (relations.py), retrieval's names exemption and the
two-step bridge (multihop.py) compare.

A name is a capitalised word that does not open a sentence and is not a common word; a number is
a run of digits (with "," or "." inside). Both are compared case- and accent-folded.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d|(?<![\w.])\d(?![\w])")
WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
CITE = re.compile(r"\[\d{1,3}\]")
_POSSESSIVE = re.compile(r"['’]s$")  # "Okafor's role": the name is "Okafor"
# Capitalised words that start sentences or are common function words are not names.
_COMMON = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "if",
    "in",
    "on",
    "at",
    "by",
    "for",
    "of",
    "to",
    "from",
    "with",
    "as",
    "is",
    "was",
    "were",
    "are",
    "be",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "he",
    "she",
    "they",
    "we",
    "you",
    "i",
    "his",
    "her",
    "their",
    "our",
    "according",
    "yes",
    "no",
    "there",
    "however",
    "also",
    "after",
    "before",
    "during",
    "when",
    "where",
    "who",
    "what",
    "which",
    "why",
    "how",
    "source",
    "sources",
    "answer",
    "question",
    "note",
    "based",
}
# Clock and calendar words: an English answer states them about a passage that may write them in
# another script ("9 AM to 8 PM, closed Monday" for 上午9时至下午8时，周一闭馆); not names.
_CALENDAR = {
    "am", "pm", "a.m", "p.m", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december",
}  # fmt: skip


def fold(text: str) -> str:
    """``text`` lower-cased, accents removed ("Café" -> "cafe")."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def claims(answer: str) -> list[str]:
    """The names and numbers an answer states: numbers, and capitalised words that do not open
    a sentence and are not common words."""
    text = CITE.sub(" ", answer)
    found: list[str] = [m.group(0).rstrip(".,") for m in NUMBER.finditer(text)]
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = list(WORD.finditer(sentence))
        for i, m in enumerate(words):
            word = _POSSESSIVE.sub("", m.group(0)).strip("'’-")
            lowered = word.lower()
            if i == 0 or not word or not word[0].isupper() or lowered in _COMMON:
                continue
            if lowered.rstrip(".") in _CALENDAR:
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
    """True when ``text`` holds every one of ``names`` as a whole word (case and accents folded);
    False for no names."""
    folded = fold(text)
    wanted = [fold(n) for n in names]
    return bool(wanted) and all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", folded) for w in wanted)


def present(claim: str, haystack: str) -> bool:
    """True when ``claim`` is in the folded ``haystack`` (a number also with its commas dropped)."""
    folded = fold(claim)
    if folded in haystack:
        return True
    digits = folded.replace(",", "")
    return bool(digits) and digits in haystack.replace(",", "")


def asked_numbers(question: str) -> list[str]:
    """The numbers a question asks about that any passage answering it must hold: runs of two or
    more digits standing alone ("in 2027", "sample W-09"), not ordinals or decades ("17th",
    "1700s") nor one-digit counts, which passages often write another way ("three layers").
    On SQuAD 2.0 dev (2,910 answerable questions) every such number is in the question's own
    paragraph."""
    text = CITE.sub(" ", question)
    return [m.group(0).rstrip(".,") for m in re.finditer(r"(?<![\w.])\d[\d,.]*\d(?![\w])", text)]
