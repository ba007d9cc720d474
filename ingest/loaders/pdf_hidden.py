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

White text is hidden only on white: text drawn in white where the page last painted a filled
area of another colour or an image (a caption on a coloured band, a heading over a photo) is
what a reader sees, and is kept. The painted areas are the bounding boxes of filled paths, of
images and of what form XObjects paint (followed ``MAX_FORM_DEPTH`` deep), in page space
(``cm``, a form's ``/Matrix``); the text's place is its origin (``Tm``, ``Td``, ``TD``, ``T*``,
``TL``) through the same matrix. Shadings (``sh``) and clipping are not judged.

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
    """Product of two affine matrices given as [a, b, c, d, e, f] (row vectors, as PDF writes
    them: ``a`` applied first), or of their 2x2 parts when given as [a, b, c, d]."""
    product = [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
    ]
    if len(a) == len(b) == 6:
        product += [a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]
    return product


def _apply(m: list[float], x: float, y: float) -> tuple[float, float]:
    """The point (x, y) through the affine matrix ``m`` ([a, b, c, d, e, f])."""
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


_IDENTITY = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
_FILLS = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"}
_PATH_ENDS = _FILLS | {b"n", b"S", b"s"}
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in page space


class _Backdrop:
    """What the page painted so far, as boxes with whether each is white (latest last): the
    colour behind a point is the last box holding it, white (paper) when none does."""

    def __init__(self) -> None:
        self.painted: list[tuple[Box, bool]] = []
        self._path: list[tuple[float, float]] = []

    def point(self, m: list[float], x: float, y: float) -> None:
        """A path point (``m``, ``l``, ``c``, a rectangle's corner) in user space."""
        self._path.append(_apply(m, x, y))

    def rectangle(self, m: list[float], x: float, y: float, w: float, h: float) -> None:
        for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
            self.point(m, px, py)

    def end_path(self, white: bool | None) -> None:
        """The path is painted (filled with a white colour or not; None: not filled)."""
        if self._path and white is not None:
            self.painted.append((_box(self._path), white))
        self._path = []

    def image(self, m: list[float]) -> None:
        corners = [_apply(m, x, y) for x, y in ((0, 0), (1, 0), (0, 1), (1, 1))]
        self.painted.append((_box(corners), False))

    def dark_at(self, x: float, y: float) -> bool:
        """True when the last area painted under (x, y) is not white."""
        for (x0, y0, x1, y1), white in reversed(self.painted):
            if x0 <= x <= x1 and y0 <= y <= y1:
                return not white
        return False


def _box(points: list[tuple[float, float]]) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


class _State:
    def __init__(self) -> None:
        self.fill: list[float] = [0.0]
        self.stroke: list[float] = [0.0]
        self.mode = 0
        self.size = 12.0
        self.cm = list(_IDENTITY)
        self.tm = list(_IDENTITY)
        self.tlm = list(_IDENTITY)  # the text line matrix (``Td`` moves from it)
        self.leading = 0.0
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

    def hidden(self, scan: bool, backdrop: _Backdrop) -> bool:
        if self.mode == 7 or (self.mode == 3 and not scan):
            return True
        fill, stroke = _white(self.fill), _white(self.stroke)
        white = (
            (self.mode in (0, 4) and fill)
            or (self.mode in (1, 5) and stroke)
            or (self.mode in (2, 6) and fill and stroke)
        )
        if white and not backdrop.dark_at(*_apply(self.cm, self.tm[4], self.tm[5])):
            return True
        m = _mul(self.tm[:4], self.cm[:4])
        points = abs(self.size) * math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
        return not self.type3 and 0 < points <= TINY_PT


_DEVICE = {"/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/CalGray", "/CalRGB", "/G", "/RGB"}


def _device_spaces(resources: Any) -> set[str]:
    """Colour space names whose components are gray, RGB or CMYK levels: the device spaces
    and the ``/ICCBased`` and calibrated ones of ``resources`` (a page's or a form's)."""
    names = set(_DEVICE) | {"/CMYK"}
    try:
        for key, value in (_entry(resources, "/ColorSpace") or {}).items():
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


def _entry(dictionary: Any, key: str) -> Any:
    """``dictionary[key]`` resolved (``get`` gives an indirect reference as it is); None when
    absent or unreadable."""
    try:
        value = dictionary.get(key)
        return value.get_object() if value is not None else None
    except (AttributeError, TypeError):
        return None


def _xobjects(resources: Any) -> dict[str, Any]:
    """The XObjects of ``resources`` by name ("/Im0"), resolved."""
    try:
        found = _entry(resources, "/XObject") or {}
        return {str(k): v.get_object() for k, v in found.items()}
    except (KeyError, AttributeError, TypeError):
        return {}


def _move_text(state: _State, tx: float, ty: float) -> None:
    state.tlm = _mul([1.0, 0.0, 0.0, 1.0, tx, ty], state.tlm)
    state.tm = list(state.tlm)


#: How deep form XObjects drawing inside form XObjects are followed for what they paint.
MAX_FORM_DEPTH = 3


class _Painter:
    """Follows the graphics state and what a content stream paints (``backdrop``): colours,
    ``cm``, ``q``/``Q``, paths and their fills, images, and form XObjects' own paintings (their
    text is not judged), with the colour spaces and XObjects of its ``resources``."""

    def __init__(self, pdf: Any, resources: Any, backdrop: _Backdrop, depth: int = 0) -> None:
        self.pdf = pdf
        self.resources = resources
        self.backdrop = backdrop
        self.depth = depth
        self.colour_spaces = _device_spaces(resources)
        self.xobjects = _xobjects(resources)
        self.stack: list[_State] = []

    def draws_image(self, operations: list[tuple[list[Any], bytes]]) -> bool:
        return any(
            op == b"INLINE IMAGE" or (op == b"Do" and operands and self._kind(operands) == "/Image")
            for operands, op in operations
        )

    def _kind(self, operands: list[Any]) -> str:
        xobject = self.xobjects.get(str(operands[0]))
        return str(xobject.get("/Subtype")) if xobject is not None else ""

    def apply(self, state: _State, operands: list[Any], op: bytes) -> _State:
        """``state`` after the operation (a new one after ``Q``)."""
        nums = _nums(operands) if op not in (b"Tf", b"cs", b"CS", b"Do") else None
        if op == b"q":
            self.stack.append(state.copy())
        elif op == b"Q" and self.stack:
            return self.stack.pop()
        elif op in (b"g", b"rg", b"k") and nums:
            state.fill = nums
        elif op in (b"G", b"RG", b"K") and nums:
            state.stroke = nums
        elif op in (b"sc", b"scn"):
            state.fill = (nums or []) if state.fill_device else []
        elif op in (b"SC", b"SCN"):
            state.stroke = (nums or []) if state.stroke_device else []
        elif op == b"cs" and operands:
            state.fill_device = str(operands[0]) in self.colour_spaces
        elif op == b"CS" and operands:
            state.stroke_device = str(operands[0]) in self.colour_spaces
        elif op == b"cm" and nums and len(nums) >= 6:
            state.cm = _mul(nums[:6], state.cm)
        elif op == b"INLINE IMAGE":
            self.backdrop.image(state.cm)
        elif op == b"Do" and operands:
            self._draw(state, operands)
        else:
            _track(state, self.backdrop, op, nums)
        return state

    def _draw(self, state: _State, operands: list[Any]) -> None:
        from pypdf.generic import ContentStream

        xobject = self.xobjects.get(str(operands[0]))
        if xobject is None:
            return
        if xobject.get("/Subtype") == "/Image":
            self.backdrop.image(state.cm)
            return
        if xobject.get("/Subtype") != "/Form" or self.depth >= MAX_FORM_DEPTH:
            return
        try:
            operations = ContentStream(xobject, self.pdf, "bytes").operations
            matrix = _nums(list(_entry(xobject, "/Matrix") or _IDENTITY)) or _IDENTITY
        except Exception:  # an unreadable form: what it paints is not known
            return
        inner = _Painter(
            self.pdf, _entry(xobject, "/Resources") or self.resources, self.backdrop, self.depth + 1
        )
        drawn = state.copy()
        drawn.cm = _mul(matrix[:6], state.cm)
        for form_operands, op in operations:
            if op not in _SHOW:
                drawn = inner.apply(drawn, form_operands, op)


def _track(state: _State, backdrop: _Backdrop, op: bytes, nums: list[float] | None) -> None:
    """Follow the text place (``Tm``, ``Td``, ``TD``, ``T*``, ``TL``) and what the page paints
    (paths' fills) for ``backdrop``."""
    if op == b"BT":
        state.tm, state.tlm = list(_IDENTITY), list(_IDENTITY)
    elif op == b"Tm" and nums and len(nums) >= 6:
        state.tm, state.tlm = nums[:6], nums[:6]
    elif op in (b"Td", b"TD") and nums and len(nums) >= 2:
        if op == b"TD":
            state.leading = -nums[1]
        _move_text(state, nums[0], nums[1])
    elif op == b"TL" and nums:
        state.leading = nums[0]
    elif op == b"T*":
        _move_text(state, 0.0, -state.leading)
    elif op == b"re" and nums and len(nums) >= 4:
        backdrop.rectangle(state.cm, *nums[:4])
    elif op in (b"m", b"l") and nums and len(nums) >= 2:
        backdrop.point(state.cm, nums[0], nums[1])
    elif op in (b"c", b"v", b"y") and nums and len(nums) >= 4:
        for k in range(0, len(nums) - 1, 2):
            backdrop.point(state.cm, nums[k], nums[k + 1])
    elif op in _PATH_ENDS:
        backdrop.end_path(_white(state.fill) if op in _FILLS else None)


def visible_operations(page: Any) -> list[tuple[list[Any], bytes]] | None:
    """The page content's operations with the text-showing ones drawn invisibly dropped; None
    when every text operator is visible (or the content cannot be read)."""
    from pypdf.generic import ContentStream

    try:
        content = ContentStream(page.get_contents(), page.pdf, "bytes")
        operations = list(content.operations)
        resources = _entry(page, "/Resources") or {}
    except Exception:  # unreadable content: pypdf's own extraction decides
        return None
    type3 = _type3_fonts(page)
    painter = _Painter(page.pdf, resources, _Backdrop())
    scan = painter.draws_image(operations)
    state = _State()
    kept: list[tuple[list[Any], bytes]] = []
    dropped = 0
    for operands, op in operations:
        if op in (b"'", b'"'):  # a next line first, then the text
            _move_text(state, 0.0, -state.leading)
        if op in _SHOW and state.hidden(scan, painter.backdrop):
            dropped += 1
            if op in (b"'", b'"'):
                kept.append(([], b"T*"))
            continue
        kept.append((operands, op))
        if op == b"Tr" and (nums := _nums(operands)):
            state.mode = int(nums[0])
        elif op == b"Tf" and len(operands) >= 2:
            with contextlib.suppress(TypeError, ValueError):
                state.size = float(operands[1])
            state.type3 = str(operands[0]) in type3
        elif op not in _SHOW:
            state = painter.apply(state, operands, op)
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
