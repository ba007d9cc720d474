"""Where a passage sits on a page: rectangles to mark, in page units with the origin top-left.

For a PDF page with a text layer the passage's words are found among the page's characters
(pdfium's text page: one code point and one box per character) by aligning the two word
sequences (``difflib``); a table row written with its headers ("Office: Leeds | Start: 2019")
does not follow the page's order, so the passage's remaining words are then looked for near
the aligned ones. Matched characters on one line merge into one rectangle. OCR'd pages and
photos carry their line boxes in the chunk's provenance (``lines``; the union ``box`` when only
that was recorded), already top-left, in PDF points or image pixels.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

WORD = re.compile(r"\w+")
#: Aligned runs shorter than this are trusted only next to a longer run.
STRONG_RUN = 3
#: Page words around the aligned span searched for the passage's words left unaligned.
FILL_REACH = 40
#: Precision of pdfium's integer page-to-device mapping (device units per point).
_FINE = 20

Rect = list[float]  # [x0, y0, x1, y1], top-left origin


def words_of(text: str) -> list[str]:
    """The words of a text, NFKC-folded and case-folded (ligatures become letters)."""
    return [w.casefold() for w in WORD.findall(unicodedata.normalize("NFKC", text))]


@dataclass
class Marks:
    """The rectangles of a passage on a page and how many of its words were found there.

    ``rects`` in page units (PDF points, or image pixels), top-left origin; ``words`` the
    passage's distinct words, ``on_page`` those the page holds at all, ``marked`` those at
    least one mark covers; ``source`` is ``text`` (found in the text layer), ``ocr`` (the
    recorded boxes) or ``none``.
    """

    rects: list[Rect] = field(default_factory=list)
    words: int = 0
    on_page: int = 0
    marked: int = 0
    source: str = "none"
    #: Page words under a mark (over the passage's word count: how far marks overreach).
    page_marked: int = 0

    @property
    def coverage(self) -> float:
        """Share of the passage's words the page holds that a mark covers (1.0 when none)."""
        return self.marked / self.on_page if self.on_page else 1.0

    def as_dict(self, width: float, height: float) -> dict[str, Any]:
        """JSON form: rectangles also as fractions of the page (for an overlay at any zoom)."""
        return {
            "source": self.source,
            "rects": [[round(v, 2) for v in r] for r in self.rects],
            "fractions": [
                [
                    round(r[0] / width, 5),
                    round(r[1] / height, 5),
                    round(r[2] / width, 5),
                    round(r[3] / height, 5),
                ]
                for r in self.rects
            ]
            if width and height
            else [],
            "coverage": round(self.coverage, 4),
        }


def recorded_marks(provenance: dict[str, Any]) -> Marks:
    """The OCR line boxes a chunk recorded (``lines``, else ``box``) as marks."""
    lines = provenance.get("lines")
    boxes = lines if isinstance(lines, list) and lines else [provenance.get("box")]
    rects = [
        [float(v) for v in b]
        for b in boxes
        if isinstance(b, (list, tuple))
        and len(b) == 4
        and all(isinstance(v, (int, float)) for v in b)
    ]
    return Marks(rects=rects, source="ocr" if rects else "none")


@dataclass
class PageWords:
    """A page's words with the character index range each spans (``end`` exclusive)."""

    words: list[str]
    spans: list[tuple[int, int]]


def page_words(text: str) -> PageWords:
    """Words of a page's text whose i-th character is the page's i-th character."""
    words, spans = [], []
    for m in WORD.finditer(text):
        words.append(unicodedata.normalize("NFKC", m.group()).casefold())
        spans.append(m.span())
    return PageWords(words, spans)


def aligned_words(page: list[str], passage: list[str]) -> set[int]:
    """Indexes of page words matched to the passage: runs of the two sequences aligned by
    ``difflib`` (short runs only beside a long one), then any passage word not yet matched
    found within ``FILL_REACH`` words of the aligned span."""
    if not page or not passage:
        return set()
    blocks = [
        b
        for b in SequenceMatcher(None, page, passage, autojunk=False).get_matching_blocks()
        if b.size
    ]
    strong_size = min(STRONG_RUN, len(passage))
    strong = [b for b in blocks if b.size >= strong_size]
    if not strong:
        return set()
    lo = strong[0].a - STRONG_RUN
    hi = strong[-1].a + strong[-1].size + STRONG_RUN
    matched = {i for b in blocks if lo <= b.a < hi for i in range(b.a, b.a + b.size)}
    found = {page[i] for i in matched}
    missing = set(passage) - found
    if missing:
        start = max(0, min(matched) - FILL_REACH)
        stop = min(len(page), max(matched) + 1 + FILL_REACH)
        matched |= {i for i in range(start, stop) if page[i] in missing}
    return matched


