"""EPUB e-books (ebooklib): chapters in reading order, each read with the HTML loader's code."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.archive import check_zip
from ingest.loaders.base import handles
from ingest.loaders.encryption import check_epub
from ingest.loaders.html import html_sections


def _toc_titles(entries: Any, out: dict[str, str]) -> dict[str, str]:
    """Chapter file (without #fragment) -> its first title in the table of contents."""
    for entry in entries or ():
        if isinstance(entry, tuple | list) and len(entry) == 2:
            section, children = entry
            _toc_titles([section], out)
            _toc_titles(children, out)
            continue
        href = getattr(entry, "href", None)
        title = getattr(entry, "title", None)
        if href and title:
            out.setdefault(posixpath.normpath(href.split("#", 1)[0]), " ".join(title.split()))
    return out


@handles("epub", (".epub",))
class EpubLoader:
    """Chapters of an e-book, titled from its table of contents (or the chapter's heading)."""

    file_type = "epub"
    library = "ebooklib + BeautifulSoup"
    provenance = "chapter (title), heading path inside it"

    def load(self, path: Path) -> list[Section]:
        """Sections of every chapter in spine order, each with its chapter title."""
        check_zip(path, ".epub")
        check_epub(path)
        import ebooklib
        from ebooklib import epub

        try:
            book = epub.read_epub(str(path), options={"ignore_ncx": False})
        except Exception as exc:
            raise LoaderError(f"{path.name}: not a readable EPUB ({exc})") from exc
        titles = _toc_titles(book.toc, {})
        sections: list[Section] = []
        for number, (idref, _linear) in enumerate(book.spine, start=1):
            item = book.get_item_with_id(idref)
            if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
                continue
            if isinstance(item, epub.EpubNav):
                continue
            html = item.get_content().decode("utf-8", "replace")
            parts = html_sections(html)
            if not parts:
                continue
            name = posixpath.normpath(item.get_name())
            title = titles.get(name) or titles.get(posixpath.basename(name))
            if not title:
                heading = str(parts[0].provenance.get("heading", ""))
                title = heading.split(" > ")[0] or f"chapter {number}"
            for part in parts:
                sections.append(Section(part.text, {"chapter": title, **part.provenance}))
        return sections
