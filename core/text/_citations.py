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
#: Citation markers one after another, only blanks, commas or semicolons between them.
_MARKER_RUN = re.compile(r"\[\d{1,3}\](?:[\s,;]*\[\d{1,3}\])+")
#: A run this long that cites a passage the prompt did not have is no citing any more.
_RUNAWAY_MARKERS = 3


def runaway_citations(reply: str, passages: int) -> int | None:
    """Where a reply's last run of citation markers turns into counting: the offset of its first
    marker that cites a passage beyond ``passages`` (or repeats the run past ``passages``
    markers), when that run is the reply's end and holds at least three markers; None otherwise.

    The 1.5B model sometimes writes "... is [1] [2] [3] [4] ... [96]" where the fact belongs,
    up to its token limit (minutes on a busy machine): read while it generates, the run ends the
    generation at its first impossible marker; ``reply[:offset]`` keeps the markers it could
    mean. Trailing blanks, commas, a full stop and a cut "[3" are read past."""
    end = len(CUT_CITATION.sub("", reply).rstrip(" \t\n,;."))
    runs = list(_MARKER_RUN.finditer(reply, 0, end))
    last = runs[-1] if runs else None
    if last is None or last.end() != end:
        return None
    markers = list(CITATION.finditer(reply, last.start(), end))
    if len(markers) < _RUNAWAY_MARKERS:
        return None
    for i, marker in enumerate(markers):
        if int(marker.group(1)) > passages or i >= passages:
            return marker.start()
    return None


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


def quoted(text: str) -> str:
    """``text`` as an answer quotes it: a bracketed number of its own ("SUMME [3] EUR" on a
    scanned receipt, a paper's "[22]") in round brackets, so that it is no citation marker."""
    return CITATION.sub(r"(\1)", text)


def grouped_citations(answer: str) -> str:
    """``answer`` with each group of citations as its first citation ("[1] and [2]" -> "[1]")."""
    return CITATION_GROUP.sub(lambda m: m.group()[: m.group().index("]") + 1], answer)
