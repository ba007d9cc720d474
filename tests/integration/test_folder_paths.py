"""A folder means that exact path and what lies below it, byte for byte (issue 28, item 2).

Folder matching was a SQL ``LIKE 'folder/%'``: case-insensitive on SQLite, with ``_`` and ``%``
as wildcards, so re-ingesting, removing or watching one folder removed documents of its
neighbours (``Notes`` took ``notes``, ``q_1`` took ``q-1``, ``pct%`` took ``pctX``). Each test
here puts such neighbours side by side and checks that an operation on one leaves the others
listed and in step with the vector stores, through the catalogue itself, the real CLI and the
watcher's start-up sync, on SQLite and (scaled pass) Postgres.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from sqlalchemy import select

from core import catalogue
from core.db.models import Document
from core.knowledge import KnowledgeBase
from core.settings import WatchSettings
from ingest.pipeline import IngestPipeline
from ingest.watcher import create_watcher
from tests.integration.conftest import backend_settings, run_hearth
from tests.integration.test_pipeline import assert_in_step
from tests.integration.watching import wait_until

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")

#: Each folder operated on, and the neighbours a loose match would also have taken.
TARGETS = {
    "Notes": ["notes"],  # case
    "q_1": ["q-1", "qX1"],  # "_" matches any one character
    "pct%": ["pctX", "pct-more"],  # "%" matches anything
    "a": ["ab", "a b", "a-"],  # a string prefix of its neighbours
    NFC: [NFD, "CAFÉ"],  # the same name in NFD, and upper case beyond ASCII
    "日本": ["日本語"],  # multi-byte characters, a prefix of its neighbour
}
NEIGHBOURS = [n for names in TARGETS.values() for n in names]


def _make_tree(root: Path) -> dict[str, str]:
    """One text file in every folder; returns folder name -> the file's path."""
    files = {}
    for i, name in enumerate([*TARGETS, *NEIGHBOURS]):
        folder = root / name
        folder.mkdir()
        path = folder / f"doc{i}.txt"
        path.write_text(f"Marker {i}: the folder named {name!r} keeps note number {i}.")
        files[name] = str(path)
    return files


def _catalogue_paths(kb: KnowledgeBase) -> set[str]:
    with kb.db.session() as s:
        return set(s.scalars(select(Document.path)))


def _open(data: Path) -> KnowledgeBase:
    return KnowledgeBase(backend_settings(data))


def test_catalogue_folder_queries_are_exact(kb: KnowledgeBase, tmp_path: Path) -> None:
    root = tmp_path / "lib"
    names = [*TARGETS, *NEIGHBOURS]
    with kb.db.session() as s:
        for name in names:
            catalogue.add_failed(s, f"{root}/{name}/x.txt", "test row", "txt")
        catalogue.add_failed(s, f"{root}/{NFC}", "a file named like the folder", "txt")
    with kb.db.session() as s:
        for name in names:
            folder = f"{root}/{name}"
            want = {f"{folder}/x.txt"} | ({folder} if name == NFC else set())
            assert set(catalogue.paths_under(s, folder)) == want, name
            assert set(catalogue.paths_under(s, folder + "/")) == {f"{folder}/x.txt"}, name
            assert {d.path for d in catalogue.documents_under(s, folder)} == want, name
            assert catalogue.any_under(s, folder), name
        assert len(catalogue.paths_under(s, str(root))) == len(names) + 1
        for absent in ["Q_1", "pct", "pct_", "pct%%", "a_", "日", "cafe", "NOTES"]:
            assert not catalogue.any_under(s, f"{root}/{absent}"), absent
            assert catalogue.paths_under(s, f"{root}/{absent}") == [], absent


def test_reingest_and_remove_of_a_folder_leave_its_neighbours(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    files = _make_tree(lib)
    data = tmp_path / "data"
    first = run_hearth(data, "ingest", "-q", str(lib))
    assert first.returncode == 0, first.stderr
    everything = set(files.values())

    again = run_hearth(data, "ingest", "-q", *(str(lib / t) for t in TARGETS))
    assert again.returncode == 0, again.stderr
    assert "removed" not in again.stdout, again.stdout
    kb = _open(data)
    try:
        assert _catalogue_paths(kb) == everything
        assert_in_step(kb)
    finally:
        kb.close()

    gone = run_hearth(data, "remove", *(str(lib / t) for t in TARGETS))
    assert gone.returncode == 0, gone.stderr
    removed = {line.split(" (")[0].removeprefix("removed ") for line in gone.stdout.splitlines()}
    assert removed == {files[t] for t in TARGETS}, gone.stdout
    kb = _open(data)
    try:
        assert _catalogue_paths(kb) == {files[n] for n in NEIGHBOURS}
        assert_in_step(kb)
    finally:
        kb.close()


def test_watching_a_folder_leaves_its_neighbours(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    files = _make_tree(lib)
    report = pipeline.ingest_paths([lib])
    assert not report.failures, report.failures
    targets = [lib / t for t in TARGETS]
    watcher = create_watcher(pipeline, WatchSettings(quiet_seconds=0.3), targets)
    watcher.start()  # returns after the start-up sync of every watched folder
    try:
        assert watcher.error is None, repr(watcher.error)
        assert _catalogue_paths(kb) == set(files.values())
        # Still watching: a new file in one watched folder is added, the neighbours stay.
        new = lib / "q_1" / "later.txt"
        new.write_text("Marker later: written while the folder was watched.")
        want = set(files.values()) | {str(new)}
        wait_until(lambda: watcher.idle and _catalogue_paths(kb) == want, 60, "new file added")
    finally:
        watcher.stop()
    assert watcher.error is None, repr(watcher.error)
    assert_in_step(kb)
