"""A question about one speaker of a recording ("what did Maria say about the roof", "what did
the second speaker say"): the speaker it names, so retrieval puts that speaker's turns first."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from core.db.session import Database
from ingest.speakers.names import all_names

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_NUMBERED = re.compile(r"\bspeaker\s+(\d{1,2})\b", re.IGNORECASE)
_ORDINAL = re.compile(rf"\b({'|'.join(ORDINALS)})\s+speaker\b", re.IGNORECASE)


def asked_speaker(question: str, db: Database, data_dir: Path) -> tuple[int | None, str | None]:
    """(speaker number, speaker name) the question names; (None, None) when it names none.
    Names are those given with ``hearth speakers name`` (kept in ``db``'s catalogue; an old
    speakers.json in ``data_dir`` is imported first)."""
    if m := _NUMBERED.search(question):
        return int(m.group(1)), None
    if m := _ORDINAL.search(question):
        return ORDINALS.index(m.group(1).lower()) + 1, None
    words = {w.lower() for w in re.findall(r"\w+", question)}
    for name in all_names(db, data_dir):
        if set(re.findall(r"\w+", name.lower())) <= words:
            return None, name
    return None, None


def by_speaker(provenance: dict[str, Any], number: int | None, name: str | None) -> bool:
    """True when a chunk's provenance is the asked speaker's turn."""
    if name is not None:
        return str(provenance.get("speaker_name", "")).lower() == name.lower()
    return number is not None and provenance.get("speaker") == number
