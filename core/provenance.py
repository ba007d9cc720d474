"""Where a chunk came from, said in words: ``page 3``, ``slide 2``, ``sheet Sales, rows 4-9``."""

from __future__ import annotations

import re
from typing import Any


def clock(seconds: object) -> str:
    """Seconds as ``m:ss`` (or ``h:mm:ss``), to the nearest second."""
    total = max(0, round(float(seconds)))  # type: ignore[arg-type]
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _message(p: dict[str, Any]) -> str:
    subject = f"“{p['message']}”"
    if "attachment" in p:
        return f"attachment of message {subject}"
    index = f" {p['index']}" if "index" in p else ""
    sender = f" from {p['from']}" if p.get("from") else ""
    return f"message{index} {subject}{sender}"


def speaker_of(provenance: dict[str, Any]) -> str:
    """Who speaks in a recording's chunk: the name given to its speaker, else ``Speaker N``,
    with the name the recording says for them beside it (``Speaker 2 (Steve)``); empty when no
    speaker is recorded or an unnamed one speaks alone in the recording (chunks stored before
    ``speakers`` was recorded say ``Speaker N``)."""
    p = provenance
    if p.get("speaker_name"):
        return str(p["speaker_name"])
    if "speaker" in p and int(p.get("speakers", 2)) > 1:
        heard = f" ({p['speaker_heard']})" if p.get("speaker_heard") else ""
        return f"Speaker {p['speaker']}{heard}"
    return ""


def as_turn(provenance: dict[str, Any], text: str) -> str:
    """A recording's passage as its speaker's turn, ``"Maria: text"`` (``speaker_of``), for
    the answer prompt; any other passage's ``text`` as it is."""
    who = speaker_of(provenance)
    return f"{who}: {text}" if who else text


#: The parts of a label ``describe`` writes for where on a page or photo: "page 2" and
#: "box (119, 103)–(942, 486)".
WHERE_ON_PAGE = re.compile(r"page \d+|box \(\d+, \d+\)\s*[–-]\s*\(\d+, \d+\)")


def describe(provenance: dict[str, Any]) -> str:
    """A short human label of a chunk's provenance; empty when it records nothing.

    Keys the loaders write: page; slide (+ title); sheet + rows; chapter; heading; message
    (+ index, from) and attachment; key (JSON/YAML); lines (code); start/end (audio, seconds)
    (+ channel, speaker, speakers, speaker_name and speaker_heard);
    box (OCR).
    """
    p = provenance
    parts: list[str] = []
    if "message" in p:
        parts.append(_message(p))
    elif "attachment" in p:
        parts.append(f"attachment {p['attachment']}")
    if "start" in p and "end" in p:
        if who := speaker_of(p):  # "Maria, 1:05–1:20" / "Speaker 2, 1:05–1:20"
            parts.append(who)
        parts.append(f"{clock(p['start'])}–{clock(p['end'])}")
        if p.get("channel"):
            parts.append(f"{p['channel']} channel")
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
    if "lines" in p and isinstance(p["lines"], (str, int)):
        parts.append(f"lines {p['lines']}")
    box = p.get("box")
    if isinstance(box, list) and len(box) == 4:
        x0, y0, x1, y1 = (round(float(v)) for v in box)
        parts.append(f"box ({x0}, {y0})–({x1}, {y1})")
    return ", ".join(parts)
