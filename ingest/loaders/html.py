"""HTML: main content only (scripts, styles and navigation chrome dropped), sections by heading."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.hidden import drop_hidden_html, record_hidden
from ingest.loaders.refmarks import drop_html_markers
from ingest.loaders.sections import SectionBuilder
from ingest.loaders.tables import KEY_VALUE_HEADER, table_lines
from ingest.loaders.text import decode_text

_DROP_TAGS = (
    "script",
    "style",
    "noscript",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "template",
    "svg",
    "iframe",
    "button",
    "input",
    "select",
)
# Matched against each id and class token on its own.
_CHROME = re.compile(
    r"^(nav|navbar|navbox|navigation|navigation-not-searchable|menu|sidebar|footer|header|toc|"
    r"breadcrumbs?|cookie.*|banner|skip-link|mw-jump-link|mw-editsection|reflist|references|"
    r"catlinks|printfooter|sitenotice|noprint|mw-portlet.*|vector-menu.*|vector-toc.*|"
    r"vector-dropdown|vector-page-tool.*|site-header|site-footer)$",
    re.I,
)
_BLOCKS = ("p", "li", "pre", "blockquote", "td", "th", "dd", "dt", "figcaption", "caption")
#: An element naming who wrote the page, matched against its class and id (Mozilla
#: Readability's ``byline`` pattern, Readability.js ``REGEXPS.byline``), or marked
#: ``rel="author"`` / ``itemprop="author"``.
_BYLINE = re.compile(r"byline|author|dateline|writtenby|p-author", re.I)
#: A byline's characters at most (Readability.js ``_isValidByline``: under 100).
BYLINE_CHARS = 100
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _is_chrome(tag: Any) -> bool:
    if tag.get("role") in ("navigation", "banner", "contentinfo", "search"):
        return True
    tokens = [tag.get("id") or "", *(tag.get("class") or [])]
    return any(t and _CHROME.match(t) for t in tokens)


def html_sections(html: str) -> list[Section]:
    """Readable sections of an HTML page, each with its heading path."""
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        # XHTML (an SEC filing's .htm with an XML declaration) is read as HTML on purpose: its
        # tags are HTML's; bs4's advice to parse it as XML went to the ingest's terminal
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "lxml")
    root: Any = soup.find("main") or soup.find(role="main") or soup.find(id="content")
    root = root or soup.find("article") or soup.body or soup
    for tag in root(_DROP_TAGS):
        tag.decompose()
    drop_html_markers(root)
    hidden = drop_hidden_html(root)
    for tag in root.find_all(True):
        # ``tag.decomposed`` would search the tag's whole subtree (bs4 looks ``_decomposed`` up as
        # a child tag when unset): quadratic on deeply nested pages, so read the flag directly.
        if not vars(tag).get("_decomposed") and tag.attrs is not None and _is_chrome(tag):
            tag.decompose()
    builder = SectionBuilder()
    bylines = _bylines(root)
    names = {*_HEADINGS, *_BLOCKS, "table"}
    for el in root.find_all(lambda t: t.name in names or id(t) in bylines):
        if el.find_parent("table"):
            continue  # read with its table (a nested table: as the cell's text)
        if el.name == "table":
            for line in table_lines(_table_rows(el)):
                builder.add(line)
            continue
        if el.name in _BLOCKS and el.find_parent(_BLOCKS):
            continue  # nested block: its text is part of the outer one
        text = " ".join(el.get_text(" ", strip=True).split())
        if not text:
            continue
        if el.name in _HEADINGS:
            builder.heading(int(el.name[1]), text)
        else:
            builder.add(text)
    return record_hidden(builder.finish(), hidden)


def _bylines(root: Any) -> set[int]:
    """The ids (``id()``) of the elements of ``root`` that say who wrote the page (``_BYLINE``)
    and would be read by no block: a news page's "By Michael Hingston" sits in a ``div`` of
    its share bar, outside every paragraph (held-out batch 11 dev h1145 asked who wrote the
    article). The outermost of nested ones; none inside or holding a block or heading, none
    longer than ``BYLINE_CHARS``."""
    found: set[int] = set()
    for tag in root.find_all(True):
        if tag.name in _BLOCKS or tag.name in _HEADINGS or tag.name == "table":
            continue
        marks = [tag.get("id") or "", *(tag.get("class") or [])]
        if not (
            tag.get("rel") == ["author"]
            or "author" in str(tag.get("itemprop") or "")
            or any(m and _BYLINE.search(m) for m in marks)
        ):
            continue
        if tag.find_parent(_BLOCKS) or tag.find_parent(_HEADINGS) or tag.find(_BLOCKS):
            continue
        if tag.find(_HEADINGS) or any(id(p) in found for p in tag.parents):
            continue
        text = " ".join(tag.get_text(" ", strip=True).split())
        if 0 < len(text) < BYLINE_CHARS:
            found.add(id(tag))
    return found


def _table_rows(table: Any) -> list[list[str]]:
    """Cell texts per row of a table (not of tables nested in it); a ``colspan`` cell fills the
    columns it spans: with its text in the first row, with empty cells below it. A key-value
    table (every row of two or more cells a ``th`` then ``td`` cells, at least two such rows)
    gets the header row ``KEY_VALUE_HEADER`` above its first such row: its first row is no
    header ("Company type | Public" had named the columns of every row of Wikipedia's
    infobox: "Company type: ISIN | Public: US5949181045")."""
    rows: list[list[str]] = []
    keyed: list[bool | None] = []  # a th then td cells (None: a row of one cell)
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue
        cells: list[str] = []
        kinds = tr.find_all(["td", "th"], recursive=False)
        for cell in kinds:
            text = " ".join(cell.get_text(" ", strip=True).split())
            try:
                span = max(1, min(int(cell.get("colspan", 1)), 50))
            except (TypeError, ValueError):
                span = 1
            cells += [text] + [text if not rows else ""] * (span - 1)
        rows.append(cells)
        names = [c.name for c in kinds]
        keyed.append(
            None if len(names) < 2 else names[0] == "th" and all(n == "td" for n in names[1:])
        )
    if sum(k is True for k in keyed) >= 2 and False not in keyed:
        first = keyed.index(True)
        width = max(len(r) for r in rows)
        for i in range(first):  # a title cell spanning the table: its text once, not a header
            rows[i] = list(dict.fromkeys(c for c in rows[i] if c))
        field, value = KEY_VALUE_HEADER
        values = [f"{value} {i}" for i in range(1, width)] if width > 2 else [value]
        rows.insert(first, [field, *values])
    caption = table.find("caption")
    title = " ".join(caption.get_text(" ", strip=True).split()) if caption else ""
    return ([[title]] if title else []) + rows


@handles("html", (".html", ".htm", ".xhtml"))
class HtmlLoader:
    """HTML pages."""

    file_type = "html"
    library = "BeautifulSoup + lxml"
    provenance = "heading (path); chrome and scripts dropped"

    def load(self, path: Path) -> list[Section]:
        """Sections of the page's main content."""
        try:
            return html_sections(decode_text(path, path.read_bytes()))
        except RecursionError as exc:
            raise LoaderError(f"{path.name}: HTML is nested too deeply to read") from exc