def merge_lines(boxes: list[tuple[int, Rect]]) -> list[Rect]:
    """Character boxes (page-word index, rect), in page order, merged into one rectangle per
    run of consecutive words on one line."""
    rects: list[Rect] = []
    last_word = -2
    for word, (x0, y0, x1, y1) in boxes:
        if rects:
            r = rects[-1]
            overlap = min(r[3], y1) - max(r[1], y0)
            same_line = overlap > 0.5 * min(r[3] - r[1], y1 - y0) and x0 >= r[0] - 1
            if same_line and word - last_word <= 1:
                rects[-1] = [min(r[0], x0), min(r[1], y0), max(r[2], x1), max(r[3], y1)]
                last_word = word
                continue
        rects.append([x0, y0, x1, y1])
        last_word = word
    return rects


def text_marks(page: Any, passage: str) -> tuple[Marks, float, float]:
    """Marks of ``passage`` on a pypdfium2 page, and the page's width and height in points.

    Rectangles come from pdfium's loose character boxes, mapped to the rendered page (rotation
    and crop box applied) at one pixel per point, top-left origin.
    """
    width, height = page.get_size()
    to_page = page_transform(page, width, height)
    textpage = page.get_textpage()
    try:
        pw = page_words(page_text(textpage))
        wanted = words_of(passage)
        matched = aligned_words(pw.words, wanted)
        boxes: list[tuple[int, Rect]] = []
        for w in sorted(matched):
            start, end = pw.spans[w]
            for i in range(start, end):
                left, bottom, right, top = textpage.get_charbox(i, loose=True)
                x0, y0 = to_page(left, bottom)
                x1, y1 = to_page(right, top)
                boxes.append((w, [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]))
    finally:
        textpage.close()
    distinct = set(wanted)
    on_page = distinct & set(pw.words)
    marked = {pw.words[i] for i in matched}
    marks = Marks(
        rects=merge_lines(boxes),
        words=len(distinct),
        on_page=len(on_page),
        marked=len(on_page & marked),
        source="text" if boxes else "none",
        page_marked=len(matched),
    )
    return marks, width, height


def page_text(textpage: Any) -> str:
    """The page's text with one character per pdfium character index (generated spaces and
    line breaks included), so that string offsets are character indexes."""
    import pypdfium2.raw as pdfium_c

    n = textpage.count_chars()
    text = textpage.get_text_range()
    if len(text) == n:
        return str(text)
    # Characters outside the BMP come as two UTF-16 units: read them one index at a time.
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i) or 32) for i in range(n))


def page_transform(page: Any, width: float, height: float) -> Any:
    """A function from PDF canvas units to the upright rendered page at one pixel per point
    (top-left origin; rotation and crop box applied), as pdfium maps them: an affine map
    fitted to three points (pdfium's mapping gives integers, so at ``_FINE`` per point)."""
    import pypdfium2.raw as pdfium_c

    dev_w, dev_h = round(width * _FINE), round(height * _FINE)

    def device(px: float, py: float) -> tuple[float, float]:
        dx, dy = ctypes.c_int(), ctypes.c_int()
        pdfium_c.FPDF_PageToDevice(page, 0, 0, dev_w, dev_h, 0, px, py, dx, dy)
        return dx.value / _FINE, dy.value / _FINE

    ox, oy = device(0.0, 0.0)
    ax, ay = device(1000.0, 0.0)
    bx, by = device(0.0, 1000.0)
    a, b = (ax - ox) / 1000, (bx - ox) / 1000
    c, d = (ay - oy) / 1000, (by - oy) / 1000

    def to_page(x: float, y: float) -> tuple[float, float]:
        return ox + a * x + b * y, oy + c * x + d * y

    return to_page
