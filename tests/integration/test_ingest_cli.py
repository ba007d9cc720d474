"""`hearth ingest` as scripts use it (issue 20, kinds 3 and 6): the exit status says whether a
file failed, and re-ingesting a folder removes what was deleted from it."""

from __future__ import annotations

import shutil
from email.message import EmailMessage
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


def _mail_with_attachment(path: Path) -> Path:
    """An e-mail carrying a text attachment (its own linked document in the catalogue)."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ana@example.org", "me@example.org", "Boiler"
    msg.set_content("The service notes are attached.")
    msg.add_attachment("The boiler reset code is 4471.", filename="boiler.txt")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(msg.as_bytes())
    return path


def _documents(data: Path) -> dict[str, int]:
    """Catalogue path -> chunk count of every document."""
    kb = KnowledgeBase(backend_settings(data))
    try:
        with kb.db.session() as s:
            return {d.path: d.chunk_count for d in s.scalars(select(Document))}
    finally:
        kb.close()


def test_reingesting_a_folder_keeps_what_its_files_carry(tmp_path: Path) -> None:
    # An e-mail's attachment has no file of its own: re-ingesting the folder took it for a
    # deleted file and removed it (and the watcher's start did the same).
    docs, data = tmp_path / "docs", tmp_path / "data"
    mail = _mail_with_attachment(docs / "inbox" / "boiler.eml")
    assert run_hearth(data, "ingest", "-q", str(docs)).returncode == 0
    first = _documents(data)
    carried = f"{mail.resolve()}#attachment/1/boiler.txt"
    assert carried in first and first[carried] > 0, first

    again = run_hearth(data, "ingest", "-q", str(docs))
    assert again.returncode == 0 and "removed" not in again.stdout, again.stdout
    assert _documents(data) == first

    moved = docs / "archive" / "boiler.eml"
    moved.parent.mkdir()
    shutil.move(mail, moved)
    done = run_hearth(data, "ingest", "-q", str(docs))
    assert "moved 1" in done.stdout and "removed" not in done.stdout, done.stdout
    after = _documents(data)
    assert after == {
        p.replace(str(mail.resolve()), str(moved.resolve())): n for p, n in first.items()
    }, after

    moved.unlink()
    gone = run_hearth(data, "ingest", "-q", str(docs))
    assert "removed 2" in gone.stdout, gone.stdout
    assert _documents(data) == {}
