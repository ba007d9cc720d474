"""Text a reader cannot see on a PDF page: white fill, invisible render modes, 1-2 point type.

pypdf's text extraction reads every text-showing operator whatever its colour or render mode, and
its ``visitor_text`` callback reports text only when a line is flushed (several colours can share
one flush), so the page's content stream is walked here instead, tracking the graphics state the
way a viewer does (PDF 32000-1 §8.4, §9.3): ``q``/``Q`` save and restore it; ``g``/``rg``/``k``
(and ``sc``/``scn`` in a gray/RGB/CMYK/ICC space; not Separation or pattern spaces, where
1 means full ink) set the fill colour, ``G``/``RG``/``K``/``SC``/
``SCN`` the stroke colour; ``Tr`` the text render mode (3 invisible, 7 clip only); ``Tf`` with the
text (``Tm``) and current (``cm``) matrices the size on the page. A text-showing operator
(``Tj``, ``TJ``, ``'``, ``"``) drawn invisibly is dropped (``'`` and ``"`` keep their line
move), and the page's extraction is then run on what remains. Text inside form XObjects and
colours set through ``gs`` or patterns are not judged.

Invisible text (render mode 3) on a page that draws an image is kept: that is how OCR tools
(OCRmyPDF, Acrobat) lay a searchable text layer over a scanned page.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

from ingest.loaders.hidden import TINY_PT

_SHOW = {b"Tj", b"TJ", b"'", b'"'}
_WHITE = 0.97  # colour components at or above this (below for CMYK ink) read as white


def _white(components: list[float]) -> bool:
    if len(components) in (1, 3):
        return all(c >= _WHITE for c in components)
    if len(components) == 4:  # CMYK: no ink
        return all(c <= 1 - _WHITE for c in components)
    return False


def _nums(operands: list[Any]) -> list[float] | None:
    try:
        return [float(x) for x in operands]
    except (TypeError, ValueError):
        return None  # a pattern name among them: not judged


def _mul(a: list[float], b: list[float]) -> list[float]:
    """Product of two 2x2 matrices given as [a, b, c, d] (row vectors, as PDF writes them)."""
    return [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
    ]


class _State:
    def __init__(self) -> None:
        self.fill: list[float] = [0.0]
        self.stroke: list[float] = [0.0]
        self.mode = 0
        self.size = 12.0
        self.cm = [1.0, 0.0, 0.0, 1.0]
        self.tm = [1.0, 0.0, 0.0, 1.0]
        self.type3 = False
        #: the fill/stroke colour space is gray, RGB or CMYK (a Separation tint of 1 is ink)
        self.fill_device = True
        self.stroke_device = True

    def copy(self) -> _State:
        new = _State()
        new.__dict__.update(
            {k: list(v) if isinstance(v, list) else v for k, v in vars(self).items()}
        )
        return new

    def hidden(self, scan: bool) -> bool:
        if self.mode == 7 or (self.mode == 3 and not scan):
            return True
        fill, stroke = _white(self.fill), _white(self.stroke)
        if (self.mode in (0, 4) and fill) or (self.mode in (1, 5) and stroke):
            return True
        if self.mode in (2, 6) and fill and stroke:
            return True
        m = _mul(self.tm, self.cm)
        points = abs(self.size) * math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
        return not self.type3 and 0 < points <= TINY_PT


_DEVICE = {"/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/CalGray", "/CalRGB", "/G", "/RGB"}


def _device_spaces(page: Any) -> set[str]:
    """Colour space names whose components are gray, RGB or CMYK levels: the device spaces
    and the page's ``/ICCBased`` and calibrated resources."""
    names = set(_DEVICE) | {"/CMYK"}
    try:
        for key, value in (page["/Resources"].get("/ColorSpace") or {}).items():
            space = value.get_object()
            kind = str(space[0].get_object() if isinstance(space, list) else space)
            if kind in (*_DEVICE, "/ICCBased", "/DeviceCMYK"):
                names.add(str(key))
    except (KeyError, AttributeError, TypeError, IndexError):
        pass
    return names


def _type3_fonts(page: Any) -> set[str]:
    try:
        fonts = page["/Resources"]["/Font"]
        return {str(k) for k, v in fonts.items() if v.get_object().get("/Subtype") == "/Type3"}
    except (KeyError, AttributeError, TypeError):
        return set()


def _draws_image(page: Any, operations: list[tuple[list[Any], bytes]]) -> bool:
    try:
        xobjects = page["/Resources"].get("/XObject") or {}
        images = {str(k) for k, v in xobjects.items() if v.get_object().get("/Subtype") == "/Image"}
    except (KeyError, AttributeError, TypeError):
        images = set()
    return any(
        op == b"INLINE IMAGE" or (op == b"Do" and operands and str(operands[0]) in images)
        for operands, op in operations
    )


def visible_operations(page: Any) -> list[tuple[list[Any], bytes]] | None:
    """The page content's operations with the text-showing ones drawn invisibly dropped; None
    when every text operator is visible (or the content cannot be read)."""
    from pypdf.generic import ContentStream

    try:
        content = ContentStream(page.get_contents(), page.pdf, "bytes")
        operations = list(content.operations)
    except Exception:  # unreadable content: pypdf's own extraction decides
        return None
    type3 = _type3_fonts(page)
    scan = _draws_image(page, operations)
    state, stack = _State(), []
    kept: list[tuple[list[Any], bytes]] = []
    dropped = 0
    colour_spaces = _device_spaces(page)
    for operands, op in operations:
        if op in _SHOW and state.hidden(scan):
            dropped += 1
            if op in (b"'", b'"'):
                kept.append(([], b"T*"))
            continue
        kept.append((operands, op))
        nums = _nums(operands) if op not in (b"Tf", b"cs", b"CS") else None
        if op == b"q":
            stack.append(state.copy())
        elif op == b"Q" and stack:
            state = stack.pop()
        elif op in (b"g", b"rg", b"k") and nums:
            state.fill = nums
        elif op in (b"G", b"RG", b"K") and nums:
            state.stroke = nums
        elif op in (b"sc", b"scn"):
            state.fill = (nums or []) if state.fill_device else []
        elif op in (b"SC", b"SCN"):
            state.stroke = (nums or []) if state.stroke_device else []
        elif op == b"cs" and operands:
            state.fill_device = str(operands[0]) in colour_spaces
        elif op == b"CS" and operands:
            state.stroke_device = str(operands[0]) in colour_spaces
        elif op == b"Tr" and nums:
            state.mode = int(nums[0])
        elif op == b"Tf" and len(operands) >= 2:
            with contextlib.suppress(TypeError, ValueError):
                state.size = float(operands[1])
            state.type3 = str(operands[0]) in type3
        elif op == b"BT":
            state.tm = [1.0, 0.0, 0.0, 1.0]
        elif op == b"Tm" and nums and len(nums) >= 4:
            state.tm = nums[:4]
        elif op == b"cm" and nums and len(nums) >= 4:
            state.cm = _mul(nums[:4], state.cm)
    return kept if dropped else None


def drop_hidden_text(page: Any) -> bool:
    """Replace the page's content, in memory only (the file is not touched), with its visible
    operations; True when any text operator was dropped."""
    from pypdf.generic import ContentStream, NameObject

    kept = visible_operations(page)
    if kept is None:
        return False
    content = ContentStream(None, page.pdf, "bytes")
    content.operations = kept
    # pypdf 7 refuses replace_contents() on a reader's page; extract_text takes a ContentStream
    # in /Contents as it is (strings kept as bytes, as its own parse does: no re-encoding)
    page[NameObject("/Contents")] = content
    return True
