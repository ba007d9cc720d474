"""Pages as PNG: a PDF page rendered by pypdfium2, a photo's frame upright; cached on disk per
document version (its sha256) under ``DATA_DIR/viewer``, least recently used first out once the
cache is over ``viewer.cache_mib``."""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import LoaderError, NotFoundError

#: pdfium is not thread-safe: every call into it from the viewer goes through this lock.
PDFIUM_LOCK = threading.Lock()
#: zlib level for rendered PNGs (1: fastest; pages are large, flat images).
PNG_LEVEL = 1


class PageCache:
    """PNG files under one folder, keyed by document sha256, kind, page and scale, bounded in
    bytes (``limit`` 0 keeps nothing)."""

    def __init__(self, root: Path, limit: int) -> None:
        self.root = root
        self.limit = limit
        self._lock = threading.Lock()
        self._total: int | None = None

    def path(self, sha256: str, page: int, scale: float) -> Path:
        """Where a rendered page lives."""
        return self.root / sha256[:64] / f"p{page}-s{scale:g}.png"

    def get(self, sha256: str, page: int, scale: float) -> bytes | None:
        """A cached page (its access time refreshed), or None."""
        path = self.path(sha256, page, scale)
        try:
            data = path.read_bytes()
            os.utime(path)
        except OSError:
            return None
        return data

    def put(self, sha256: str, page: int, scale: float, data: bytes) -> None:
        """Keep a rendered page, then drop the least recently used ones while over the limit."""
        if self.limit <= 0 or len(data) > self.limit:
            return
        path = self.path(sha256, page, scale)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{threading.get_ident()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        with self._lock:
            if self._total is None:
                self._total = sum(size for _, size, _ in self._files())
            else:
                self._total += len(data)
            if self._total > self.limit:
                self._evict()

    def _files(self) -> list[tuple[Path, int, float]]:
        out = []
        for path in self.root.glob("*/*.png"):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((path, st.st_size, st.st_mtime))
        return out

    def _evict(self) -> None:
        files = sorted(self._files(), key=lambda f: f[2])
        total = sum(size for _, size, _ in files)
        for path, size, _ in files:
            if total <= self.limit * 0.8:
                break
            path.unlink(missing_ok=True)
            total -= size
            with contextlib.suppress(OSError):  # other pages of the document remain
                path.parent.rmdir()
        self._total = total


def png(image: Any) -> bytes:
    """A PIL image as PNG bytes; an RGB image without colour is written as greyscale (a text
    page: a third of the bytes and about half the encoding time)."""
    if image.mode == "RGB" and is_grey(image):
        image = image.convert("L")
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=PNG_LEVEL)
    return out.getvalue()


def is_grey(image: Any) -> bool:
    """True when every pixel of an RGB image has equal red, green and blue."""
    from PIL import ImageChops

    red, green, blue = image.split()
    return (
        ImageChops.difference(red, green).getbbox() is None
        and ImageChops.difference(green, blue).getbbox() is None
    )


@contextlib.contextmanager
def open_pdf(path: Path) -> Iterator[Any]:
    """A pypdfium2 document, opened and closed under ``PDFIUM_LOCK``; ``LoaderError`` naming
    the file when pdfium cannot open it."""
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            raise LoaderError(f"{path.name}: the PDF cannot be opened ({exc})") from exc
        try:
            yield doc
        finally:
            doc.close()


def pdf_page_count(path: Path) -> int:
    """Pages in a PDF."""
    with open_pdf(path) as doc:
        return len(doc)


def check_page(name: str, page: int, pages: int) -> int:
    """``page`` (1-based) when the document has it; else ``NotFoundError`` naming the count."""
    if page < 1 or page > pages:
        raise NotFoundError(
            f"{name} has no page {page} (it has {pages} page{'s' if pages != 1 else ''})",
            field="page",
        )
    return page


def render_pdf_page(path: Path, page: int, scale: float) -> bytes:
    """Page ``page`` (1-based) of a PDF as PNG at ``scale`` pixels per point."""
    import pypdfium2 as pdfium

    with open_pdf(path) as doc:
        check_page(path.name, page, len(doc))
        try:
            image = doc[page - 1].render(scale=scale).to_pil()
        except pdfium.PdfiumError as exc:
            raise LoaderError(f"{path.name}: page {page} cannot be rendered ({exc})") from exc
    return png(image.convert("RGB"))


def image_frames(path: Path, max_pixels: int) -> list[Any]:
    """The upright frames of an image file, as the image loader read them for OCR."""
    from ingest.loaders.image import open_pages

    return open_pages(path, max_pixels)


def render_image_page(path: Path, page: int, max_pixels: int) -> bytes:
    """Frame ``page`` (1-based) of an image file, upright, as PNG."""
    frames = image_frames(path, max_pixels)
    check_page(path.name, page, len(frames))
    frame = frames[page - 1]
    if frame.mode not in ("RGB", "RGBA", "L"):
        frame = frame.convert("RGBA" if "A" in frame.getbands() else "RGB")
    return png(frame)


def draw_marks(data: bytes, rects: list[list[float]], scale: float) -> bytes:
    """A PNG with the given rectangles (page units times ``scale`` = pixels) drawn on it: a
    translucent yellow fill and an orange outline."""
    from PIL import Image, ImageDraw

    base = Image.open(io.BytesIO(data)).convert("RGBA")
    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for x0, y0, x1, y1 in rects:
        box = [x0 * scale - 1, y0 * scale - 1, x1 * scale + 1, y1 * scale + 1]
        draw.rectangle(box, fill=(255, 221, 0, 90), outline=(230, 110, 0, 255), width=2)
    return png(Image.alpha_composite(base, layer).convert("RGB"))
