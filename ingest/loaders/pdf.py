"""PDF with a text layer: one section per page (pypdf)."""

from __future__ import annotations

import logging
from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import register

log = logging.getLogger(__name__)


@register("pdf", (".pdf",))
class PdfLoader:
    """PDF pages with their page numbers (1-based)."""

    file_type = "pdf"
    library = "pypdf"
    provenance = "page"

    def load(self, path: Path) -> list[Section]:
        """One section per page that has text."""
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = PdfReader(str(path), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                raise LoaderError(f"{path.name}: PDF is encrypted with a password")
            sections = []
            for number, page in enumerate(reader.pages, start=1):
                text = (page.extract_text() or "").strip()
                if text:
                    sections.append(Section(text, {"page": number}))
            return sections
        except LoaderError:
            raise
        except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
            raise LoaderError(f"{path.name}: not a readable PDF ({exc})") from exc
