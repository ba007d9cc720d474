"""Names people give the speakers of a recording ("Speaker 2 is Maria").

Kept in the catalogue (table ``speaker_names``, migration 0008; queries in
core/catalogue/speakers.py), one row per named speaker of a document, so a name survives a
re-ingest of the same file (the commit of each version writes it into the chunks'
``speaker_name``, core/catalogue/versions.py), goes into a backup with the rest of the
catalogue and is shared by every host on one Postgres catalogue. Naming also writes the name
into the stored chunks' provenance at once, so citations name the speaker right away.

Before migration 0008 the names were in ``DATA_DIR/speakers.json`` (``{document path: {"2":
"Maria"}}``): :func:`adopt_names_file` imports that file once, the first time names are read or
written, and renames it ``speakers.json.imported``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import catalogue
from core.db.models import Document
from core.db.session import Database
from core.db.speakers import MAX_NAME
from core.errors import InvalidInputError
from core.settings import HearthSettings

log = logging.getLogger(__name__)

#: The names' file before migration 0008, and what it is renamed to once imported.
FILE = "speakers.json"
IMPORTED = "speakers.json.imported"


def _names_in_file(path: Path) -> dict[str, dict[int, str]]:
    """The well-formed entries of an old speakers.json (the others are logged and left out)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("%s: not read (%s); its names were not imported", path, exc)
        return {}
    found: dict[str, dict[int, str]] = {}
    for doc, names in (data if isinstance(data, dict) else {}).items():
        for speaker, name in (names if isinstance(names, dict) else {}).items():
            clean = " ".join(str(name).split()) if isinstance(name, str) else ""
            if str(speaker).isdigit() and 0 < len(clean) <= MAX_NAME:
                found.setdefault(str(doc), {})[int(speaker)] = clean
            else:
                log.warning("%s: %r speaker %r: not a speaker's name, left out", path, doc, speaker)
    return found


def adopt_names_file(db: Database, data_dir: Path) -> tuple[int, int] | None:
    """Import ``DATA_DIR/speakers.json`` into the catalogue and rename it ``IMPORTED`` (once:
    ``None`` when there is no such file). A name is added where its document is in the
    catalogue and the speaker has none yet; returns (added, left out). Two processes doing it
    at once add each name once."""
    path = data_dir / FILE
    if not path.is_file():
        return None
    entries = _names_in_file(path)
    result = (0, sum(len(v) for v in entries.values()))
    try:
        with db.session() as s:
            result = catalogue.add_speaker_names(s, entries)
    except IntegrityError:  # another process imported the same names first
        pass
    with contextlib.suppress(FileNotFoundError):  # another process renamed it
        os.replace(path, data_dir / IMPORTED)
    log.info("speaker names from %s: %d imported, %d left out", path, *result)
    return result


def adopt_old_names(settings: HearthSettings) -> None:
    """:func:`adopt_names_file` for a loader, which holds no catalogue: one is opened only when
    the old file is there."""
    if not (settings.data_dir / FILE).is_file():
        return
    db = Database(settings.sqlalchemy_url)
    try:
        adopt_names_file(db, settings.data_dir)
    finally:
        db.dispose()


def all_names(db: Database, data_dir: Path) -> list[str]:
    """Every name given to a speaker of any recording, longest first."""
    adopt_names_file(db, data_dir)
    with db.session() as s:
        return catalogue.every_speaker_name(s)


def speakers_of(s: Session, document: Document) -> dict[int, str]:
    """``{speaker: label}`` of a document's diarized speakers: its name, else ``Speaker N``."""
    named = catalogue.speaker_names_of(s, document.id)
    return {
        k: named.get(k) or in_chunks or f"Speaker {k}"
        for k, in_chunks in catalogue.chunk_speakers(s, document.id).items()
    }


def name_speaker(s: Session, document: Document, speaker: int, name: str) -> int:
    """Name (or, with an empty ``name``, unname) ``speaker`` of ``document``: kept for later
    ingests and written into its chunks; the count of chunks changed. ``InvalidInputError``
    naming the field for a speaker the recording does not have or a name too long."""
    name = " ".join(name.split())
    if len(name) > MAX_NAME:
        raise InvalidInputError(f"name: at most {MAX_NAME} characters", field="name")
    known = catalogue.chunk_speakers(s, document.id)
    if speaker not in known:
        have = ", ".join(str(k) for k in known) or "none: it was not diarized"
        raise InvalidInputError(
            f"speaker: {Path(document.path).name} has no speaker {speaker} (speakers: {have})",
            field="speaker",
        )
    catalogue.set_speaker_name(s, document.id, speaker, name)
    return catalogue.name_chunk_speaker(s, document.id, speaker, name)
