"""Symbolic links in ingested and watched folders (issue 28, item 4).

A link loop made `hearth ingest DIR` stop with ``RuntimeError: Symlink loop`` and store nothing;
a link to a file outside the folder was recorded under its target's path, so deleting the link
left the target answerable. Now a loop is one failed file with its reason, a followed link is
recorded under the link's own path (and goes when the link goes), and ``ingest.follow_symlinks``
decides the same for `hearth ingest`, `hearth watch` and the watcher's start-up sync.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from core.db.models import Document
from core.knowledge import KnowledgeBase
from core.settings import WatchSettings
from ingest.commands import EXIT_FILES_FAILED
from ingest.pipeline import IngestPipeline
from ingest.watcher import create_watcher
from tests.integration.conftest import backend_settings, run_hearth
from tests.integration.test_pipeline import assert_in_step
from tests.integration.watching import wait_until

pytestmark = pytest.mark.embedded_only(
    "path resolution in ingest and the watcher is the subject; test_watcher and "
    "test_folder_paths cover the catalogue on this pass: one pass"
)

LOOPS = ("loop1.txt", "loop2.txt", "sub/back")


def _tree(tmp_path: Path) -> Path:
    """``lib`` with plain files, links to a file and a folder outside it, and three loops."""
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "target.txt").write_text("Marker target: the boiler was serviced in May.")
    (outside / "folder" / "far.txt").write_text("Marker far: the gutters were cleared in June.")
    lib = tmp_path / "lib"
    (lib / "sub").mkdir(parents=True)
    (lib / "good.txt").write_text("Marker good: the fuse box is in the hall cupboard.")
    (lib / "sub" / "inner.txt").write_text("Marker inner: the stopcock is under the sink.")
    (lib / "linked.txt").symlink_to(outside / "target.txt")
    (lib / "linkdir").symlink_to(outside / "folder", target_is_directory=True)
    (lib / "loop1.txt").symlink_to("loop2.txt")
    (lib / "loop2.txt").symlink_to("loop1.txt")
    (lib / "sub" / "back").symlink_to("..", target_is_directory=True)  # its own ancestor
    return lib


def _documents(kb: KnowledgeBase) -> dict[str, tuple[str, str]]:
    """Path -> (status, error) of every document."""
    with kb.db.session() as s:
        rows = s.execute(select(Document.path, Document.status, Document.error))
        return {p: (st, e or "") for p, st, e in rows}


def _in(data: Path) -> dict[str, tuple[str, str]]:
    kb = KnowledgeBase(backend_settings(data))
    try:
        assert_in_step(kb)
        return _documents(kb)
    finally:
        kb.close()


def test_ingest_follows_links_under_their_own_paths_and_reports_loops(tmp_path: Path) -> None:
    lib = _tree(tmp_path)
    data = tmp_path / "data"
    done = run_hearth(data, "ingest", "-q", str(lib))
    assert done.returncode == EXIT_FILES_FAILED, done.stderr
    assert "Traceback" not in done.stderr and "RuntimeError" not in done.stderr, done.stderr
    assert "added 4" in done.stdout and "failed 3" in done.stdout, done.stdout
    docs = _in(data)
    followed = {
        str(lib / p) for p in ("good.txt", "sub/inner.txt", "linked.txt", "linkdir/far.txt")
    }
    assert {p for p, (st, _) in docs.items() if st == "ingested"} == followed
    for name in LOOPS:
        status, error = docs[str(lib / name)]
        assert status == "failed" and "symbolic link loop" in error, (name, error)
        assert f"failed: {lib / name}: {Path(name).name}: a symbolic link loop" in done.stderr
    assert not any(p.startswith(str(tmp_path / "outside")) for p in docs)

    # A linked folder is removed by its link's path.
    gone = run_hearth(data, "remove", str(lib / "linkdir"))
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout.startswith(f"removed {lib / 'linkdir' / 'far.txt'} ("), gone.stdout

    # Deleting the links (and the loops) removes their documents on the next ingest.
    for name in ("linked.txt", "linkdir", *LOOPS):
        (lib / name).unlink()
    again = run_hearth(data, "ingest", "-q", str(lib))
    assert again.returncode == 0, again.stderr
    assert f"removed: {lib / 'linked.txt'}" in again.stdout, again.stdout
    assert set(_in(data)) == {str(lib / "good.txt"), str(lib / "sub" / "inner.txt")}
    assert (tmp_path / "outside" / "target.txt").exists()

    # With ingest.follow_symlinks off, links are left out (loops too) and nothing fails.
    (lib / "linked.txt").symlink_to(tmp_path / "outside" / "target.txt")
    (lib / "loop1.txt").symlink_to("loop1.txt")
    off = run_hearth(data, "ingest", "-q", str(lib), HEARTH_INGEST__FOLLOW_SYMLINKS="false")
    assert off.returncode == 0, off.stderr
    assert "added 0" in off.stdout and "failed 0" in off.stdout, off.stdout
    assert set(_in(data)) == {str(lib / "good.txt"), str(lib / "sub" / "inner.txt")}


def test_watcher_follows_links_under_their_own_paths_and_reports_loops(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    lib = _tree(tmp_path)
    plain = {str(lib / "good.txt"), str(lib / "sub" / "inner.txt")}
    links = {str(lib / "linked.txt"), str(lib / "linkdir" / "far.txt")}
    loops = {str(lib / name) for name in LOOPS}
    watcher = create_watcher(pipeline, WatchSettings(quiet_seconds=0.3), [lib])
    watcher.start()  # returns after the start-up sync
    try:
        assert watcher.error is None, repr(watcher.error)
        docs = _documents(kb)
        assert {p for p, (st, _) in docs.items() if st == "ingested"} == plain | links
        assert {p for p, (st, _) in docs.items() if st == "failed"} == loops
        assert all("symbolic link loop" in docs[p][1] for p in loops)
        (lib / "linked.txt").unlink()
        (lib / "linkdir").unlink()

        def links_gone() -> bool:
            return watcher.idle and set(_documents(kb)) == plain | loops

        wait_until(links_gone, 60, "the deleted links' documents removed")
    finally:
        watcher.stop()
    assert watcher.error is None, repr(watcher.error)
    assert_in_step(kb)

    # Off: the start-up sync leaves links out and drops what was recorded through them.
    (lib / "linked.txt").symlink_to(tmp_path / "outside" / "target.txt")
    pipeline.kb.settings.ingest.follow_symlinks = False
    watcher = create_watcher(pipeline, WatchSettings(quiet_seconds=0.3), [lib])
    watcher.start()
    try:
        assert watcher.error is None, repr(watcher.error)
        assert set(_documents(kb)) == plain
    finally:
        watcher.stop()
    assert_in_step(kb)
