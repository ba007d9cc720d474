"""Bringing re-ingested folders up to date: what `hearth ingest DIR` ingested from DIR before and
is no longer there is removed, or moved when the same content turned up at another path.

The decision is the watcher's (:class:`ingest.sync.FolderSync`): only the catalogue documents
below the folders that vanished, and the files that are new to the catalogue (their possible new
paths), are handed to it. Uploaded files (``<data_dir>/uploads``) are never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ingest.files import catalogue_path
from ingest.ignore import IgnoreRules
from ingest.pipeline import FileResult, IngestPipeline
from ingest.sync import FolderSync


def prune_folders(
    pipeline: IngestPipeline, folders: Sequence[Path], files: Sequence[Path], collection: str
) -> tuple[list[FileResult], set[Path]]:
    """Apply removals and moves below ``folders`` given the ``files`` found there now.

    Returns the results (``moved``, ``removed``, and ``added``/``failed`` for the new files the
    sync ingested while pairing moves) and the set of files already handled.
    """
    roots = [catalogue_path(f) for f in folders]
    if not roots:
        return [], set()
    uploads = pipeline.kb.settings.data_dir.expanduser().resolve() / "uploads"
    follow = pipeline.kb.settings.ingest.follow_symlinks
    rules = IgnoreRules(roots, ignore=(), skip=[uploads], follow_symlinks=follow)
    sync = FolderSync(pipeline, rules, collection=collection)
    here = {str(f) for f in files}
    known: set[str] = set()
    for root in roots:
        known.update(str(p) for p in sync.documents_under(root))
    gone = {Path(k) for k in known - here if not Path(k).is_relative_to(uploads)}
    if not gone:
        return [], set()
    new = {f for f in files if str(f) not in known and rules.root_of(f) is not None}
    results = sync.apply(gone | new)
    return results, {Path(r.path) for r in results}
