"""`hearth ingest` as scripts use it (issue 20, kinds 3 and 6): the exit status says whether a
file failed, and re-ingesting a folder removes what was deleted from it."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import func, select

from core.db.models import Chunk, Document
from core.knowledge import KnowledgeBase
from ingest.commands import EXIT_FILES_FAILED
from tests.integration.conftest import backend_settings, run_hearth


def _paths(data: Path) -> set[str]:
    """Names of the documents in the catalogue, and the same count of chunks in the index."""
    kb = KnowledgeBase(backend_settings(data))
    try:
        with kb.db.session() as s:
            docs = list(s.scalars(select(Document)))
            assert sum(d.chunk_count for d in docs) == s.scalar(select(func.count(Chunk.id)))
            return {Path(d.path).name for d in docs}
    finally:
        kb.close()


def test_a_failed_file_makes_the_exit_status_non_zero(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fine.txt").write_text("The heating oil is delivered every March.")
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 this is not a real docx archive")
    done = run_hearth(tmp_path / "data", "ingest", "-q", str(docs))
    assert done.returncode == EXIT_FILES_FAILED == 3, done.stderr
    assert "failed 1" in done.stdout and "broken.docx" in done.stderr
    (docs / "broken.docx").unlink()
    again = run_hearth(tmp_path / "data", "ingest", "-q", str(docs))
    assert again.returncode == 0, again.stderr  # unchanged (and the failed one pruned)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "blank.txt").write_text("")
    assert run_hearth(tmp_path / "data", "ingest", "-q", str(empty)).returncode == 0


def test_reingesting_a_folder_removes_deleted_and_follows_moved_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "old").mkdir(parents=True)
    (docs / "keep.txt").write_text("The spare key is under the third flowerpot.")
    (docs / "gone.txt").write_text("The wifi password is written on the fridge.")
    (docs / "old" / "moving.md").write_text("# Bins\nRecycling goes out on Thursday evening.")
    data = tmp_path / "data"
    assert run_hearth(data, "ingest", "-q", str(docs)).returncode == 0
    assert _paths(data) == {"keep.txt", "gone.txt", "moving.md"}

    (docs / "gone.txt").unlink()
    kept = run_hearth(data, "ingest", "-q", "--no-prune", str(docs))
    assert kept.returncode == 0 and "removed" not in kept.stdout
    assert "gone.txt" in _paths(data)

    (docs / "new").mkdir()
    shutil.move(docs / "old" / "moving.md", docs / "new" / "moved.md")
    done = run_hearth(data, "ingest", "-q", str(docs))
    assert done.returncode == 0, done.stderr
    assert "removed 1" in done.stdout and "gone.txt" in done.stdout, done.stdout
    assert "moved 1" in done.stdout and "added 0" in done.stdout, done.stdout
    assert _paths(data) == {"keep.txt", "moved.md"}
