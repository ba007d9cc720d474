"""Images (png, jpg, tiff, webp, bmp): OCR lines grouped into sections with page and box.

Every frame of a multi-page TIFF is a page. Images larger than ``OcrSettings.max_pixels`` are
refused; ones whose longer side exceeds ``OcrSettings.max_side`` are scaled down for OCR (boxes stay
in the original pixels). An image without text gives no sections (recorded as empty).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import ContextLoader, LoaderContext, handles
from ingest.loaders.ocr_sections import line_sections

if TYPE_CHECKING:
    from PIL.Image import Image

#: Most frames of one image file read as pages.
MAX_PAGES = 500


def words_per_section(context: LoaderContext) -> int:
    """Words in a block so that it fits one chunk."""
    return max(16, context.settings.chunking.chunk_tokens // 2)


def open_pages(path: Path, max_pixels: int) -> list[Image]:
    """The frames of an image file, upright (EXIF orientation applied), fully decoded."""
    from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(path)
            w, h = img.size
            if w * h > max_pixels:
                raise LoaderError(
                    f"{path.name}: {w}x{h} pixels is over the {max_pixels} pixel limit "
                    "(setting ocr.max_pixels)"
                )
            pages = []
            for n, frame in enumerate(ImageSequence.Iterator(img)):
                if n >= MAX_PAGES:
                    break
                upright = ImageOps.exif_transpose(frame.copy())
                upright.load()
                pages.append(upright)
            return pages
    except LoaderError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow's own guard fired before the size was ours to check: say it in our terms.
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1))} pixels" if found else "its pixel count"
        raise LoaderError(
            f"{path.name}: {size} is over the pixel limit Hearth reads safely "
            f"(setting ocr.max_pixels, {max_pixels}, and Pillow's bomb guard); "
            "scale the image down and add it again"
        ) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as exc:
        raise LoaderError(f"{path.name}: not a readable image ({exc})") from exc


@handles("image", (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"))
class ImageLoader(ContextLoader):
    """Images read by OCR."""

    file_type = "image"

    @property
    def library(self) -> str:
        """The OCR engine, its bundled model and the languages it reads (``hearth formats``)."""
        from core.ocr import ocr_description

        return ocr_description()

    def load(self, path: Path) -> list[Section]:
        """Blocks of recognised lines, with page number (1-based) and boxes in pixels."""
        ctx = self.context
        sections: list[Section] = []
        for number, page in enumerate(open_pages(path, ctx.settings.ocr.max_pixels), start=1):
            lines = ctx.ocr.read(page)
            sections.extend(line_sections(lines, number, words_per_section(ctx)))
        return sections
