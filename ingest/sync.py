"""Bringing the catalogue in step with watched folders: moves, removals, then ingests in batches.

:meth:`FolderSync.apply` takes a set of file paths that may have changed and decides, against the
catalogue, what each became: a document whose path vanished while a file with the same content
hash and type appeared elsewhere was *moved* (its chunks stay, nothing is re-embedded); a
vanished path that found no partner is *removed* from every store; every other present file goes
through the pipeline, which skips it when its hash is unchanged and it was read as it would be
now (ingest/reading.py: a mended loader reads its old files again).
:meth:`FolderSync.reconcile` runs the same decision over whole folders, for what changed while
nothing watched.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core import catalogue
from core.catalogue import DONE, Action
from ingest.files import is_link_loop, sha256_of
from ingest.ignore import IgnoreRules
from ingest.loaders import file_type_of
from ingest.move import move_document
from ingest.pipeline import FileResult, IngestPipeline
from ingest.remove import remove_documents

log = logging.getLogger(__name__)

MOVABLE = DONE


class SyncProgress(Protocol):
    """Progress of one batch of ingests (the CLI draws a tqdm bar)."""

    def begin(self, total: int) -> None:
        """``total`` files are about to be ingested."""
        ...

    def step(self, result: FileResult) -> None:
        """One file is done."""
        ...

    def end(self) -> None:
        """The batch is over."""
        ...


@dataclass(frozen=True)
class _Known:
    path: str
    sha256: str | None
    file_type: str
    status: str
    chunks: int
    carried: bool  # an attachment: it follows its carrier, never judged by the file system
    read_as_now: bool  # it and what it carries were read as they would be now (ingest/reading)


class FolderSync:
    """Applies changes in watched folders to one knowledge base through its pipeline."""

    def __init__(
        self,
        pipeline: IngestPipeline,
        rules: IgnoreRules,
        *,
        batch_size: int = 50,
        collection: str = "default",
        progress: SyncProgress | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.kb = pipeline.kb
        self.rules = rules
        self.batch_size = batch_size
        self.collection = collection
        self.progress = progress

    def wanted(self, path: Path) -> bool:
        """True for an existing file that is watched and that some loader reads, and for a
        watched symbolic link loop (so the pipeline records it as failed, with its reason)."""
        if self.rules.ignored(path):
            return False
        if path.is_file():
            return file_type_of(path) is not None
        return self.rules.follow_symlinks and is_link_loop(path)

    def documents_under(self, folder: Path) -> list[Path]:
        """Paths of the catalogue's files at or below ``folder`` (not the documents they carry:
        an e-mail's attachment has no file of its own to be found or missed)."""
        with self.kb.db.session() as s:
            return [Path(p) for p in catalogue.paths_under(s, str(folder), carried=False)]

    def reconcile(self) -> list[FileResult]:
        """Compare every root with the catalogue and apply what changed while nothing watched."""
        paths: set[Path] = set()
        for root in self.rules.roots:
            paths.update(self.rules.walk(root))
            paths.update(self.documents_under(root))
        return self.apply(paths)

    def apply(self, paths: Iterable[Path]) -> list[FileResult]:
        """Decide and apply what happened to each path; one failing file never stops the rest."""
        paths = set(paths)
        known = self._known(paths)
        present = sorted(p for p in paths if self.wanted(p))
        present_keys = {str(p) for p in present}
        # A carried document goes when its carrier goes (``remove_documents`` takes what a
        # document carries), moves with it and is replaced when it is re-ingested.
        gone = {k: v for k, v in known.items() if k not in present_keys and not v.carried}
        results: list[FileResult] = []
        to_ingest: list[Path] = []
        movable = {k: v for k, v in gone.items() if v.status in MOVABLE and v.sha256}
        for path in present:
            own = known.get(str(path))
            current = own is not None and own.status in MOVABLE
            try:
                sha = sha256_of(path) if current or movable else None
            except OSError:
                sha = None  # the pipeline will record why it cannot be read
            same = own is not None and current and sha is not None and own.sha256 == sha
            if own is not None and same and own.read_as_now:
                results.append(FileResult(str(path), Action.UNCHANGED, own.chunks))
                continue
            old = self._partner(path, sha, movable)
            if old is None:
                to_ingest.append(path)
                continue
            results.append(move_document(self.kb, Path(old), path))
            del movable[old], gone[old]
        if gone:
            results += remove_documents(self.kb, [Path(k) for k in sorted(gone)])
        elif results:
            self.kb.persist()
        results += self._ingest(to_ingest)
        return results

    def _partner(self, path: Path, sha: str | None, movable: dict[str, _Known]) -> str | None:
        """The vanished document whose content (hash and type) this file has, if any."""
        if sha is None:
            return None
        ftype = file_type_of(path)
        for key, doc in sorted(movable.items()):
            if doc.sha256 == sha and doc.file_type == ftype:
                return key
        return None

    def _ingest(self, paths: list[Path]) -> list[FileResult]:
        results: list[FileResult] = []
        if not paths:
            return results
        if self.progress:
            self.progress.begin(len(paths))
        try:
            for start in range(0, len(paths), self.batch_size):
                batch = paths[start : start + self.batch_size]
                step = self.progress.step if self.progress else None
                report = self.pipeline.ingest(batch, self.collection, step)
                results += report.results
        finally:
            if self.progress:
                self.progress.end()
        failed = sum(1 for r in results if r.action == Action.FAILED)
        if failed:
            log.warning("%d of %d files failed to ingest (see the ledger)", failed, len(results))
        return results

    def _known(self, paths: set[Path]) -> dict[str, _Known]:
        readings = self.pipeline.readings
        with self.kb.db.session() as s:
            docs = catalogue.documents_at(s, (str(p) for p in paths))
            carried = catalogue.carried_readings(s, [d.id for d in docs])
            return {
                d.path: _Known(
                    d.path,
                    d.sha256,
                    d.file_type,
                    d.status,
                    d.chunk_count,
                    d.parent_id is not None,
                    readings.current(d.file_type, d.reading, carried.get(d.id)),
                )
                for d in docs
            }
