"""The ingest pipeline: ledger -> loader -> chunker -> embedder -> catalogue + vector stores."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sqlalchemy import delete, select

from core.db.models import Chunk, Document, LedgerEntry
from core.embedder import Embedder
from core.errors import HearthError, LoaderError, PayloadTooLargeError
from core.knowledge import KnowledgeBase, chunk_metadata
from core.types import ChunkDraft
from ingest.chunker import Chunker
from ingest.files import iter_files, sha256_of
from ingest.loaders import LoaderContext, Loaders, file_type_of
from ingest.loaders.base import LoadedFile, load_file
from ingest.titles import document_title, embedding_texts

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileResult:
    """What happened to one file: added, updated, unchanged, empty, failed or removed."""

    path: str
    action: str
    chunks: int = 0
    error: str | None = None
    attachments: int = 0


@dataclass
class IngestReport:
    """Every file's result and the totals of a batch."""

    results: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, action: str) -> int:
        """How many files ended with this action."""
        return sum(1 for r in self.results if r.action == action)

    @property
    def chunks(self) -> int:
        """Chunks written in this batch."""
        return sum(r.chunks for r in self.results if r.action in ("added", "updated"))

    @property
    def failures(self) -> list[FileResult]:
        """The files that failed, with their reasons."""
        return [r for r in self.results if r.action == "failed"]


def too_large(name: str, size: int, limit: int) -> str:
    """The reason a file over ``ingest.max_file_bytes`` is refused."""
    return (
        f"{name}: {size} bytes is over the {limit} byte limit "
        "(setting ingest.max_file_bytes); split the file or raise the limit"
    )


_NOTHING = {
    "audio": "no speech found in the recording",
    "image": "no text found in the image (OCR read nothing)",
}


def nothing_found(name: str, file_type: str, size: int) -> str:
    """Why a file that was read gave no chunks."""
    if size == 0:
        return f"{name}: the file is empty (0 bytes)"
    return f"{name}: {_NOTHING.get(file_type, 'no text found')}"


Progress = Callable[[FileResult], None]
#: Chunks embedded together across files.
EMBED_BATCH = 64


@dataclass
class _Prepared:
    """A file loaded and chunked, waiting for its embeddings."""

    path: Path
    key: str
    sha: str
    size: int
    file_type: str
    collection: str
    loaded: LoadedFile
    drafts: list[ChunkDraft]
    started: float


