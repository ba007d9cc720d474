"""Shared helpers of the benchmarks: text normalisation, edit distance, RSS."""

from __future__ import annotations

import re
from collections.abc import Sequence

_PUNCT = re.compile(r"[^\w\s']")


def normalise(text: str) -> str:
    """Lower case, punctuation dropped, whitespace collapsed."""
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


def edit_distance(a: Sequence[object], b: Sequence[object]) -> int:
    """Levenshtein distance between two sequences (words or characters)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def rss_bytes() -> int:
    """Resident set size of this process."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0
