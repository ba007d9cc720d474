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


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
#: Fills that paint nothing (what lies under them shows) and fills that are white.
_CLEAR = {"", "AUTO", "NONE"}
_WHITE_FILLS = {"FFFFFF", "WHITE"}
#: Where a run's background is written, innermost first: the run's shading and highlight, its
#: paragraph's shading, its cell's, its table's (``w:tblPr``), the document's background.
_SHADING_PATHS = {
    f"{_W}r": (f"{_W}rPr/{_W}shd", f"{_W}rPr/{_W}highlight"),
    f"{_W}p": (f"{_W}pPr/{_W}shd",),
    f"{_W}tc": (f"{_W}tcPr/{_W}shd",),
    f"{_W}tbl": (f"{_W}tblPr/{_W}shd",),
    f"{_W}document": (f"{_W}background",),
}


def _on_colour(element: Any) -> bool:
    """True when the innermost background written around a WordprocessingML element (a run's
    ``w:r``) is a colour other than white: white text on a shaded cell or paragraph (a table's
    header row, a banner) is what a reader sees. Table styles' shading is not read."""
    for node in (element, *element.iterancestors()):
        for path in _SHADING_PATHS.get(node.tag, ()):
            for found in node.findall(path):
                fill = (_fill(found) or "").strip().upper()
                if fill not in _CLEAR:  # "auto" shading lets the cell's colour show
                    return fill not in _WHITE_FILLS
    return False


def _fill(element: Any) -> str | None:
    """The colour a shading (``w:shd``: its fill, or its pattern colour when solid), highlight
    (``w:val``) or background (``w:color``) paints; None when it names none."""
    val = element.get(f"{_W}val")
    if element.tag == f"{_W}highlight":
        name = val
    elif element.tag == f"{_W}shd" and val != "solid":
        name = element.get(f"{_W}fill")
    else:
        name = element.get(f"{_W}color")
    return None if name is None else str(name)


def run_hidden(run: Any) -> bool:
    """True for a python-docx run a reader cannot see: vanish, <= 2 pt, white colour unless on
    a coloured background (the run's, its paragraph's, cell's or table's shading, the page's)."""
    font = run.font
    if font.hidden:
        return True
    if font.size is not None and font.size.pt <= TINY_PT:
        return True
    try:
        rgb = font.color.rgb if font.color is not None and font.color.type is not None else None
    except (AttributeError, ValueError):
        rgb = None
    return rgb is not None and str(rgb).upper() == "FFFFFF" and not _on_colour(run._r)


def record_hidden(sections: list[Section], hidden_chars: int) -> list[Section]:
    """Note in the first section's provenance how much hidden text was left out."""
    if hidden_chars and sections:
        sections[0].provenance["hidden_chars"] = hidden_chars
    return sections
