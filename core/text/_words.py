"""Word lists and stemming: the function words each reader leaves out, and English stems.

The lists differ on purpose (each is tuned to its reader: merging them changes verdicts), so
each is named for what it is for; all are lower case."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import Any

#: Capitalised words that open sentences or are function words: never a name (claims).
NOT_NAMES = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "if", "in", "on", "at", "by", "for", "of", "to",
        "from", "with", "as", "is", "was", "were", "are", "be", "it", "its", "this", "that",
        "these", "those", "he", "she", "they", "we", "you", "i", "his", "her", "their", "our",
        "according", "yes", "no", "there", "however", "also", "after", "before", "during", "when",
        "where", "who", "what", "which", "why", "how", "source", "sources", "answer", "question",
        "note", "based",
    }
)  # fmt: skip

#: Clock and calendar words: an English answer states them about a passage that may write them in
#: another script ("9 AM to 8 PM, closed Monday" for 上午9时至下午8时，周一闭馆); not names.
CALENDAR_WORDS = frozenset(
    {
        "am", "pm", "a.m", "p.m", "monday", "tuesday", "wednesday", "thursday", "friday",
        "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
        "august", "september", "october", "november", "december",
    }
)  # fmt: skip

#: Function words left out of a text's content words (the injection check's overlap).
STOP_WORDS = frozenset(
    {
        "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "by", "at", "from",
        "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those",
        "what", "which", "who", "whom", "how", "why", "when", "where", "can", "could", "may",
        "might", "do", "does", "did", "much", "many", "any", "all", "per", "as", "if", "not", "no",
        "yes", "i", "you", "we", "they", "he", "she", "them", "our", "your", "their",
    }
)  # fmt: skip

#: Function words left out of the words around a number (the number-binding check).
NUMBER_CONTEXT_STOP_WORDS = frozenset(
    {
        "the", "a", "an", "of", "in", "on", "at", "to", "for", "and", "or", "was", "is", "are",
        "were", "be", "by", "with", "from", "as", "it", "its", "this", "that", "what", "which",
        "who", "how", "many", "much", "did", "does", "do", "has", "have", "had", "there", "their",
    }
)  # fmt: skip

#: Units, currencies and scale words, as ``stem`` gives them: they say what a number measures,
#: not what it belongs to, so they bind no number to a thing ("14.2 g/dL" is hemoglobin's, not
#: vitamin D's, though both are in g/dL).
UNIT_WORDS = frozenset(
    {
        "percent", "per", "cent", "pct", "mg", "dl", "ml", "kg", "km", "cm", "mm", "nm", "lb",
        "lbs", "oz", "ft", "inch", "yard", "mile", "mph", "kmh", "meter", "metr", "kilomet",
        "gram", "kilogram", "kilometr", "litr", "liter", "percentag", "mmol", "mol", "iu", "ng",
        "pg", "mcg", "µg", "μg", "µl", "μl", "ul", "mmhg", "bpm", "kcal", "cal", "kwh", "kw", "mw",
        "gw", "hz", "khz", "mhz", "ghz", "kb", "mb", "gb", "tb", "usd", "us", "chf", "eur", "gbp",
        "jpi", "jpy", "inr", "rs", "dollar", "franc", "euro", "pound", "rupe", "million",
        "billion", "thousand", "mn", "bn", "mio", "mrd", "crore", "lakh",
    }
)  # fmt: skip

_LOCAL = threading.local()


def _stemmer() -> Any:
    """This thread's English Snowball stemmer (a stemmer keeps state while it stems)."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return stemmer


def stem(word: str) -> str:
    """The English Snowball stem of one lower-case word ("founded" -> "found")."""
    return str(_stemmer().stemWord(word))


def stems(words: Iterable[str]) -> list[str]:
    """The English Snowball stems of ``words``, in order."""
    return [str(s) for s in _stemmer().stemWords(list(words))]


#: Abbreviations forms and letters write before a figure, and the words a question uses for
#: them: "Bill No. 3139", "Nr. 12", "Tel. 059/987 6540" (a question asks for "the bill number",
#: "the phone number").
ABBREVIATIONS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(?:no|nr|nº|num)\.?\s*#?(?=\d)", re.IGNORECASE), ("number",)),
    (re.compile(r"\b(?:tel|ph)\.?\s*[:.]?\s*(?=[+(\d])", re.IGNORECASE), ("telephone", "phone")),
)


def spelled_out(text: str) -> list[str]:
    """The words ``text``'s abbreviations before a figure stand for (``ABBREVIATIONS``):
    "Bill no. 3139" -> ["number"]; empty when it writes none."""
    return [word for pattern, words in ABBREVIATIONS if pattern.search(text) for word in words]
