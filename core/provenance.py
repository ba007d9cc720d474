"""Where a chunk came from, said in words: ``page 3``, ``slide 2``, ``sheet Sales, rows 4-9``."""

from __future__ import annotations

from typing import Any


def _message(p: dict[str, Any]) -> str:
    subject = f"“{p['message']}”"
    if "attachment" in p:
        return f"attachment of message {subject}"
    index = f" {p['index']}" if "index" in p else ""
    sender = f" from {p['from']}" if p.get("from") else ""
    return f"message{index} {subject}{sender}"


def describe(provenance: dict[str, Any]) -> str:
    """A short human label of a chunk's provenance; empty when it records nothing.

    Keys the loaders write: page; slide (+ title); sheet + rows; chapter; heading; message
    (+ index, from) and attachment; key (JSON/YAML); lines (code).
    """
    p = provenance
    parts: list[str] = []
    if "message" in p:
        parts.append(_message(p))
    elif "attachment" in p:
        parts.append(f"attachment {p['attachment']}")
    if "page" in p:
        parts.append(f"page {p['page']}")
    if "slide" in p:
        parts.append(f"slide {p['slide']}" + (f" ({p['title']})" if p.get("title") else ""))
    if "sheet" in p:
        parts.append(f"sheet {p['sheet']}")
    if "rows" in p:
        rows = str(p["rows"])
        parts.append(f"{'rows' if '-' in rows else 'row'} {rows}")
    if "chapter" in p:
        parts.append(f"chapter {p['chapter']}")
    if "heading" in p:
        parts.append(f"section {p['heading']}")
    if "key" in p:
        parts.append(f"key {p['key']}")
    if "lines" in p:
        parts.append(f"lines {p['lines']}")
    return ", ".join(parts)
