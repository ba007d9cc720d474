"""Speakers of recordings in the catalogue: the names people give them (table ``speaker_names``,
migration 0008) and the speakers their chunks record (provenance ``speaker``, ``speaker_name``).

A name belongs to a document row, which a re-ingest of the same file keeps (and a move too), so
the name outlives both; it goes when the document is removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, attributes

from core.catalogue.chunks import chunks_of
from core.db.models import Chunk, Document
from core.db.speakers import SpeakerName
from core.filters import Filters


def speaker_names_of(s: Session, document_id: int) -> dict[int, str]:
    """``{speaker: name}`` given to document ``document_id``'s speakers, by speaker."""
    query = (
        sa.select(SpeakerName.speaker, SpeakerName.name)
        .where(SpeakerName.document_id == document_id)
        .order_by(SpeakerName.speaker)
    )
    return {int(k): str(v) for k, v in s.execute(query).all()}


def every_speaker_name(s: Session) -> list[str]:
    """Every name given to a speaker of any recording, once each, longest first."""
    found = set(s.scalars(sa.select(SpeakerName.name).distinct()))
    return sorted(found, key=lambda n: (-len(n), n))


def set_speaker_name(s: Session, document_id: int, speaker: int, name: str) -> None:
    """Call ``speaker`` of the document ``name`` (an empty ``name`` removes the name)."""
    row = s.get(SpeakerName, (document_id, speaker))
    if not name:
        if row is not None:
            s.delete(row)
    elif row is None:
        s.add(SpeakerName(document_id=document_id, speaker=speaker, name=name))
    else:
        row.name = name
    s.flush()


def add_speaker_names(s: Session, by_path: Mapping[str, Mapping[int, str]]) -> tuple[int, int]:
    """Names kept by catalogue path (the old ``speakers.json``) added where the document exists
    and the speaker has no name yet; (added, left out: no such document or already named)."""
    ids = dict(
        s.execute(sa.select(Document.path, Document.id).where(Document.path.in_(list(by_path))))
        .tuples()
        .all()
    )
    added = skipped = 0
    for path, names in by_path.items():
        for speaker, name in names.items():
            doc_id = ids.get(path)
            if doc_id is None or s.get(SpeakerName, (doc_id, speaker)) is not None:
                skipped += 1
                continue
            s.add(SpeakerName(document_id=doc_id, speaker=speaker, name=name))
            added += 1
    s.flush()
    return added, skipped


def chunk_speakers(s: Session, document_id: int) -> dict[int, str]:
    """``{speaker: name or ""}`` of every speaker the document's chunks record, by speaker."""
    found: dict[int, str] = {}
    for chunk in chunks_of(s, document_id):
        prov: dict[str, Any] = chunk.provenance or {}
        if "speaker" in prov:
            found[int(prov["speaker"])] = str(prov.get("speaker_name") or "")
    return dict(sorted(found.items()))


def name_chunk_speaker(s: Session, document_id: int, speaker: int, name: str) -> int:
    """Write ``name`` as ``speaker_name`` into the provenance of the document's chunks of
    ``speaker`` (an empty ``name`` takes it out); the count of chunks changed."""
    changed = 0
    for chunk in chunks_of(s, document_id):
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
    s.flush()
    return changed


def with_speaker_name(provenance: dict[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """A chunk's provenance with the ``speaker_name`` ``names`` gives its ``speaker`` (as it is
    when it records no speaker or that speaker has no name)."""
    speaker = provenance.get("speaker")
    if not isinstance(speaker, int) or speaker not in names:
        return provenance
    return {**provenance, "speaker_name": names[speaker]}


def speaker_chunks(
    s: Session,
    numbers: Sequence[int] = (),
    names: Sequence[str] = (),
    filters: Filters | None = None,
    limit: int = 2000,
) -> list[tuple[Chunk, Document]]:
    """Chunks (with their documents) of recordings' speakers within ``filters``' collection,
    documents and file types: a speaker numbered among ``numbers`` or named (case aside)
    among ``names``; at most ``limit``, in document and chunk order."""
    if not numbers and not names:
        return []
    prov = Chunk.provenance
    who = sa.or_(
        prov["speaker"].as_integer().in_(list(numbers)),
        sa.func.lower(prov["speaker_name"].as_string()).in_([n.lower() for n in names]),
    )
    query = sa.select(Chunk, Document).join(Document, Chunk.document_id == Document.id).where(who)
    f = filters or Filters()
    if f.collection:
        query = query.where(Document.collection == f.collection)
    if f.document_ids:
        query = query.where(Document.id.in_(f.document_ids))
    if f.file_types:
        query = query.where(Document.file_type.in_(f.file_types))
    query = query.order_by(Chunk.document_id, Chunk.ordinal).limit(limit)
    return [(chunk, doc) for chunk, doc in s.execute(query).tuples()]


def highest_speaker(s: Session, collection: str | None = None) -> int:
    """The highest speaker number any recording's chunks record (in ``collection`` when given);
    0 when none was diarized."""
    query = sa.select(sa.func.max(Chunk.provenance["speaker"].as_integer())).join(
        Document, Chunk.document_id == Document.id
    )
    if collection:
        query = query.where(Document.collection == collection)
    return int(s.scalar(query) or 0)
