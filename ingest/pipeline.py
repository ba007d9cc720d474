"""The ingest pipeline: ledger -> loader -> chunker -> embedder -> catalogue + vector stores."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from sqlalchemy.orm import Session

from core import catalogue
from core.catalogue import DONE, Action, DocumentStatus, DocumentVersion
from core.db.models import Document
from core.embedder import Embedder
from core.errors import LoaderError, PayloadTooLargeError
from core.knowledge import KnowledgeBase
from core.memsize import trim_heap
from core.types import ChunkDraft, Section
from ingest.attachments import AttachmentIngester
from ingest.chunker import Chunker
from ingest.files import iter_files, link_problem, sha256_of
from ingest.loaders import LoaderContext, Loaders, file_type_of
from ingest.loaders.base import (
    READ_ERRORS,
    Attachment,
    LoadedFile,
    Loader,
    failure_reason,
    load_file,
)
from ingest.reading import Readings
from ingest.spool import Spool, VectorCache, trimmed
from ingest.titles import document_title, embedding_texts, nothing_found

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileResult:
    """What happened to one file: added, updated, unchanged, empty, failed, moved or removed.

    A failed file has the reason in ``error`` and the class name of the exception that stopped it
    in ``error_kind`` (``"UnsupportedTypeError"``, ``"LoaderError"``, ``"PermissionError"``...).
    """

    path: str
    action: Action
    chunks: int = 0
    error: str | None = None
    attachments: int = 0
    error_kind: str | None = None


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
        return sum(r.chunks for r in self.results if r.action in (Action.ADDED, Action.UPDATED))

    @property
    def failures(self) -> list[FileResult]:
        """The files that failed, with their reasons."""
        return [r for r in self.results if r.action == Action.FAILED]


def too_large(name: str, size: int, limit: int) -> str:
    """The reason a file over ``ingest.max_file_bytes`` is refused."""
    return (
        f"{name}: {size} bytes is over the {limit} byte limit "
        "(setting ingest.max_file_bytes); split the file or raise the limit"
    )


Progress = Callable[[FileResult], None]
#: ``within(path, fraction)``: how far the file at ``path`` is (0-1) while a large one is read.
Within = Callable[[str, float], None]
#: Chunks embedded together across files.
EMBED_BATCH = 64
#: Files larger than this are streamed (:meth:`IngestPipeline._stream`): read (when the loader
#: can, ``StreamingLoader``), chunked, embedded and written a batch at a time, so memory stays
#: bounded whatever their size; smaller ones are embedded together with their neighbours.
STREAM_FROM_BYTES = 1 << 20
#: Chunks written to the catalogue, and vectors to the stores, at a time for a streamed file.
WRITE_BATCH = 2048
#: Batches written to the stores between two :func:`core.memsize.trim_heap` (16: 32k vectors).
TRIM_EVERY = 16


@dataclass
class _File:
    """A file to ingest: its path, catalogue key, content hash, size, type and collection."""

    path: Path
    key: str
    sha: str
    size: int
    file_type: str
    collection: str


@dataclass
class _Prepared(_File):
    """A file loaded and chunked, waiting for its embeddings."""

    loaded: LoadedFile
    drafts: list[ChunkDraft]
    started: float


@dataclass
class _Streamed(_File):
    """A large file whose sections are read as its chunks are embedded (:meth:`_stream`)."""

    #: (section, how far the file is read, 0-1) in order; a section continues the previous one
    #: when ``continued`` and their provenance is equal (a streamed text's blocks).
    sections: Iterator[tuple[Section, float]]
    continued: bool
    attachments: list[Attachment]
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
        self.readings = Readings(self.chunker)
        self.attachments = AttachmentIngester(kb, self.loaders, self.chunker, embedder)

    def ingest(
        self,
        paths: Iterable[Path],
        collection: str = "default",
        progress: Progress | None = None,
        within: Within | None = None,
    ) -> IngestReport:
        """Ingest files; a failing file never stops the batch.

        Files are loaded and chunked one by one, and their chunks embedded together in batches of
        about ``EMBED_BATCH`` chunks (many small files embed about 3x faster than one by one).
        A file over ``STREAM_FROM_BYTES`` is streamed on its own, ``within`` told how far it is
        after each batch.
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
                if isinstance(item, _Streamed):
                    for result in self._finish_batch(pending):
                        emit(result)
                    pending = []
                    emit(self._stream(item, within))
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
        follow = self.kb.settings.ingest.follow_symlinks
        return self.ingest(list(iter_files(paths, follow_symlinks=follow)), collection, progress)

    def ingest_file(self, path: Path, collection: str = "default") -> FileResult:
        """Ingest one file. Unchanged content is skipped; changed content replaces its chunks."""
        return self.ingest([path], collection).results[0]

    def _prepare(self, path: Path, collection: str) -> FileResult | _Prepared | _Streamed:
        """Hash, skip if unchanged, load and chunk; a failure is recorded and returned."""
        # Recorded under the path it is given (a link's own path, not its target's): callers
        # hand over catalogue paths (ingest.files.catalogue_path, or found below one).
        path = Path(os.path.abspath(path.expanduser()))
        key = str(path)
        started = time.perf_counter()
        sha: str | None = None
        try:
            if problem := link_problem(path):  # broken, or a loop: one failed file
                raise LoaderError(problem)
            size = path.stat().st_size
            limit = self.kb.settings.ingest.max_file_bytes
            if size > limit:
                raise PayloadTooLargeError(too_large(path.name, size, limit))
            sha = sha256_of(path)
            with self.kb.db.session() as s:
                doc = catalogue.document_at(s, key)
                if (
                    doc is not None
                    and doc.status in DONE
                    and doc.sha256 == sha
                    and doc.collection == collection
                    and self._read_as_now(s, doc)
                ):
                    self._ledger(s, key, sha, Action.UNCHANGED, None, doc.chunk_count, started)
                    return FileResult(key, Action.UNCHANGED, doc.chunk_count)
            loader = self.loaders.for_path(path)
            if size > STREAM_FROM_BYTES:
                return self._streamed(loader, path, key, sha, size, collection, started)
            loaded = load_file(loader, path)
            drafts = self.chunker.chunk(loaded.sections)
        except READ_ERRORS as exc:
            return self._failed(key, sha, path, exc, started, collection)
        return _Prepared(
            path, key, sha, size, loader.file_type, collection, loaded, drafts, started
        )

    def _read_as_now(self, s: Session, doc: Document) -> bool:
        """Whether ``doc`` and what it carries were read as they would be now (ingest/reading.py);
        otherwise its unchanged file is read again."""
        carried = catalogue.carried_readings(s, [doc.id]).get(doc.id)
        return self.readings.current(doc.file_type, doc.reading, carried)

    def _streamed(
        self,
        loader: Loader,
        path: Path,
        key: str,
        sha: str,
        size: int,
        collection: str,
        started: float,
    ) -> _Streamed:
        """A large file to stream: read by the loader's ``stream`` when it has one, else loaded
        whole (its sections are then chunked and embedded a batch at a time all the same)."""
        attachments: list[Attachment] = []
        stream = getattr(loader, "stream", None)
        if stream is not None:
            sections: Iterator[tuple[Section, float]] = (
                (section, read / size) for section, read in stream(path)
            )
        else:
            loaded = load_file(loader, path)
            attachments = loaded.attachments
            total = max(1, len(loaded.sections))
            sections = ((s, (i + 1) / total) for i, s in enumerate(loaded.sections))
        return _Streamed(
            path,
            key,
            sha,
            size,
            loader.file_type,
            collection,
            sections,
            stream is not None,
            attachments,
            started,
        )

    def _stream(self, item: _Streamed, within: Within | None) -> FileResult:
        """Chunk and embed a large file a batch at a time into a :class:`Spool` on disk, then
        commit its version in one transaction (read back from the spool) and write the stores;
        memory holds one batch whatever the file's size, and nothing of the new version is
        visible before the commit, as for any file."""
        dimension = self.embedder.dimension
        with Spool(self.kb.settings.data_dir, dimension) as spool:
            try:
                title = self._spool(item, spool, within)
            except READ_ERRORS as exc:
                return self._failed(
                    item.key, item.sha, item.path, exc, item.started, item.collection
                )
            trim_heap()  # what embedding freed, before the stores grow
            empty = np.zeros((0, dimension), dtype=np.float32)
            version = self._version(item, [], empty, title, item.started)
            version = replace(version, batches=spool.batches(WRITE_BATCH))
            done = self.kb.commit(version)
            vectors = (v for _, v in spool.batches(WRITE_BATCH))
            self.kb.write_vector_batches(done, trimmed(vectors, TRIM_EVERY))
        trim_heap()
        children = self.attachments.replace(
            done.document_id, item.key, item.attachments, item.collection
        )
        return FileResult(item.key, done.action, len(done.new_ids), attachments=children)

    def _spool(self, item: _Streamed, spool: Spool, within: Within | None) -> str:
        """Read, chunk and embed the file into ``spool``; returns the document's title."""
        share = 0.0

        def sections() -> Iterator[Section]:
            nonlocal share
            for section, share in item.sections:  # noqa: B007 - read by the loop below
                yield section

        title: str | None = None
        cache = VectorCache(self.embedder)
        for drafts in self.chunker.stream(sections(), continued=item.continued):
            if title is None:
                title = document_title(drafts)
            spool.add(drafts, cache.embed(embedding_texts(drafts, title)))
            if within:
                within(item.key, min(share, 1.0))
        return title or ""

    def _failed(
        self,
        key: str,
        sha: str | None,
        path: Path,
        exc: BaseException,
        started: float,
        collection: str = "default",
    ) -> FileResult:
        reason = failure_reason(path.name, exc)
        self._record_failure(key, sha, path, reason, started, collection)
        return FileResult(key, Action.FAILED, error=reason, error_kind=type(exc).__name__)

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

    def _version(
        self, item: _File, drafts: list[ChunkDraft], vectors: np.ndarray, title: str, started: float
    ) -> DocumentVersion:
        return DocumentVersion(
            path=item.key,
            sha256=item.sha,
            size=item.size,
            file_type=item.file_type,
            collection=item.collection,
            drafts=drafts,
            vectors=vectors,
            title=title,
            empty_reason=nothing_found(item.path.name, item.file_type, item.size),
            started=started,
            reading=self.readings.of(item.file_type),
        )

    def _store(self, item: _Prepared, vectors: np.ndarray) -> FileResult:
        title = document_title(item.drafts)
        version = self._version(item, item.drafts, vectors, title, item.started)
        done = self.kb.commit(version)
        self.kb.write_vectors(done, vectors)
        children = self.attachments.replace(
            done.document_id, item.key, item.loaded.attachments, item.collection
        )
        return FileResult(item.key, done.action, len(done.new_ids), attachments=children)

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
            doc = catalogue.document_at(s, key)
            if doc is None:
                ftype = file_type_of(path) or path.suffix.lower().lstrip(".")
                catalogue.add_failed(s, key, reason, ftype, collection=collection)
            elif doc.status == DocumentStatus.FAILED:
                doc.error = reason
            self._ledger(s, key, sha, Action.FAILED, reason, 0, started)

    @staticmethod
    def _ledger(
        s: Session,
        key: str,
        sha: str | None,
        action: Action,
        error: str | None,
        chunks: int,
        started: float,
    ) -> None:
        duration_ms = int((time.perf_counter() - started) * 1000)
        catalogue.ledger(s, key, sha, action, error=error, chunks=chunks, duration_ms=duration_ms)
