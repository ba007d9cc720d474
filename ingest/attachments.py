"""Files carried inside other files (e-mail attachments), ingested as linked documents."""

from __future__ import annotations

import hashlib
import logging
import tempfile
import time
from pathlib import Path

from core import catalogue
from core.catalogue import Action, DocumentVersion
from core.embedder import Embedder
from core.errors import LoaderError
from core.knowledge import KnowledgeBase
from core.types import Section
from ingest.chunker import Chunker
from ingest.loaders import Loaders
from ingest.loaders.base import READ_ERRORS, Attachment, failure_reason, load_file
from ingest.reading import Readings
from ingest.titles import document_title, embedding_texts, nothing_found

log = logging.getLogger(__name__)

# An attachment may carry attachments (a forwarded message); deeper nesting is not followed.
MAX_DEPTH = 3


def attachment_key(parent_key: str, index: int, name: str) -> str:
    """The catalogue path of a carried file: ``/mail/x.eml#attachment/2/report.pdf``."""
    return f"{parent_key}#attachment/{index}/{name}"


class AttachmentIngester:
    """Replaces the documents carried by one document with those of its current version."""

    def __init__(
        self, kb: KnowledgeBase, loaders: Loaders, chunker: Chunker, embedder: Embedder
    ) -> None:
        self.kb = kb
        self.loaders = loaders
        self.chunker = chunker
        self.embedder = embedder
        self.readings = Readings(chunker)

    def replace(
        self, parent_id: int, parent_key: str, attachments: list[Attachment], collection: str
    ) -> int:
        """Drop the old carried documents, ingest the new ones; returns how many were ingested.

        A failing attachment is recorded as a failed document linked to its carrier; the
        carrier and its other attachments still count.
        """
        self._drop_children(parent_id)
        return self._ingest_all(parent_id, parent_key, attachments, collection, 1)

    def _drop_children(self, parent_id: int) -> None:
        with self.kb.db.session() as s:
            doc_ids = catalogue.descendant_ids(s, [parent_id])
            if not doc_ids:
                return
            chunk_ids = catalogue.chunk_ids_of(s, doc_ids)
            docs = catalogue.documents_by_id(s, doc_ids)
            catalogue.delete_documents(s, [docs[i] for i in doc_ids])
        self.kb.delete_vectors(chunk_ids)

    def _ingest_all(
        self,
        parent_id: int,
        parent_key: str,
        attachments: list[Attachment],
        collection: str,
        depth: int,
    ) -> int:
        done = 0
        for index, attachment in enumerate(attachments, start=1):
            key = attachment_key(parent_key, index, attachment.name)
            done += self._ingest_one(parent_id, key, attachment, collection, depth)
        return done

    def _ingest_one(
        self, parent_id: int, key: str, attachment: Attachment, collection: str, depth: int
    ) -> int:
        started = time.perf_counter()
        sha = hashlib.sha256(attachment.data).hexdigest()
        carrier = Path(key.split("#", 1)[0]).name
        with tempfile.TemporaryDirectory(prefix="hearth-att-") as tmp:
            path = Path(tmp) / (Path(attachment.name.replace("\\", "/")).name or "attachment")
            try:
                limit = self.kb.settings.ingest.max_file_bytes
                if len(attachment.data) > limit:
                    raise LoaderError(f"{attachment.name}: over the {limit} byte limit")
                path.write_bytes(attachment.data)
                loader = self.loaders.for_path(path)
                loaded = load_file(loader, path)
                sections = [
                    Section(s.text, {**attachment.provenance, **s.provenance})
                    for s in loaded.sections
                ]
                drafts = self.chunker.chunk(sections)
                vectors = self.embedder.embed(embedding_texts(drafts))
            except READ_ERRORS as exc:
                reason = failure_reason(attachment.name, exc)
                self._record_failure(parent_id, key, sha, f"{carrier}, attachment {reason}")
                return 0
        size = len(attachment.data)
        version = DocumentVersion(
            path=key,
            sha256=sha,
            size=size,
            file_type=loader.file_type,
            collection=collection,
            drafts=drafts,
            vectors=vectors,
            title=document_title(drafts),
            empty_reason=nothing_found(attachment.name, loader.file_type, size),
            started=started,
            parent_id=parent_id,
            reading=self.readings.of(loader.file_type),
        )
        done = self.kb.commit(version)
        self.kb.write_vectors(done, vectors)
        if loaded.attachments and depth < MAX_DEPTH:
            return 1 + self._ingest_all(
                done.document_id, key, loaded.attachments, collection, depth + 1
            )
        return 1

    def _record_failure(self, parent_id: int, key: str, sha: str, reason: str) -> None:
        log.debug("attachment failed: %s: %s", key, reason)
        suffix = Path(key).suffix.lower().lstrip(".")
        with self.kb.db.session() as s:
            # The reading that failed: the carrier is read again only when it changes.
            reading = self.readings.of(suffix[:32])
            catalogue.add_failed(
                s, key, reason, suffix, sha=sha, parent_id=parent_id, reading=reading
            )
            catalogue.ledger(s, key, sha, Action.FAILED, error=reason)
