"""PDF: one section per page with a text layer (pypdf); pages without one are rendered
(pypdfium2) and read by OCR, so a scanned PDF becomes searchable."""

from __future__ import annotations

import logging
from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import ContextLoader, handles
from ingest.loaders.encryption import needs_password
from ingest.loaders.hidden import record_hidden
from ingest.loaders.ocr_sections import line_sections
from ingest.loaders.pdf_hidden import drop_hidden_text
from ingest.loaders.pdf_tables import layout_with_tables

log = logging.getLogger(__name__)

#: Pages with fewer characters of text layer than this are treated as scanned.
MIN_TEXT_CHARS = 1


def _opens_without_password(reader: object) -> bool:
    """True when an encrypted PDF opens with the empty user password (owner-only protection,
    which every viewer opens without asking), whatever its cipher: RC4-40, RC4-128, AES-128,
    AES-256. A missing AES library (pypdf's ``DependencyError``) is raised, not taken for a
    password."""
    from pypdf.errors import DependencyError

    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except DependencyError:
        raise
    except Exception:  # an unsupported cipher, or a damaged encryption dictionary
        return False


def _letters(text: str) -> int:
    return sum(1 for c in text if not c.isspace())


def _page_text(page: object) -> tuple[str, int]:
    """The page's visible text layer (a page holding a table gets it row by row with its
    headers) and the count of characters (spaces aside) drawn invisibly and left out."""
    text = (page.extract_text() or "").strip()  # type: ignore[attr-defined]
    if not text:
        return text, 0
    hidden = 0
    if drop_hidden_text(page):
        visible = (page.extract_text() or "").strip()  # type: ignore[attr-defined]
        hidden = max(0, _letters(text) - _letters(visible))
        text = visible
        if not text:
            return text, hidden
    return _layout_text(page, text), hidden


def _layout_text(page: object, text: str) -> str:
    try:
        layout = page.extract_text(extraction_mode="layout")  # type: ignore[attr-defined]
    except Exception:  # layout mode is newer and stricter; the plain text stands
        log.debug("layout extraction failed", exc_info=True)
        return text
    return layout_with_tables(layout or "") or text


@handles("pdf", (".pdf",))
class PdfLoader(ContextLoader):
    """PDF pages with their page numbers (1-based); scanned pages through OCR."""

    file_type = "pdf"
    provenance = "page"

    @property
    def library(self) -> str:
        """pypdf, and the OCR that reads scanned pages (its languages: the image line's)."""
        return "pypdf; pages without a text layer: rapidocr, as for images"

    def load(self, path: Path) -> list[Section]:
        """One section per page that has text; OCR blocks (with boxes in points) for the rest."""
        from pypdf import PdfReader
        from pypdf.errors import DependencyError, PdfReadError

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = PdfReader(str(path), strict=False)
            if reader.is_encrypted and not _opens_without_password(reader):
                raise needs_password(path, "a PDF that asks for a password to open")
            read = [_page_text(page) for page in reader.pages]
        except LoaderError:
            raise
        except DependencyError as exc:  # AES without the cryptography package
            raise LoaderError(
                f"{path.name}: the PDF is AES-encrypted and cannot be read here: it needs the "
                f"Python package 'cryptography', which is not installed ({exc})"
            ) from exc
        except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
            raise LoaderError(f"{path.name}: not a readable PDF ({exc})") from exc
        texts = [text for text, _ in read]
        hidden = sum(n for _, n in read)
        if hidden:
            log.info("%s: %d characters of invisible text left out", path.name, hidden)
        scanned = [i for i, text in enumerate(texts) if len(text) < MIN_TEXT_CHARS]
        ocr = self._ocr_pages(path, scanned) if scanned else {}
        sections: list[Section] = []
        for i, text in enumerate(texts):
            if i in ocr:
                sections.extend(ocr[i])
            elif text:
                sections.append(Section(text, {"page": i + 1}))
        return record_hidden(sections, hidden)

    def _ocr_pages(self, path: Path, indexes: list[int]) -> dict[int, list[Section]]:
        """Render the given pages (0-based) and read them by OCR."""
        import pypdfium2 as pdfium

        ctx = self.context
        scale = ctx.settings.ocr.pdf_dpi / 72.0
        words = max(16, ctx.settings.chunking.chunk_tokens // 2)
        out: dict[int, list[Section]] = {}
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            raise LoaderError(f"{path.name}: PDF pages could not be rendered ({exc})") from exc
        try:
            for i in indexes:
                try:
                    image = doc[i].render(scale=scale).to_pil()
                except pdfium.PdfiumError as exc:
                    log.warning("a PDF page (%d) could not be rendered for OCR", i + 1)
                    log.debug("render failure", exc_info=exc)
                    continue
                lines = ctx.ocr.read(image)
                out[i] = line_sections(lines, i + 1, words, scale=scale, ocr=True)
        finally:
            doc.close()
        return out
