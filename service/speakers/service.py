"""Listing and naming a document's speakers, for the CLI and the API alike."""

from __future__ import annotations

from pathlib import Path

from core import catalogue
from core.db.models import Document
from core.db.session import Database
from core.errors import NotFoundError
from ingest.files import catalogue_path
from ingest.speakers.names import adopt_names_file, name_speaker, speakers_of


def find_document(db: Database, ref: str | int) -> int:
    """A document's id from its id or its file's path; ``NotFoundError`` naming it."""
    with db.session() as s:
        doc: Document | None
        if isinstance(ref, int) or ref.isdigit():
            doc = catalogue.document_by_id(s, int(ref))
        else:
            doc = catalogue.document_at(s, str(catalogue_path(Path(ref))))
        if doc is None:
            raise NotFoundError(f"document {ref}: not in the library", field="document")
        return doc.id


def list_speakers(db: Database, document_id: int, data_dir: Path | None = None) -> dict[int, str]:
    """``{speaker: label}`` of a document (empty when it has none); ``data_dir``: where an old
    speakers.json may wait to be imported (:func:`ingest.speakers.names.adopt_names_file`)."""
    if data_dir is not None:
        adopt_names_file(db, data_dir)
    with db.session() as s:
        doc = catalogue.document_by_id(s, document_id)
        if doc is None:
            raise NotFoundError(f"document {document_id} does not exist", field="id")
        return speakers_of(s, doc)


def rename(db: Database, data_dir: Path, document_id: int, speaker: int, name: str) -> int:
    """Name a document's speaker (:func:`ingest.speakers.names.name_speaker`, after importing
    an old speakers.json of ``data_dir``); chunks changed."""
    adopt_names_file(db, data_dir)
    with db.session() as s:
        doc = catalogue.document_by_id(s, document_id)
        if doc is None:
            raise NotFoundError(f"document {document_id} does not exist", field="id")
        return name_speaker(s, doc, speaker, name)
