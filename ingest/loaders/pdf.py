"""PDF: one section per page with a text layer (pypdf's text; a page holding a table gets it
from PDFium's drawn words with the table's rows and headers, see :mod:`pdf_tables`); pages
without one are rendered (pypdfium2) and read by OCR, so a scanned PDF becomes searchable."""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import ContextLoader, handles
from ingest.loaders.encryption import needs_password
from ingest.loaders.hidden import record_hidden
from ingest.loaders.hyphens import join_hyphenated, vocabulary
from ingest.loaders.ocr_sections import line_sections
from ingest.loaders.pdf_hidden import drop_hidden_text
from ingest.loaders.pdf_tables import DrawnWord, drawn_with_tables, layout_with_tables

log = logging.getLogger(__name__)

#: Pages with fewer characters of text layer than this are treated as scanned.
MIN_TEXT_CHARS = 1
#: A gap inside a run of characters wider than this share of their height splits it in two.
WORD_GAP = 0.5
#: A character turned more than this (radians) is not upright (a column's label set sideways).
ROTATED = 0.1


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


def page_text(page: object, drawn: list[DrawnWord] | None) -> tuple[str, int]:
    """The page's visible text layer (a page holding a table gets it row by row with its
    headers, found from ``drawn``, PDFium's text rectangles, when the page hides no text) and
    the count of characters (spaces aside) drawn invisibly and left out."""
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
    if drawn is not None and not hidden:
        return drawn_with_tables(drawn) or text, hidden
    return _layout_text(page, text), hidden


def _layout_text(page: object, text: str) -> str:
    try:
        layout = page.extract_text(extraction_mode="layout")  # type: ignore[attr-defined]
    except Exception:  # layout mode is newer and stricter; the plain text stands
        log.debug("layout extraction failed", exc_info=True)
        return text
    return layout_with_tables(layout or "") or text


def drawn_words(path: Path, pages: int) -> list[list[DrawnWord] | None]:
    """Each page's words as PDFium draws them (a word's text, then left, bottom, right and top
    in points; words are split at the text's spaces, generated or written); None for every page
    when PDFium cannot open the file (pypdf's layout text is used instead)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return [None] * pages
    try:
        out: list[list[DrawnWord] | None] = []
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            try:
                out.append(_words(textpage))
            finally:  # a long book's pages are not held until the document closes
                textpage.close()
                page.close()
        return out + [None] * (pages - len(out))
    finally:
        pdf.close()


def _characters(textpage: Any, pdfium_c: Any) -> list[str]:
    """The page's characters, one per PDFium character index (its text as one string may
    hold fewer: a character outside the BMP is two of its indexes); a surrogate pair is one
    character at the first index and an empty one at the second, a lone surrogate a space."""
    codes = [pdfium_c.FPDFText_GetUnicode(textpage.raw, i) for i in range(textpage.count_chars())]
    chars: list[str] = []
    for i, code in enumerate(codes):
        if 0xDC00 <= code < 0xE000 and i and 0xD800 <= codes[i - 1] < 0xDC00:
            chars.append("")  # the pair's second half: written with the first
        elif 0xD800 <= code < 0xDC00 and i + 1 < len(codes) and 0xDC00 <= codes[i + 1] < 0xE000:
            chars.append(chr(0x10000 + ((code - 0xD800) << 10) + (codes[i + 1] - 0xDC00)))
        elif 0xD800 <= code < 0xE000:
            chars.append(" ")
        else:
            chars.append(chr(code))
    return chars


def _words(textpage: Any) -> list[DrawnWord]:
    import pypdfium2.raw as pdfium_c

    """A page's words with their boxes (each character's box from its font's advance and
    size): split at spaces and where a character stands more than ``WORD_GAP`` of its height
    from the one before (cells drawn without a space between them: "3" and "0" as "30"), or on
    another line (a hyphenated word's two halves; a raised footnote mark stays in its word).
    Characters turned sideways make words of their own, split at spaces only."""
    text = _characters(textpage, pdfium_c)
    words: list[DrawnWord] = []
    word = ""
    box = (0.0, 0.0, 0.0, 0.0)
    newline = False  # the text breaks the line before the word being read
    broken = False  # ... and before the next one
    upright = True  # the word being read is written upright
    for i, char in enumerate(text):
        if not char:
            continue
        if char.isspace():
            if word:
                words.append(DrawnWord(word, *box, newline, upright))
                word, newline = "", False
            broken = broken or char in "\r\n"
            continue
        left, bottom, right, top = textpage.get_charbox(i, loose=True)
        angle = pdfium_c.FPDFText_GetCharAngle(textpage.raw, i)
        straight = not ROTATED < angle < 2 * math.pi - ROTATED
        if char == "\ufffe":  # PDFium's mark of a word hyphenated at the end of a line
            char = "-"
        height = top - bottom
        moved = word and (right < box[0] or not box[1] <= (bottom + top) / 2 <= box[3])
        split = moved or left - box[2] > WORD_GAP * height
        if word and (straight != upright or (straight and split)):
            words.append(DrawnWord(word, *box, newline, upright))
            word, newline, broken = "", False, broken or bool(moved)
        if not word:
            word, box, newline, broken, upright = (
                char,
                (left, bottom, right, top),
                broken,
                False,
                straight,
            )
        else:
            word += char
            box = (min(box[0], left), min(box[1], bottom), max(box[2], right), max(box[3], top))
    if word:
        words.append(DrawnWord(word, *box, newline, upright))
    return words


@handles("pdf", (".pdf",))
class PdfLoader(ContextLoader):
    """PDF pages with their page numbers (1-based); scanned pages through OCR."""

    file_type = "pdf"
    provenance = "page"

    @property
    def library(self) -> str:
        """pypdf, PDFium for tables' word places, and the OCR that reads scanned pages (its
        languages: the image line's)."""
        return (
            "pypdf; tables: pypdfium2's word boxes; "
            "pages without a text layer: rapidocr, as for images"
        )

    def load(self, path: Path) -> list[Section]:
        """One section per page that has text; OCR blocks (with boxes in points) for the rest."""
        from pypdf import PdfReader
        from pypdf.errors import DependencyError, PdfReadError

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = PdfReader(str(path), strict=False)
            if reader.is_encrypted and not _opens_without_password(reader):
                raise needs_password(path, "a PDF that asks for a password to open")
            drawn = drawn_words(path, len(reader.pages))
            read = [page_text(page, segs) for page, segs in zip(reader.pages, drawn, strict=False)]
        except LoaderError:
            raise
        except DependencyError as exc:  # AES without the cryptography package
            raise LoaderError(
                f"{path.name}: the PDF is AES-encrypted and cannot be read here: it needs the "
                f"Python package 'cryptography', which is not installed ({exc})"
            ) from exc
        except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
            raise LoaderError(f"{path.name}: not a readable PDF ({exc})") from exc
        words = vocabulary(text for text, _ in read)
        texts = [join_hyphenated(text, words) for text, _ in read]
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
