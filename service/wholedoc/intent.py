"""A plain question that names a document and asks for a summary, a list of every X or a
comparison: which whole-document request it is (or None, for an ordinary top-k answer)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from service.wholedoc.service import WholeRequest

_SUMMARY = re.compile(
    r"\b(summari[sz]e|summary|sum up|overview of|gist of|tl;?dr)\b", re.IGNORECASE
)
_EVERY = re.compile(
    r"\b(?:list|find|show|give me|what are|which are)?\s*(?:every|all(?: the)?|each)\s+"
    r"(?P<what>[\w' -]+?)\s+(?:in|from|of|across|mentioned in|listed in)\b",
    re.IGNORECASE,
)
_COMPARE = re.compile(
    r"\b(compare|comparison|differences?|what changed|changes between|diff)\b", re.IGNORECASE
)


def _named(question: str, names: Iterable[str]) -> list[str]:
    """The document names (file names, or their stems of 4+ characters) the question holds, in
    the order they appear."""
    folded = question.lower()
    found: list[tuple[int, str]] = []
    for name in set(names):
        for form in dict.fromkeys((name, Path(name).stem)):
            if len(form) < 4:
                continue
            at = re.search(rf"(?<![\w.-]){re.escape(form.lower())}(?![\w-])", folded)
            if at:
                found.append((at.start(), name))
                break
    return [n for _, n in sorted(found)]


def wants_mode(question: str) -> bool:
    """True when a question asks for a summary, every X or a comparison at all (a cheap test
    before the library's names are looked at)."""
    return any(p.search(question) for p in (_SUMMARY, _EVERY, _COMPARE))


def detect(question: str, names: Iterable[str]) -> WholeRequest | None:
    """The whole-document request a question makes: it must name a document among ``names``
    (file names of the library) and ask for a comparison (two documents), every X, or a
    summary; None otherwise."""
    named = _named(question, names)
    if not named:
        return None
    if len(named) >= 2 and _COMPARE.search(question):
        return WholeRequest("compare", tuple(named[:2]))
    every = _EVERY.search(question)
    if every:
        return WholeRequest("extract", tuple(named), what=every.group("what").strip())
    if _SUMMARY.search(question):
        return WholeRequest("summarise", tuple(named))
    return None
