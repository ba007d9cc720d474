"""The knowledge base as the API sees it: upload and ingest a file, show, delete, collections."""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import catalogue
from core.catalogue import Action
from core.db.models import Chunk, Document
from core.errors import (
    InvalidInputError,
    LoaderError,
    NotFoundError,
    PayloadTooLargeError,
    UnsupportedTypeError,
)
from core.knowledge import KnowledgeBase
from core.lock import WriterLock
from ingest.pipeline import FileResult, IngestPipeline, too_large
from ingest.remove import remove_documents

MAX_NAME = 200
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]")
# Bidirectional controls (embeddings, overrides, isolates, marks): "\u202egnp.txt" shows as
# "txt.png". Removed, not replaced, so the name reads as it is stored.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def safe_filename(name: str) -> str:
    """A file name that cannot leave its folder: no separators, ``..``, control characters,
    no bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9: removed), at most 200
    characters (keeping the extension)."""
    name = _BIDI.sub("", unicodedata.normalize("NFC", name or ""))
    name = Path(name.replace("\\", "/")).name
    name = _UNSAFE.sub("_", name).strip(" .")
    if not name:
        raise InvalidInputError("file: the upload has no usable file name", field="file")
    if len(name) > MAX_NAME:
        stem, dot, ext = name.rpartition(".")
        ext = ext[:16] if dot else ""
        name = (stem if dot else name)[: MAX_NAME - len(ext) - 1] + (f".{ext}" if ext else "")
    return name


def valid_collection(name: str) -> str:
    """A collection name: 1-200 printable characters."""
    name = (name or "").strip()
    if not name or len(name) > 200 or not name.isprintable():
        raise InvalidInputError(
            "collection: must be 1-200 printable characters", field="collection"
        )
    return name


@dataclass
class UploadResult:
    """What ingesting an uploaded file did."""

    result: FileResult
    document_id: int | None


class Library:
    """Uploads are stored under ``<data_dir>/uploads/<sha256 prefix>/<name>`` and ingested by the
    same pipeline as the CLI; one upload is written at a time, under the data directory's writer
    lock (a 409 while another process, such as `hearth ingest`, is writing)."""

    def __init__(self, kb: KnowledgeBase, pipeline: IngestPipeline) -> None:
        self.kb = kb
        self.pipeline = pipeline
        self._lock = threading.Lock()

    def upload(self, name: str, data: bytes, collection: str = "default") -> UploadResult:
        """Store and ingest one uploaded file; a file that cannot be read raises a 4xx error."""
        collection = valid_collection(collection)
        filename = safe_filename(name)
        limit = self.kb.settings.ingest.max_file_bytes
        if not data:
            raise InvalidInputError(f"file: {filename} is empty (0 bytes)", field="file")
        if len(data) > limit:
            raise PayloadTooLargeError(too_large(filename, len(data), limit), field="file")
        folder = self.kb.settings.data_dir / "uploads" / hashlib.sha256(data).hexdigest()[:16]
        path = folder / filename
        with self._lock, WriterLock.for_settings(self.kb.settings):
            # Written under the lock, and only when it differs: two uploads of the same file at
            # once used to truncate it while the other was reading it ("empty", "updated").
            if not (path.is_file() and path.read_bytes() == data):
                folder.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            result = self.pipeline.ingest([path], collection).results[0]
        if result.action == Action.FAILED:
            reason = result.error or f"{filename}: could not be read"
            if result.error_kind == UnsupportedTypeError.__name__:
                raise UnsupportedTypeError(reason)
            raise LoaderError(reason)
        with self.kb.db.session() as s:
            doc_id = catalogue.document_id_at(s, str(path))
        return UploadResult(result, doc_id)

    def documents(self, collection: str | None = None) -> list[Document]:
        """Every document (of one collection, if given), by path."""
        with self.kb.db.session() as s:
            return catalogue.documents_in(s, collection)

    def get(self, document_id: int) -> tuple[Document, list[Chunk]]:
        """A document and its chunks."""
        with self.kb.db.session() as s:
            doc = catalogue.document_by_id(s, document_id)
            if doc is None:
                raise NotFoundError(f"document {document_id} does not exist", field="id")
            return doc, catalogue.chunks_of(s, document_id)

    def delete(self, document_id: int) -> int:
        """Remove a document from every store; returns how many chunks went."""
        doc, _ = self.get(document_id)
        with self._lock, WriterLock.for_settings(self.kb.settings):
            results = remove_documents(self.kb, [Path(doc.path)])
        return sum(r.chunks for r in results)

    def collections(self) -> list[dict[str, Any]]:
        """Every collection with its document and chunk counts."""
        with self.kb.db.session() as s:
            counts = catalogue.collection_counts(s)
        return [
            {"name": n, "documents": counts[n][0], "chunks": counts[n][1]} for n in sorted(counts)
        ]
