"""OCR lines grouped into sections that keep their page, their union box and each line's box.

Shared by the image loader and the scanned-page path of the PDF loader.
"""

from __future__ import annotations

from statistics import median

from core.ocr import OcrLine
from core.types import Section
from ingest.loaders.ocr_tables import tabulate
from ingest.loaders.sections import word_runs

#: A vertical gap larger than this many median line heights starts a new block.
BLOCK_GAP = 1.0


def _scaled(box: tuple[int, int, int, int], scale: float) -> list[float]:
    if scale == 1.0:
        return [float(v) for v in box]
    return [round(v / scale, 1) for v in box]


def _union(boxes: list[list[float]]) -> list[float]:
    return [
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    ]


def line_sections(
    lines: list[OcrLine], page: int, max_words: int, scale: float = 1.0, **extra: object
) -> list[Section]:
    """Blocks of lines (cut at large vertical gaps or at ``max_words``) as sections, a table's
    rows written with their column names (``ocr_tables.tabulate``).

    Provenance: ``{"page", "box": union [x0, y0, x1, y1], "lines": [box, ...], **extra}``; boxes
    are divided by ``scale`` (e.g. rendered pixels per PDF point).
    """
    lines = tabulate(lines)
    if not lines:
        return []
    height = median(max(1, ln.box[3] - ln.box[1]) for ln in lines)
    sections: list[Section] = []
    for block in word_runs(
        lines, max_words, lambda block, line: line.box[1] - block[-1].box[3] > BLOCK_GAP * height
    ):
        boxes = [_scaled(ln.box, scale) for ln in block]
        prov = {"page": page, "box": _union(boxes), "lines": boxes, **extra}
        sections.append(Section("\n".join(ln.text for ln in block), prov))
    return sections
