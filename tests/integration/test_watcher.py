"""The folder watcher with a real watchfiles watch on a temporary folder and the real pipeline.

After every change: the catalogue holds exactly the folder's watched files (same hashes), the
chunk ids in SQL, Chroma and FAISS are identical with no duplicates, and each file's text is in
its own document's chunks.
"""

from __future__ import annotations

import shutil
import time
from email.message import EmailMessage
from pathlib import Path

from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from tests.integration.watching import (
    catalogue_state,
    chunk_ids_of,
    chunk_texts_of,
    ledger_actions,
    note,
    settle,
    watching,
)


def test_add_modify_delete(pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    with watching(pipeline, folder) as w:
        a = note(folder, "a.txt", "Marker alpha: the lighthouse has 212 steps.")
        note(folder, "sub/b.md", "Marker beta: the ferry leaves at 7:40.")
        first = settle(w, kb, folder)
        assert len(first) >= 2

        a_ids = chunk_ids_of(kb, a)
        note(folder, "a.txt", "Marker gamma: the lighthouse was repainted in May.")
        settle(w, kb, folder)
        assert chunk_ids_of(kb, a).isdisjoint(a_ids)  # old chunks replaced
        assert ledger_actions(kb, a) == ["added", "updated"]

        a.unlink()
        after = settle(w, kb, folder)
        assert after.isdisjoint(a_ids) and not chunk_ids_of(kb, a)
        assert ledger_actions(kb, a)[-1] == "removed"


def test_rename_and_move_into_a_subfolder_keep_the_chunks(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    with watching(pipeline, folder) as w:
        a = note(folder, "a.txt", "Marker delta: otters hold hands while sleeping.")
        note(folder, "keep.txt", "Marker epsilon: the kettle whistles.")
        settle(w, kb, folder)
        ids = chunk_ids_of(kb, a)

        renamed = folder / "otters.txt"
        a.rename(renamed)
        all_ids = settle(w, kb, folder)
        assert chunk_ids_of(kb, renamed) == ids  # same chunks: nothing re-embedded
        assert ledger_actions(kb, renamed) == ["moved"]

        (folder / "animals" / "sea").mkdir(parents=True)
        moved = folder / "animals" / "sea" / "otters.txt"
        renamed.rename(moved)
        assert settle(w, kb, folder) == all_ids
        assert chunk_ids_of(kb, moved) == ids

        # A whole folder renamed: every document below it moves.
        (folder / "animals").rename(folder / "fauna")
        assert settle(w, kb, folder) == all_ids
        otters = folder / "fauna" / "sea" / "otters.txt"
        assert chunk_ids_of(kb, otters) == ids

        # Moved over an existing file: the mover keeps its chunks, the overwritten one leaves.
        keep_ids = chunk_ids_of(kb, folder / "keep.txt")
        (folder / "keep.txt").replace(otters)
        assert settle(w, kb, folder) == keep_ids
        assert chunk_ids_of(kb, otters) == keep_ids


def test_a_file_written_slowly_is_ingested_once_complete(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    slow = folder / "slow.txt"
    pieces = [f"Marker zeta part {i}: the glacier moved {i} metres.\n" for i in range(6)]
    with watching(pipeline, folder, quiet=1.0) as w:
        with slow.open("w") as fh:
            for piece in pieces:
                fh.write(piece)
                fh.flush()
                time.sleep(0.3)  # pieces arrive slower than the watcher's event tick
        settle(w, kb, folder)
        assert ledger_actions(kb, slow) == ["added"]  # one ingest, not one per piece
        text = " ".join(chunk_texts_of(kb, slow))
        assert all(p.strip() in text for p in pieces)


def test_a_burst_of_200_files_with_one_bad_one_and_temporary_files(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    with watching(pipeline, folder, batch_size=40) as w:
        for i in range(200):
            note(folder, f"burst/d{i // 50}/n{i:03d}.txt", f"Marker burst {i:03d}: crate {i * 7}.")
        (folder / "burst" / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
        for junk in ("x.txt.swp", "~$report.docx", "film.mp4.part", "a.crdownload", ".hidden.txt"):
            (folder / junk).write_text("Marker junk")
        (folder / ".git").mkdir()
        (folder / ".git" / "HEAD.txt").write_text("Marker junk")
        settle(w, kb, folder, timeout=600)
        state = catalogue_state(kb)
        broken = str((folder / "burst" / "broken.pdf").resolve())
        assert len(state) == 201 and state[broken] == ""  # recorded as failed, without chunks
        assert ledger_actions(kb, folder / "burst" / "broken.pdf") == ["failed"]
        assert not any("junk" in p or ".git" in p or "~$" in p for p in state)
        assert w.batches >= 2


def test_changes_while_stopped_are_reconciled_on_start(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    for name, text in [
        ("keep.txt", "Marker eta: unchanged."),
        ("edit.txt", "Marker theta: before the edit."),
        ("gone.txt", "Marker iota: to be deleted."),
        ("move.txt", "Marker kappa: to be moved."),
    ]:
        note(folder, name, text)
    with watching(pipeline, folder) as w:
        settle(w, kb, folder)
    keep_ids = chunk_ids_of(kb, folder / "keep.txt")
    move_ids = chunk_ids_of(kb, folder / "move.txt")
    gone_ids = chunk_ids_of(kb, folder / "gone.txt")

    # Nothing watches now.
    note(folder, "edit.txt", "Marker lambda: after the edit.")
    (folder / "gone.txt").unlink()
    (folder / "archive").mkdir()
    shutil.move(folder / "move.txt", folder / "archive" / "moved.txt")
    note(folder, "new.txt", "Marker mu: appeared while stopped.")

    with watching(pipeline, folder) as w:
        # start() returns after the reconcile pass: no event is needed for any of this.
        assert catalogue_state(kb) == {str(p.resolve()): s for p, s in _shas(folder).items()}
        ids = settle(w, kb, folder)
    assert chunk_ids_of(kb, folder / "keep.txt") == keep_ids
    assert chunk_ids_of(kb, folder / "archive" / "moved.txt") == move_ids
    assert ids.isdisjoint(gone_ids)
    assert ledger_actions(kb, folder / "edit.txt") == ["added", "updated"]
    assert ledger_actions(kb, folder / "new.txt") == ["added"]
    assert ledger_actions(kb, folder / "keep.txt") == ["added"]  # not re-read into the ledger


def _shas(folder: Path) -> dict[Path, str]:
    from ingest.files import sha256_of

    return {p: sha256_of(p) for p in sorted(folder.rglob("*.txt"))}


def test_what_a_file_carries_stays_on_start_and_goes_with_its_folder(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    # An e-mail's attachment has no file of its own: the reconcile on start took it for a
    # deleted file and removed it.
    folder = tmp_path / "watched"
    mail = folder / "inbox" / "boiler.eml"
    mail.parent.mkdir(parents=True)
    msg = EmailMessage()
    msg["From"], msg["Subject"] = "ana@example.org", "Boiler"
    msg.set_content("The service notes are attached.")
    msg.add_attachment("Marker nu: the boiler reset code is 4471.", filename="boiler.txt")
    mail.write_bytes(msg.as_bytes())
    carried = folder.resolve() / "inbox" / "boiler.eml#attachment" / "1" / "boiler.txt"
    with watching(pipeline, folder) as w:
        settle(w, kb, folder)
    ids = chunk_ids_of(kb, carried)
    assert ids and any("4471" in t for t in chunk_texts_of(kb, carried))

    with watching(pipeline, folder) as w:  # started again: reconciled, nothing changed
        settle(w, kb, folder)
        assert chunk_ids_of(kb, carried) == ids
        assert ledger_actions(kb, carried) == ["added"]
        shutil.rmtree(folder / "inbox")
        settle(w, kb, folder)
        assert catalogue_state(kb) == {} and not chunk_ids_of(kb, carried)
    assert ledger_actions(kb, carried)[-1] == "removed"
