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
