"""Citations in place: a chunk's view per kind, its page as PNG (marked or not), the original.

Every file is reached through its catalogue row (``core.catalogue``) and checked against the
size and sha256 recorded at ingest (``original.Originals``); a view whose file is gone or changed
still shows the passage as text and says why (``original.ok`` false, with ``status`` and
``reason``), while the page and the original themselves answer 410 / 409.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import catalogue
from core.db.models import Chunk, Document
from core.db.session import Database
from core.errors import HearthError, NotFoundError
from core.settings import HearthSettings
from service.viewer import pages, views
from service.viewer.errors import OriginalChangedError, OriginalGoneError
from service.viewer.marks import Marks, recorded_marks, text_marks
from service.viewer.original import Original, Originals

MIB = 1024 * 1024


@dataclass
class PagePlace:
    """Where a chunk sits on its page: the page (1-based), the document's page count, the
    page's size in page units (points for PDF, pixels for images) and the marks."""

    page: int
    pages: int
    width: float
    height: float
    marks: Marks


class Viewer:
    """Views of chunks and renders of pages for one catalogue (thread-safe); reads the catalogue
    only, so `hearth show` runs beside a server."""

    def __init__(self, db: Database, settings: HearthSettings) -> None:
        self.db = db
        self.settings = settings
        self.scale = settings.viewer.scale
        self.max_pixels = settings.ocr.max_pixels
        self.originals = Originals()
        self.cache = pages.PageCache(settings.data_dir / "viewer", settings.viewer.cache_mib * MIB)

    # -- catalogue -----------------------------------------------------------------------

    def chunk(self, chunk_id: int) -> tuple[Chunk, Document]:
        """A chunk and its document; ``NotFoundError`` when the catalogue has no such chunk."""
        with self.db.session() as s:
            found = catalogue.chunks_with_documents(s, [chunk_id]).get(chunk_id)
            if found is None:
                raise NotFoundError(f"chunk {chunk_id} does not exist", field="id")
            return found

    def document(self, document_id: int) -> Document:
        """A document; ``NotFoundError`` when there is none with that id."""
        with self.db.session() as s:
            doc = catalogue.document_by_id(s, document_id)
        if doc is None:
            raise NotFoundError(f"document {document_id} does not exist", field="id")
        return doc

    def _chunks(self, document_id: int) -> list[Chunk]:
        with self.db.session() as s:
            return catalogue.chunks_of(s, document_id)

    # -- files ---------------------------------------------------------------------------

    def original(self, document_id: int) -> Original:
        """The document's file, checked unchanged (410 gone, 409 changed)."""
        return self.originals.check(self.document(document_id))

    def page_count(self, doc: Document, original: Original) -> int:
        """Pages of a PDF or frames of an image file."""
        if doc.file_type == "pdf":
            return pages.pdf_page_count(original.path)
        return len(pages.image_frames(original.path, self.max_pixels))

    def page_png(
        self, document_id: int, page: int, scale: float | None = None, chunk_id: int | None = None
    ) -> bytes:
        """Page ``page`` (1-based) of a PDF (at ``scale`` pixels per point, the setting by
        default) or an image file (its own pixels) as PNG, cached per document version; with
        ``chunk_id``, that chunk's marks drawn on it. 404 past the last page or for another
        kind of file; 409/410 when the file changed or went."""
        doc = self.document(document_id)
        if doc.file_type not in ("pdf", "image"):
            raise NotFoundError(
                f"{Path(doc.path).name} has no pages to render (a {doc.file_type} file)",
                field="id",
            )
        original = self.originals.check(doc)
        is_pdf = doc.file_type == "pdf"
        scale = (scale or self.scale) if is_pdf else 1.0
        sha = doc.sha256 or "unknown"
        data = self.cache.get(sha, page, scale)
        if data is None:
            if is_pdf:
                data = pages.render_pdf_page(original.path, page, scale)
            else:
                data = pages.render_image_page(original.path, page, self.max_pixels)
            self.cache.put(sha, page, scale, data)
        if chunk_id is None:
            return data
        chunk, owner = self.chunk(chunk_id)
        if owner.id != doc.id:
            raise NotFoundError(
                f"chunk {chunk_id} is not part of document {document_id}", field="chunk"
            )
        place = self.place(chunk, doc, original)
        if place is None or place.page != page:
            return data
        return pages.draw_marks(data, place.marks.rects, scale)

    def place(self, chunk: Chunk, doc: Document, original: Original) -> PagePlace | None:
        """The page and marks of a PDF or image chunk (None for other kinds). Boxes recorded
        at ingest (OCR) are used as they are; a text page's are found from its characters."""
        prov = dict(chunk.provenance or {})
        page = int(prov.get("page", 1) or 1)
        if doc.file_type == "pdf":
            recorded = prov.get("ocr") or "lines" in prov or "box" in prov
            with pages.open_pdf(original.path) as pdf:
                pages.check_page(original.filename, page, len(pdf))
                if recorded:
                    width, height = pdf[page - 1].get_size()
                    marks = recorded_marks(prov)
                else:
                    marks, width, height = text_marks(pdf[page - 1], chunk.text)
                return PagePlace(page, len(pdf), float(width), float(height), marks)
        if doc.file_type == "image":
            frames = pages.image_frames(original.path, self.max_pixels)
            pages.check_page(original.filename, page, len(frames))
            w, h = frames[page - 1].size
            return PagePlace(page, len(frames), float(w), float(h), recorded_marks(prov))
        return None

    # -- views ---------------------------------------------------------------------------

    def view(self, chunk_id: int) -> dict[str, Any]:
        """What the UI shows for one citation (see ``views``): kind, passage, where it is, and
        per kind the page URL with marks, the time range, the table rows or the text around
        it. Never fails for a file that changed or went: the passage is then shown as text."""
        chunk, doc = self.chunk(chunk_id)
        out = views.base_view(chunk, doc)
        prov = out["provenance"]
        headers = views.message_headers(prov)
        if headers:
            out["message"] = headers
        kind = out["kind"]
        original: Original | None = None
        try:
            original = self.originals.check(doc)
            out["original"] = {"ok": True, "media_type": original.media_type}
        except (OriginalGoneError, OriginalChangedError, NotFoundError) as exc:
            status = 410 if isinstance(exc, OriginalGoneError) else 409
            if isinstance(exc, NotFoundError):
                status = 404
            out["original"] = {"ok": False, "status": status, "reason": exc.message}
        if kind in ("pdf", "image"):
            if original is None:
                kind = "text"
            else:
                try:
                    place = self.place(chunk, doc, original)
                except HearthError as exc:
                    place = None
                    out["original"] = {"ok": False, "status": 404, "reason": exc.message}
                if place is None:
                    kind = "text"
                else:
                    out["page"] = self._page_view(doc, chunk, place)
        if kind == "audio":
            out["audio"] = views.audio_view(chunk, self._chunks(doc.id))
            out["audio"]["media_url"] = out["original_url"] if original else None
        elif kind == "table":
            out["table"] = views.table_view(chunk)
        elif kind == "text":
            out["context"] = views.text_context(chunk, self._chunks(doc.id))
        out["kind"] = kind
        return out

    def _page_view(self, doc: Document, chunk: Chunk, place: PagePlace) -> dict[str, Any]:
        scale = self.scale if doc.file_type == "pdf" else 1.0
        return {
            "number": place.page,
            "pages": place.pages,
            "width": place.width,
            "height": place.height,
            "units": "pt" if doc.file_type == "pdf" else "px",
            "scale": scale,
            "image_url": f"/api/documents/{doc.id}/pages/{place.page}",
            "marked_url": f"/api/documents/{doc.id}/pages/{place.page}?chunk={chunk.id}",
            "page_url": f"/api/documents/{doc.id}/pages/{{n}}",
            "marks": place.marks.as_dict(place.width, place.height),
        }
