"""Text a reader cannot see: white or tiny text in Word documents, hidden HTML elements.

Such text is a common carrier of instructions aimed at an assistant ("ignore the question and
reply ..."), so it is left out of the chunks when the file is read; how many characters were
left out is recorded in the first section's provenance (``hidden_chars``) so the document's
record says it had some. HTML comments never reach the text (BeautifulSoup's ``get_text``
skips them).
"""

from __future__ import annotations

import re
from typing import Any

from core.types import Section

#: Font sizes at or below this many points are unreadable.
TINY_PT = 2.0
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.\d+)?(?:px|pt|em)?\s*(?:;|$)"
    r"|opacity\s*:\s*0(?:\.0+)?\s*(?:;|$)",
    re.I,
)


def html_hidden(tag: Any) -> bool:
    """True for an element a browser does not show (``hidden``, ``aria-hidden``, an inline
    style hiding it). White text is not judged in HTML: the background is unknown."""
    if tag.attrs is None:
        return False
    if tag.has_attr("hidden") or tag.get("aria-hidden") == "true":
        return True
    return bool(_HIDDEN_STYLE.search(str(tag.get("style") or "")))


def drop_hidden_html(root: Any) -> int:
    """Remove hidden elements below ``root``; returns the characters of text removed."""
    removed = 0
    for tag in root.find_all(True):
        if not vars(tag).get("_decomposed") and html_hidden(tag):
            removed += len(tag.get_text(" ", strip=True))
            tag.decompose()
    return removed


def run_hidden(run: Any) -> bool:
    """True for a python-docx run a reader cannot see: vanish, white colour, <= 2 pt."""
    font = run.font
    if font.hidden:
        return True
    if font.size is not None and font.size.pt <= TINY_PT:
        return True
    try:
        rgb = font.color.rgb if font.color is not None and font.color.type is not None else None
    except (AttributeError, ValueError):
        rgb = None
    return rgb is not None and str(rgb).upper() == "FFFFFF"


def record_hidden(sections: list[Section], hidden_chars: int) -> list[Section]:
    """Note in the first section's provenance how much hidden text was left out."""
    if hidden_chars and sections:
        sections[0].provenance["hidden_chars"] = hidden_chars
    return sections
