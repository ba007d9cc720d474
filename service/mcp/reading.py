"""A document's text a page at a time: its chunks in order (optionally only a page, slide or time
range), the text neighbouring chunks repeat (the chunker's overlap) given once, each part headed
by where it is, cut to a character budget with a cursor to the rest."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from core.errors import InvalidInputError
from core.provenance import describe

Unit = Literal["page", "slide", "second"]
#: The shortest repeated text taken for the chunker's overlap (shorter matches are chance).
MIN_OVERLAP = 24


class ChunkLike(Protocol):
    """What paging reads of a chunk (``core.db.models.Chunk``)."""

    ordinal: int
    text: str
    provenance: dict[str, Any]


@dataclass(frozen=True)
class TextPage:
    """Part of a document's text: ``text`` (at most the budget), the ordinals of its chunks, the
    cursor of the next page (None on the last) and how many chunks the range holds."""

    text: str
    ordinals: list[int]
    next_cursor: int | None
    total: int


def in_range(
    provenance: dict[str, Any], unit: Unit | None, start: float | None, end: float | None
) -> bool:
    """True when a chunk lies in the range: its page or slide in [start, end], or its time span
    (seconds) overlapping [start, end]; every chunk when ``unit`` is None."""
    if unit is None:
        return True
    lo = float("-inf") if start is None else start
    hi = float("inf") if end is None else end
    if unit == "second":
        if "start" not in provenance or "end" not in provenance:
            return False
        return float(provenance["end"]) >= lo and float(provenance["start"]) <= hi
    value = provenance.get(unit)
    if not isinstance(value, (int, float, str)) or not str(value).isdigit():
        return False
    return lo <= int(value) <= hi


def trim_overlap(previous: str, text: str) -> str:
    """``text`` without the start it repeats from the end of ``previous`` (at least
    ``MIN_OVERLAP`` characters), else ``text`` unchanged."""
    probe = text[:MIN_OVERLAP]
    if len(probe) < MIN_OVERLAP:
        return text
    at = previous.find(probe)
    while at != -1:
        tail = previous[at:]
        if text.startswith(tail):
            return text[len(tail) :].lstrip()
        at = previous.find(probe, at + 1)
    return text


def check_range(unit: Unit | None, start: float | None, end: float | None) -> None:
    """``InvalidInputError`` naming the argument when a range is malformed."""
    if unit is None and (start is not None or end is not None):
        raise InvalidInputError("unit: give page, slide or second with start/end", field="unit")
    if start is not None and end is not None and end < start:
        raise InvalidInputError(f"end: {end} is before start {start}", field="end")


def page_of(
    chunks: Sequence[ChunkLike],
    cursor: int,
    max_chars: int,
    unit: Unit | None = None,
    start: float | None = None,
    end: float | None = None,
) -> TextPage:
    """The page of ``chunks`` (in ordinal order) starting at the ``cursor``-th chunk of the range.

    A part is headed ``[label]`` when its provenance differs from the part before (``[page 3]``,
    ``[0:40–1:05]``). Parts are added while the page stays within ``max_chars``; the first part
    always goes in, cut with ``…`` if it alone is longer.
    """
    check_range(unit, start, end)
    chosen = [c for c in chunks if in_range(dict(c.provenance or {}), unit, start, end)]
    if cursor < 0 or (cursor and cursor >= len(chosen)):
        raise InvalidInputError(
            f"cursor: {cursor} is outside 0-{max(len(chosen) - 1, 0)} (chunks in the range)",
            field="cursor",
        )
    parts: list[str] = []
    used = 0
    ordinals: list[int] = []
    label = None
    previous: ChunkLike | None = chosen[cursor - 1] if cursor else None
    for chunk in chosen[cursor:]:
        where = describe(dict(chunk.provenance or {}))
        text = chunk.text
        if previous is not None and previous.ordinal == chunk.ordinal - 1:
            text = trim_overlap(previous.text, text)
        piece = f"[{where}]\n{text}" if where and where != label else text
        if ordinals and used + len(piece) + 2 > max_chars:
            break
        if len(piece) > max_chars:
            piece = piece[: max_chars - 1] + "…"
        parts.append(piece)
        used += len(piece) + 2
        ordinals.append(chunk.ordinal)
        label, previous = where, chunk
    following = cursor + len(ordinals)
    return TextPage(
        "\n\n".join(parts), ordinals, following if following < len(chosen) else None, len(chosen)
    )
