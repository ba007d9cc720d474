"""Files carried inside other files (e-mail attachments), ingested as linked documents."""

from __future__ import annotations

import hashlib
import logging
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select

from core.db.models import Chunk, Document, LedgerEntry
from core.errors import HearthError, LoaderError
from core.types import Section
from ingest.loaders.base import Attachment, load_file
from ingest.titles import embedding_texts

if TYPE_CHECKING:
    from ingest.pipeline import IngestPipeline

log = logging.getLogger(__name__)

# An attachment may carry attachments (a forwarded message); deeper nesting is not followed.
MAX_DEPTH = 3


def attachment_key(parent_key: str, index: int, name: str) -> str:
    """The catalogue path of a carried file: ``/mail/x.eml#attachment/2/report.pdf``."""
    return f"{parent_key}#attachment/{index}/{name}"


def descendant_ids(session: object, parent_ids: list[int]) -> list[int]:
    """Ids of every document carried (at any depth) by these documents."""
    found: list[int] = []
    frontier = list(parent_ids)
    while frontier:
        rows = list(
            session.scalars(  # type: ignore[attr-defined]
                select(Document.id).where(Document.parent_id.in_(frontier))
            )
        )
        found.extend(rows)
        frontier = rows
    return found


class AttachmentIngester:
    """Replaces the documents carried by one document with those of its current version."""

    def __init__(self, pipeline: IngestPipeline) -> None:
        self.pipeline = pipeline
        self.kb = pipeline.kb

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
            doc_ids = descendant_ids(s, [parent_id])
            if not doc_ids:
                return
            chunk_ids = list(s.scalars(select(Chunk.id).where(Chunk.document_id.in_(doc_ids))))
            docs = {d.id: d for d in s.scalars(select(Document).where(Document.id.in_(doc_ids)))}
            for doc_id in reversed(doc_ids):  # deepest first: the cascade must not race
                s.delete(docs[doc_id])
                s.flush()
        for store in self.kb.stores.values():
            store.delete(chunk_ids)

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
        pipeline = self.pipeline
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
                loader = pipeline.loaders.for_path(path)
                loaded = load_file(loader, path)
                sections = [
                    Section(s.text, {**attachment.provenance, **s.provenance})
                    for s in loaded.sections
                ]
                drafts = pipeline.chunker.chunk(sections)
                vectors = pipeline.embedder.embed(embedding_texts(drafts))
            except (HearthError, OSError, MemoryError, RecursionError, UnicodeError) as exc:
                reason = exc.message if isinstance(exc, HearthError) else str(exc)
                self._record_failure(parent_id, key, sha, f"{carrier}, attachment {reason}")
                return 0
        _, doc_id, old_ids, new_ids, metas = pipeline._commit(
            key,
            attachment.name,
            sha,
            len(attachment.data),
            loader.file_type,
            collection,
            drafts,
            vectors,
            started,
            parent_id=parent_id,
        )
        pipeline.write_stores(old_ids, new_ids, vectors, metas)
        if loaded.attachments and depth < MAX_DEPTH:
            return 1 + self._ingest_all(doc_id, key, loaded.attachments, collection, depth + 1)
        return 1

    def _record_failure(self, parent_id: int, key: str, sha: str, reason: str) -> None:
        log.debug("attachment failed: %s: %s", key, reason)
        suffix = Path(key).suffix.lower().lstrip(".")
        with self.kb.db.session() as s:
            s.add(
                Document(
                    path=key,
                    sha256=sha,
                    status="failed",
                    error=reason,
                    file_type=suffix[:32],
                    parent_id=parent_id,
                )
            )
            s.add(LedgerEntry(path=key, sha256=sha, action="failed", error=reason))
