"""Footnote and reference markers ("[3]" linking to "#cite_note-3") dropped from web pages and
from Markdown converted from them, so they never read as citations of Hearth's own numbered
sources (or leak into answers as "drake [[ 3 ]](#cite_note-3)"). The text around them is kept
as it is; the notes themselves (a page's reference list) are chrome the HTML loader drops.
"""

from __future__ import annotations

import re
from typing import Any

#: Link targets of footnote/reference markers: MediaWiki, Pandoc, Python-Markdown, Docusaurus...
_TARGET = r"#(?:cite[_-]note|cite[_-]ref|fn|footnote|endnote|note|ref)[-_:.]?[^)\s\"']*"
#: What a marker reads: a number or letter in optional brackets, or a few standard words.
_LABEL = re.compile(
    r"^\[?\s*(?:\d{1,4}|[a-z]|note\s*\d{1,4}|nb\s*\d{1,4}|citation needed)\s*\]?$", re.I
)
_HREF = re.compile(_TARGET + "$", re.I)
_MARKER_CLASSES = {"reference", "footnote-ref", "footnote-reference", "mw-ref", "noteref"}

# Markdown forms, with any spaces before them: [[3]](#cite_note-3), [\[3\]](#cite_note-3),
# [[ 3 ]](#cite_note-3), [3](#fn3), <sup>[3](#cite_note-3)</sup>, and footnote references [^3].
_MD_LINK = re.compile(
    r"[ \t]*(?:<sup[^>]*>\s*)?\[\s*\\?\[?\s*[\w ]{1,20}?\s*\\?\]?\s*\]\(" + _TARGET + r"\)"
    r"(?:\s*</sup>)?",
    re.I,
)
_MD_FOOTNOTE_REF = re.compile(r"(?<!^)[ \t]*\[\^[^\]\s]{1,20}\](?!:)", re.M)


def is_marker(tag: Any) -> bool:
    """True for an HTML element that is a footnote/reference marker (a ``sup`` of class
    ``reference``, or a short bracketed number linking to a note on the same page)."""
    if tag.name not in ("sup", "a"):
        return False
    classes = set(tag.get("class") or [])
    if classes & _MARKER_CLASSES or (tag.get("role") == "doc-noteref"):
        return True
    link = tag if tag.name == "a" else tag.find("a", href=True)
    href = str(link.get("href") or "") if link is not None else ""
    label = tag.get_text("", strip=True)
    return bool(href and _HREF.match(href) and _LABEL.match(label))


def drop_html_markers(root: Any) -> int:
    """Remove every marker element below ``root`` (a BeautifulSoup tag); returns how many."""
    found = [t for t in root.find_all(["sup", "a"]) if is_marker(t)]
    for tag in found:
        if not vars(tag).get("_decomposed"):
            tag.decompose()
    return len(found)


def drop_markdown_markers(text: str) -> str:
    """Markdown with reference-marker links and footnote references removed; footnote
    definitions (``[^3]: text`` at a line start) and ordinary links are kept."""
    return _MD_FOOTNOTE_REF.sub("", _MD_LINK.sub("", text))
