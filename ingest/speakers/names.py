"""Names people give the speakers of a recording ("Speaker 2 is Maria").

Kept in ``DATA_DIR/speakers.json`` as ``{document path: {"2": "Maria"}}``, so a name survives a
re-ingest of the same file (the loader writes it into each section's ``speaker_name``), and
written into the stored chunks' provenance at once, so citations name the speaker right away.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, attributes

from core import catalogue
from core.db.models import Document
from core.errors import InvalidInputError

FILE = "speakers.json"
MAX_NAME = 80


def _read(data_dir: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads((data_dir / FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return data if isinstance(data, dict) else {}


def speaker_names(data_dir: Path, path: str) -> dict[int, str]:
    """``{speaker: name}`` of the recording at catalogue path ``path``."""
    return {int(k): v for k, v in _read(data_dir).get(path, {}).items()}


def all_names(data_dir: Path) -> list[str]:
    """Every name given to a speaker of any recording, longest first."""
    found = {n for names in _read(data_dir).values() for n in names.values() if n}
    return sorted(found, key=lambda n: (-len(n), n))


def speakers_of(s: Session, document: Document) -> dict[int, str]:
    """``{speaker: label}`` of a document's chunks: its name, else ``Speaker N``."""
    found: dict[int, str] = {}
    for chunk in catalogue.chunks_of(s, document.id):
        prov: dict[str, Any] = chunk.provenance or {}
        if "speaker" in prov:
            found[int(prov["speaker"])] = prov.get("speaker_name") or f"Speaker {prov['speaker']}"
    return dict(sorted(found.items()))


def name_speaker(s: Session, data_dir: Path, document: Document, speaker: int, name: str) -> int:
    """Name (or, with an empty ``name``, unname) ``speaker`` of ``document``: kept for later
    ingests and written into its chunks; the count of chunks changed. ``InvalidInputError``
    naming the field for a speaker the recording does not have or a name too long."""
    name = " ".join(name.split())
    if len(name) > MAX_NAME:
        raise InvalidInputError(f"name: at most {MAX_NAME} characters", field="name")
    known = speakers_of(s, document)
    if speaker not in known:
        have = ", ".join(str(k) for k in known) or "none: it was not diarized"
        raise InvalidInputError(
            f"speaker: {Path(document.path).name} has no speaker {speaker} (speakers: {have})",
            field="speaker",
        )
    data = _read(data_dir)
    names = data.setdefault(document.path, {})
    if name:
        names[str(speaker)] = name
    else:
        names.pop(str(speaker), None)
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / f"{FILE}.tmp{os.getpid()}"
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, data_dir / FILE)
    changed = 0
    for chunk in catalogue.chunks_of(s, document.id):
        prov = dict(chunk.provenance or {})
        if prov.get("speaker") != speaker:
            continue
        if name:
            prov["speaker_name"] = name
        else:
            prov.pop("speaker_name", None)
        chunk.provenance = prov
        attributes.flag_modified(chunk, "provenance")
        changed += 1
    s.commit()
    return changed
