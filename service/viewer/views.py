"""What the UI needs to show one chunk in place, per kind, built from the catalogue's rows.

Kinds: ``pdf`` (a page with marks), ``image`` (a photo's frame with its OCR boxes), ``audio``
(the cited time range and the transcript around it), ``table`` (a sheet's header row and the
cited rows), ``text`` (everything else: the passage with the text around it in the same slide,
section, chapter or message). A view of a kind whose file cannot be shown falls back to
``text`` and says why in ``original``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.db.models import Chunk, Document
from core.provenance import describe, speaker_of
from ingest.loaders.tables import CELL_SEPARATOR

#: Neighbouring chunks shown on each side of a passage outside a unit (slide, section...).
NEIGHBOURS = 2
#: A unit (slide, section, message) of at most this many chunks is shown whole.
WHOLE_UNIT = 8
#: Seconds of transcript shown before and after an audio citation's range.
AUDIO_CONTEXT_S = 30.0
#: Provenance keys that name the unit a chunk belongs to, most specific first.
UNIT_KEYS = ("slide", "heading", "chapter", "message", "sheet", "key")


def kind_of(doc: Document, provenance: dict[str, Any]) -> str:
    """The view kind of a chunk."""
    if "start" in provenance and "end" in provenance:
        return "audio"
    if doc.file_type == "pdf" and "page" in provenance:
        return "pdf"
    if doc.file_type == "image":
        return "image"
    if "sheet" in provenance and "rows" in provenance:
        return "table"
    return "text"


def base_view(chunk: Chunk, doc: Document) -> dict[str, Any]:
    """Fields every view has: the chunk, its document and where it points, in words."""
    prov = dict(chunk.provenance or {})
    return {
        "chunk_id": chunk.id,
        "document_id": doc.id,
        "path": doc.path,
        "name": Path(doc.path).name,
        "file_type": doc.file_type,
        "kind": kind_of(doc, prov),
        "where": describe(prov),
        "text": chunk.text,
        "provenance": prov,
        "original_url": f"/api/documents/{doc.id}/original",
    }


def _unit(prov: dict[str, Any]) -> tuple[str, Any] | None:
    for key in UNIT_KEYS:
        if key in prov:
            return key, (prov[key], prov.get("index"))
    return None


def _overlap(before: str, after: str) -> int:
    """Length of the longest suffix of ``before`` (whole lines or sentences) that ``after``
    starts with: the chunker's overlap, shown once."""
    best = 0
    for cut in range(len(before)):
        if cut and before[cut - 1] not in " \n":
            continue
        tail = before[cut:]
        if len(tail) > 2 and after.startswith(tail.strip()):
            best = len(before) - cut
            break
    return best


def text_context(chunk: Chunk, chunks: list[Chunk]) -> list[dict[str, Any]]:
    """The passage with the text around it: the chunks of its unit (slide, section, message)
    when few, else its neighbours; each ``{"text", "cited"}``, overlaps shown once."""
    prov = dict(chunk.provenance or {})
    unit = _unit(prov)
    position = next((i for i, c in enumerate(chunks) if c.id == chunk.id), None)
    if position is None:
        return [{"text": chunk.text, "cited": True}]
    same = [c for c in chunks if unit is not None and _unit(dict(c.provenance or {})) == unit]
    if unit is not None and len(same) <= WHOLE_UNIT:
        near = same
    else:
        near = chunks[max(0, position - NEIGHBOURS) : position + NEIGHBOURS + 1]
    texts = [c.text for c in near]
    for i in range(1, len(near)):
        cut = _overlap(near[i - 1].text, near[i].text)
        if not cut:
            continue
        if near[i].id == chunk.id:  # the passage stays whole: the one before gives way
            texts[i - 1] = texts[i - 1][: max(0, len(texts[i - 1]) - cut)]
        else:
            texts[i] = texts[i][len(near[i - 1].text[-cut:].strip()) :].lstrip()
    return [
        {"text": t, "cited": c.id == chunk.id}
        for c, t in zip(near, texts, strict=True)
        if t.strip() or c.id == chunk.id
    ]


def message_headers(prov: dict[str, Any]) -> dict[str, str] | None:
    """Sender, date and subject of an e-mail chunk, or None."""
    if "message" not in prov:
        return None
    out = {"subject": str(prov["message"])}
    for key in ("from", "date", "attachment"):
        if prov.get(key):
            out[key] = str(prov[key])
    return out


def _cells(header: list[str], line: str) -> list[str]:
    """A row written with its headers (``tables.row_line``) back as cells under ``header``."""
    cells = [""] * len(header)
    j = 0
    for part in line.split(CELL_SEPARATOR):
        for k in range(j, len(header)):
            name = header[k]
            if part.startswith(f"{name}: "):
                cells[k] = part[len(name) + 2 :]
                j = k + 1
                break
            if part == name:
                cells[k] = part
                j = k + 1
                break
        else:
            if j < len(cells):
                cells[j] = part
                j += 1
            else:
                cells.append(part)
    return cells


def table_view(chunk: Chunk) -> dict[str, Any]:
    """The sheet's header row and the cited rows as cells, from the chunk's text (the tables
    loader writes the sheet line, the header row, then one line per row); row numbers when
    every row between the first and last cited is there."""
    prov = dict(chunk.provenance or {})
    lines = [ln for ln in chunk.text.split("\n") if ln.strip()]
    if len(lines) < 2:
        return {"sheet": prov.get("sheet"), "header": [], "rows": []}
    header = lines[1].split(CELL_SEPARATOR)
    rows = [_cells(header, ln) for ln in lines[2:]]
    numbers: list[int | None] = [None] * len(rows)
    first, _, last = str(prov.get("rows", "")).partition("-")
    if first.isdigit():
        end = int(last) if last.isdigit() else int(first)
        if end - int(first) + 1 == len(rows):
            numbers = list(range(int(first), end + 1))
    width = max([len(header), *(len(r) for r in rows)])
    return {
        "sheet": prov.get("sheet"),
        "header": header + [""] * (width - len(header)),
        "rows": [
            {"number": n, "cells": r + [""] * (width - len(r))}
            for n, r in zip(numbers, rows, strict=True)
        ],
    }


def audio_view(chunk: Chunk, chunks: list[Chunk]) -> dict[str, Any]:
    """The cited range (seconds) and the transcript lines within ``AUDIO_CONTEXT_S`` of it."""
    prov = dict(chunk.provenance or {})
    start, end = float(prov["start"]), float(prov["end"])
    lines = []
    for c in chunks:
        p = dict(c.provenance or {})
        if "start" not in p or "end" not in p:
            continue
        s, e = float(p["start"]), float(p["end"])
        if e < start - AUDIO_CONTEXT_S or s > end + AUDIO_CONTEXT_S:
            continue
        lines.append(
            {
                "start": s,
                "end": e,
                "text": c.text,
                "channel": p.get("channel"),
                "speaker": speaker_of(p) or None,
                "cited": c.id == chunk.id,
            }
        )
    return {"start": start, "end": end, "channel": prov.get("channel"), "lines": lines}
