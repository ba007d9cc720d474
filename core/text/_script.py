"""Writing systems: how much of a text is in Latin script, the only one the bundled embedder
(all-MiniLM-L6-v2, English) and the name checks read."""

from __future__ import annotations

import re

#: One Latin letter: ASCII, Latin-1, Latin Extended-A/B and Latin Extended Additional.
LATIN = re.compile(r"[A-Za-z\u00C0-\u024F\u1E00-\u1EFF]")
_LETTER = re.compile(r"[^\W\d_]")


def latin_share(text: str) -> float:
    """Share (0-1) of the letters of ``text`` that are Latin (1.0 for no letters)."""
    letters = _LETTER.findall(text)
    if not letters:
        return 1.0
    return sum(bool(LATIN.match(c)) for c in letters) / len(letters)
