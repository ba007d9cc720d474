"""Helpers for watcher tests: a real watcher thread on a temporary folder, bounded waits."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import select

from core.db.models import Chunk, Document, LedgerEntry
from core.knowledge import KnowledgeBase
from core.settings import WatchSettings
from ingest.files import sha256_of
from ingest.ignore import IgnoreRules
from ingest.pipeline import IngestPipeline
from ingest.watcher import FolderWatcher, create_watcher
from tests.integration.test_pipeline import assert_in_step


@contextmanager
def watching(
    pipeline: IngestPipeline, folder: Path, quiet: float = 0.5, **kw: object
) -> Iterator[FolderWatcher]:
    """A real watcher on ``folder`` in a background thread, reconciled before the body runs."""
    settings = WatchSettings(quiet_seconds=quiet, **kw)  # type: ignore[arg-type]
    watcher = create_watcher(pipeline, settings, [folder.resolve()])
    watcher.start()
    try:
        yield watcher
    finally:
        watcher.stop()
        assert watcher.error is None, repr(watcher.error)


def wait_until(check: Callable[[], bool], timeout: float = 120.0, what: str = "") -> None:
    """Poll ``check`` until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"not reached within {timeout} s: {what}")


def folder_state(folder: Path) -> dict[str, str]:
    """Path -> sha256 of every watched file below ``folder``."""
    root = folder.resolve()
    return {str(p): sha256_of(p) for p in IgnoreRules([root]).walk(root)}


def catalogue_state(kb: KnowledgeBase, folder: Path | None = None) -> dict[str, str]:
    """Path -> sha256 of every file's document in the catalogue (not of what a file carries:
    an e-mail's attachments have no file in the folder).

    A failed document has no hash; with ``folder`` given it counts as the file's current hash, so
    a file that cannot be read still "matches" once it is recorded as failed.
    """
    with kb.db.session() as s:
        docs = list(s.scalars(select(Document).where(Document.parent_id.is_(None))))
    out = {d.path: d.sha256 or "" for d in docs}
    if folder is not None:
        for d in docs:
            if d.status == "failed" and Path(d.path).exists():
                out[d.path] = sha256_of(Path(d.path))
    return out


def settle(
    watcher: FolderWatcher, kb: KnowledgeBase, folder: Path, timeout: float = 120.0
) -> set[int]:
    """Wait until the watcher is idle and the catalogue is the folder; check every store."""

    def done() -> bool:
        return watcher.idle and catalogue_state(kb, folder) == folder_state(folder) and watcher.idle

    try:
        wait_until(done, timeout, "catalogue equals folder")
    except AssertionError:
        have, want = catalogue_state(kb, folder), folder_state(folder)
        extra = sorted(set(have.items()) - set(want.items()))[:5]
        missing = sorted(set(want.items()) - set(have.items()))[:5]
        raise AssertionError(f"catalogue has extra {extra}, lacks {missing}") from None
    ids = assert_in_step(kb)
    assert_content_matches(kb, folder)
    return ids


def assert_content_matches(kb: KnowledgeBase, folder: Path) -> None:
    """Each file's first line is found in its document's chunks and in no other document's."""
    with kb.db.session() as s:
        for path in folder_state(folder):
            if not path.endswith((".txt", ".md")):
                continue
            marker = Path(path).read_text().splitlines()[0]
            owners = set(
                s.scalars(
                    select(Document.path)
                    .join(Chunk, Chunk.document_id == Document.id)
                    .where(Chunk.text.contains(marker))
                )
            )
            assert owners == {path}, (marker, owners)


def _chunks_of(kb: KnowledgeBase, path: Path) -> list[tuple[int, str]]:
    """(id, text) of each chunk of the document at ``path``, in order."""
    with kb.db.session() as s:
        rows = s.execute(
            select(Chunk.id, Chunk.text)
            .join(Document, Chunk.document_id == Document.id)
            .where(Document.path == str(path.resolve()))
            .order_by(Chunk.ordinal)
        )
        return [(chunk_id, text) for chunk_id, text in rows]


def chunk_ids_of(kb: KnowledgeBase, path: Path) -> set[int]:
    """The chunk ids of the document at ``path``."""
    return {chunk_id for chunk_id, _ in _chunks_of(kb, path)}


def chunk_texts_of(kb: KnowledgeBase, path: Path) -> list[str]:
    """The chunk texts of the document at ``path``, in order."""
    return [text for _, text in _chunks_of(kb, path)]


def ledger_actions(kb: KnowledgeBase, path: Path) -> list[str]:
    """Every ledger action recorded for ``path``, oldest first."""
    with kb.db.session() as s:
        rows = s.scalars(
            select(LedgerEntry.action)
            .where(LedgerEntry.path == str(path.resolve()))
            .order_by(LedgerEntry.id)
        )
        return list(rows)


def note(folder: Path, name: str, marker: str, extra: str = "") -> Path:
    """Write a small text file whose first line is a unique marker."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{marker}\n{extra or 'A short note kept in the watched folder.'}\n")
    return path