class IngestPipeline:
    """Ingests files into one knowledge base; the catalogue is written first, then the stores."""

    def __init__(
        self, kb: KnowledgeBase, embedder: Embedder, context: LoaderContext | None = None
    ) -> None:
        self.kb = kb
        self.embedder = embedder
        self.loaders = Loaders(context or LoaderContext.create(kb.settings))
        cfg = kb.settings.chunking
        self.chunker = Chunker(
            embedder.count_tokens,
            embedder.token_offsets,
            chunk_tokens=min(cfg.chunk_tokens, embedder.max_tokens),
            overlap_tokens=cfg.overlap_tokens,
        )

    def ingest(
        self, paths: Iterable[Path], collection: str = "default", progress: Progress | None = None
    ) -> IngestReport:
        """Ingest files; a failing file never stops the batch.

        Files are loaded and chunked one by one, and their chunks embedded together in batches of
        about ``EMBED_BATCH`` chunks (many small files embed about 3x faster than one by one).
        """
        started = time.perf_counter()
        report = IngestReport()
        save_every = self.kb.settings.ingest.faiss_save_every
        pending: list[_Prepared] = []

        def emit(result: FileResult) -> None:
            report.results.append(result)
            if progress:
                progress(result)
            if len(report.results) % save_every == 0:
                self.kb.persist()

        try:
            for path in paths:
                item = self._prepare(path, collection)
                if isinstance(item, FileResult):
                    emit(item)
                    continue
                pending.append(item)
                if sum(len(p.drafts) for p in pending) >= EMBED_BATCH:
                    for result in self._finish_batch(pending):
                        emit(result)
                    pending = []
            for result in self._finish_batch(pending):
                emit(result)
        finally:
            self.kb.persist()
        report.seconds = time.perf_counter() - started
        return report

    def ingest_paths(
        self, paths: list[Path], collection: str = "default", progress: Progress | None = None
    ) -> IngestReport:
        """Expand folders, then :meth:`ingest`."""
        return self.ingest(list(iter_files(paths)), collection, progress)

    def ingest_file(self, path: Path, collection: str = "default") -> FileResult:
        """Ingest one file. Unchanged content is skipped; changed content replaces its chunks."""
        return self.ingest([path], collection).results[0]

    def _prepare(self, path: Path, collection: str) -> FileResult | _Prepared:
        """Hash, skip if unchanged, load and chunk; a failure is recorded and returned."""
        link = path.expanduser()
        path = link.resolve()
        broken = link.is_symlink() and not path.exists()
        if broken:  # recorded under the link's own path: its target names nothing
            path = link.parent.resolve() / link.name
        key = str(path)
        started = time.perf_counter()
        sha: str | None = None
        try:
            if broken:
                raise LoaderError(
                    f"{link.name}: a broken symbolic link (its target {link.readlink()} does not "
                    "exist); fix or remove the link"
                )
            size = path.stat().st_size
            limit = self.kb.settings.ingest.max_file_bytes
            if size > limit:
                raise PayloadTooLargeError(too_large(path.name, size, limit))
            sha = sha256_of(path)
            with self.kb.db.session() as s:
                doc = s.scalar(select(Document).where(Document.path == key))
                done = doc is not None and doc.status in ("ingested", "empty")
                if doc and done and doc.sha256 == sha and doc.collection == collection:
                    self._ledger(key, sha, "unchanged", None, doc.chunk_count, started)
                    return FileResult(key, "unchanged", doc.chunk_count)
            loader = self.loaders.for_path(path)
            loaded = load_file(loader, path)
            drafts = self.chunker.chunk(loaded.sections)
        except (HearthError, OSError, MemoryError, RecursionError, UnicodeError) as exc:
            return self._failed(key, sha, path, exc, started, collection)
        return _Prepared(
            path, key, sha, size, loader.file_type, collection, loaded, drafts, started
        )

    def _failed(
        self,
        key: str,
        sha: str | None,
        path: Path,
        exc: BaseException,
        started: float,
        collection: str = "default",
    ) -> FileResult:
        reason = exc.message if isinstance(exc, HearthError) else f"{path.name}: {exc}"
        self._record_failure(key, sha, path, reason, started, collection)
        return FileResult(key, "failed", error=reason)

    def _finish_batch(self, batch: list[_Prepared]) -> list[FileResult]:
        """Embed the batch's chunks in one call, then commit and store file by file."""
        if not batch:
            return []
        try:
            vectors = self.embedder.embed([t for p in batch for t in embedding_texts(p.drafts)])
        except (MemoryError, RuntimeError):
            if len(batch) == 1:
                raise
            return [r for p in batch for r in self._finish_batch([p])]
        results = []
        offset = 0
        for item in batch:
            mine = vectors[offset : offset + len(item.drafts)]
            offset += len(item.drafts)
            results.append(self._store(item, mine))
        return results

    def _store(self, item: _Prepared, vectors: np.ndarray) -> FileResult:
        action, doc_id, old_ids, new_ids, metas = self._commit(
            item.key,
            item.path.name,
            item.sha,
            item.size,
            item.file_type,
            item.collection,
            item.drafts,
            vectors,
            item.started,
        )
        self.write_stores(old_ids, new_ids, vectors, metas)
        from ingest.attachments import AttachmentIngester

        children = AttachmentIngester(self).replace(
            doc_id, item.key, item.loaded.attachments, item.collection
        )
        return FileResult(item.key, action, len(new_ids), attachments=children)

    def write_stores(
        self, old_ids: list[int], new_ids: list[int], vectors: np.ndarray, metas: dict[str, object]
    ) -> None:
        """Replace a document's vectors in every store (after the catalogue has committed)."""
        for store in self.kb.stores.values():
            store.delete(old_ids)
            if new_ids:
                store.add(new_ids, vectors, [metas] * len(new_ids))

    def _commit(
        self,
        key: str,
        name: str,
        sha: str,
        size: int,
        file_type: str,
        collection: str,
        drafts: list[ChunkDraft],
        vectors: np.ndarray,
        started: float,
        parent_id: int | None = None,
    ) -> tuple[str, int, list[int], list[int], dict[str, object]]:
        """Replace the document's chunks in one transaction; returns its id, old and new chunk ids.

        ``key`` is the document's path (a file, or ``file#attachment/N/name`` for a carried file).
        """
        with self.kb.db.session() as s:
            doc = s.scalar(select(Document).where(Document.path == key))
            action = "updated" if doc and doc.status in ("ingested", "empty") else "added"
            if doc is None:
                doc = Document(path=key)
                s.add(doc)
            old_ids = list(s.scalars(select(Chunk.id).where(Chunk.document_id == doc.id)))
            if old_ids:
                s.execute(delete(Chunk).where(Chunk.document_id == doc.id))
            doc.parent_id = parent_id
            doc.collection = collection
            doc.sha256 = sha
            doc.size_bytes = size
            doc.file_type = file_type
            doc.status = "ingested" if drafts else "empty"
            doc.error = None if drafts else nothing_found(name, file_type, size)
            doc.chunk_count = len(drafts)
            doc.ingested_at = datetime.now(UTC)
            s.flush()
            title = document_title(drafts)
            rows = [
                Chunk(
                    document_id=doc.id,
                    ordinal=d.ordinal,
                    text=d.text,
                    title=title,
                    token_count=d.token_count,
                    provenance=d.provenance,
                    embedding=vectors[i].astype(np.float32).tobytes(),
                )
                for i, d in enumerate(drafts)
            ]
            s.add_all(rows)
            s.flush()
            new_ids = [r.id for r in rows]
            metas = chunk_metadata(doc)
            action = action if drafts else "empty"
            self._ledger(key, sha, action, doc.error, len(rows), started, s)
            doc_id = doc.id
        return action, doc_id, old_ids, new_ids, metas

    def _record_failure(
        self,
        key: str,
        sha: str | None,
        path: Path,
        reason: str,
        started: float,
        collection: str = "default",
    ) -> None:
        """Ledger a failure; a new file gets a failed document row, a known one keeps its chunks."""
        log.debug("ingest failed for %s: %s", key, reason)
        with self.kb.db.session() as s:
            doc = s.scalar(select(Document).where(Document.path == key))
            if doc is None:
                ftype = file_type_of(path) or path.suffix.lower().lstrip(".")
                s.add(
                    Document(
                        path=key,
                        collection=collection,
                        sha256=None,
                        status="failed",
                        error=reason,
                        file_type=ftype[:32],
                    )
                )
            elif doc.status == "failed":
                doc.error = reason
            self._ledger(key, sha, "failed", reason, 0, started, s)

    def _ledger(
        self,
        key: str,
        sha: str | None,
        action: str,
        error: str | None,
        chunks: int,
        started: float,
        session: object | None = None,
    ) -> None:
        entry = LedgerEntry(
            path=key,
            sha256=sha,
            action=action,
            error=error,
            chunk_count=chunks,
            duration_ms=int((time.perf_counter() - started) * 1000),
        )
        if session is not None:
            session.add(entry)  # type: ignore[attr-defined]
            return
        with self.kb.db.session() as s:
            s.add(entry)
