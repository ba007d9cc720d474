"""Citation markers: the ``[n]`` an answer cites a numbered passage with."""

from __future__ import annotations

import re

#: One citation marker, its number (1 to 3 digits) in group 1.
CITATION = re.compile(r"\[(\d{1,3})\]")


def cited_numbers(answer: str) -> list[int]:
    """Source numbers cited in an answer, in first-cited order, without repeats."""
    seen: list[int] = []
    for m in CITATION.finditer(answer):
        n = int(m.group(1))
        if n not in seen:
            seen.append(n)
    return seen


#: Citation markers with the blank before them, one number or several ("[1]", " [2, 3]"): what
#: reading an answer aloud leaves out.
CITATION_RUN = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")


#: A citation the token limit cut before its bracket closed, at a reply's end ("... [3").
CUT_CITATION = re.compile(r"\s*\[\d{0,3}\s*$")
#: Citations joined into one group: "[1] and [2]", "[1], [2]", "[1]-[3]".
CITATION_GROUP = re.compile(r"\[\d{1,3}\](?:\s*(?:,|;|&|-|–|\band\b|\bor\b)\s*\[\d{1,3}\])+")
#: Words that point at a source, right before its citation: they say where the fact is written,
#: not that the fact is missing ("..., according to [1].", "as shown by [2]", "(see [1])").
POINTING = re.compile(
    r"(?:\baccording\s+to|\b(?:as\s+)?(?:stated|shown|noted|mentioned|described|given|reported"
    r"|listed|seen|found|cited|quoted|written|explained|detailed|indicated|specified|supported"
    r"|confirmed|provided|outlined|referenced|documented|presented|recorded)(?:\s+(?:in|by|from"
    r"|on|at))?|\b(?:see|cf\.?|per|consistent\s+with|based\s+on))\s*(?:\(\s*)?(?=\[\d)",
    re.IGNORECASE,
)


def grouped_citations(answer: str) -> str:
    """``answer`` with each group of citations as its first citation ("[1] and [2]" -> "[1]")."""
    return CITATION_GROUP.sub(lambda m: m.group()[: m.group().index("]") + 1], answer)
