"""OpenDocument text (.odt; odfpy): paragraphs and tables in order, sections by heading."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.archive import check_zip
from ingest.loaders.base import handles
from ingest.loaders.encryption import check_odf
from ingest.loaders.sections import SectionBuilder

_TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def _blocks(node: Any) -> Iterator[Any]:
    """Headings and paragraphs in document order (inside lists, tables and sections too)."""
    for child in node.childNodes:
        if getattr(child, "qname", None) in ((_TEXT_NS, "h"), (_TEXT_NS, "p")):
            yield child
        elif getattr(child, "childNodes", None):
            yield from _blocks(child)


@handles("odt", (".odt",))
class OdtLoader:
    """OpenDocument text files with the heading path of each section."""

    file_type = "odt"
    library = "odfpy"
    provenance = "heading path"

    def load(self, path: Path) -> list[Section]:
        """Sections under each heading."""
        check_zip(path, ".odt")
        check_odf(path, "OpenDocument text")
        from odf import teletype
        from odf.opendocument import load

        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):  # odfpy prints XML errors to stdout
                document = load(str(path))
        except Exception as exc:
            raise LoaderError(f"{path.name}: not a readable OpenDocument text ({exc})") from exc
        if getattr(document, "text", None) is None:
            why = (
                "content.xml is not valid XML" if "FAILED" in printed.getvalue() else "no text body"
            )
            raise LoaderError(f"{path.name}: not a readable OpenDocument text ({why})")
        builder = SectionBuilder()
        for block in _blocks(document.text):
            text = " ".join(teletype.extractText(block).split())
            if block.qname[1] == "h" and text:
                try:
                    level = int(block.getAttribute("outlinelevel") or 1)
                except (TypeError, ValueError):
                    level = 1
                builder.heading(level, text)
            else:
                builder.add(text)
        return builder.finish()
