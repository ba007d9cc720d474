"""Checks an answer against its sources: citations must name retrieved passages, and the names and
numbers the answer states must appear in the passages it cites.

Small local models invent names and numbers under RAG prompts (see NOTES.md); this catches the
common case cheaply. It is a heuristic, so a failing answer is flagged (and, by setting, replaced
by the cited passages), never silently dropped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from service.numbers import near_misses
from service.prompts import DONT_KNOW, cited_numbers

_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d|(?<![\w.])\d(?![\w])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_CITE = re.compile(r"\[\d{1,3}\]")
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


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def claims(answer: str) -> list[str]:
    """The names and numbers an answer states: numbers, and capitalised words that do not open
    a sentence and are not common words."""
    text = _CITE.sub(" ", answer)
    found: list[str] = [m.group(0).rstrip(".,") for m in _NUMBER.finditer(text)]
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = list(_WORD.finditer(sentence))
        for i, m in enumerate(words):
            word = m.group(0).strip("'’-")
            if i == 0 or not word or not word[0].isupper() or word.lower() in _COMMON:
                continue
            found.append(word)
    seen: list[str] = []
    for item in found:
        if item and item not in seen:
            seen.append(item)
    return seen


def _present(claim: str, haystack: str) -> bool:
    folded = _fold(claim)
    if folded in haystack:
        return True
    digits = folded.replace(",", "")
    return bool(digits) and digits in haystack.replace(",", "")


@dataclass
class Grounding:
    """The verdict on one answer."""

    cited: list[int]
    invalid_citations: list[int] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    declined: bool = False
    #: Numbers the cited passage holds but gives for something else (service/numbers.py).
    near_misses: list[str] = field(default_factory=list)

    @property
    def grounded(self) -> bool:
        """True when the answer declined, or cites passages and every claim is in them."""
        if self.declined:
            return True
        return (
            bool(self.cited)
            and not self.unsupported
            and not self.invalid_citations
            and not self.near_misses
        )

    def as_dict(self) -> dict[str, object]:
        """JSON-ready verdict."""
        return {
            "grounded": self.grounded,
            "cited": self.cited,
            "invalid_citations": self.invalid_citations,
            "unsupported": self.unsupported,
            "declined": self.declined,
            "near_misses": self.near_misses,
        }


def check(answer: str, passages: dict[int, str], question: str = "") -> Grounding:
    """Judge ``answer`` against the retrieved passages (number -> text); ``question`` sharpens
    the near-miss check of the answer's numbers."""
    numbers = cited_numbers(answer)
    valid = [n for n in numbers if n in passages]
    invalid = [n for n in numbers if n not in passages]
    if DONT_KNOW.lower().rstrip(".") in answer.lower() or not answer.strip():
        return Grounding(valid, invalid, [], declined=True)
    # Claims are checked against the cited passages; an uncited answer against all of them.
    pool = [passages[n] for n in valid] or list(passages.values())
    haystack = _fold(" ".join(pool))
    unsupported = [c for c in claims(answer) if not _present(c, haystack)]
    misses: list[str] = []
    for n in valid:
        misses += [m for m in near_misses(answer, passages[n], question) if m not in misses]
    return Grounding(valid, invalid, unsupported, near_misses=misses)


def strip_invalid(answer: str, invalid: list[int]) -> str:
    """The answer without citation markers that name no retrieved passage."""
    for n in invalid:
        answer = answer.replace(f"[{n}]", "")
    return re.sub(r"\s+([.,;:])", r"\1", answer).strip()
