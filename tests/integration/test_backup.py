"""`hearth backup` while a real server takes uploads, then `hearth restore` into a new data
directory: the same catalogue rows (ids, hashes, embeddings) and Chroma/FAISS in step."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

from core.bundled import sha256_file
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from tests.integration.conftest import run_hearth, start_server

TABLES = (
    "documents", "chunks", "prompt_templates", "prompt_template_versions", "conversations",
    "messages", "answers", "ingest_ledger",
)  # fmt: skip


def rows(catalogue: Path, table: str, old: str = "", new: str = "") -> list[tuple[object, ...]]:
    """Every row of a table in rowid order; strings under ``old`` are moved to ``new``."""
    with closing(sqlite3.connect(catalogue)) as db:
        found = db.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall()
    if not old:
        return found
    return [
        tuple(new + v[len(old) :] if isinstance(v, str) and v.startswith(old) else v for v in r)
        for r in found
    ]


def test_backup_during_uploads_restores_the_same_catalogue(tmp_path: Path) -> None:
    source = tmp_path / "a"
    server = start_server(source, HEARTH_LLM__MAX_TOKENS="12")
    done: list[int] = []
    try:
        with server.client() as c:
            first = c.post("/api/documents", files={"file": ("seed.txt", b"Kettles boil water.")})
            assert first.status_code == 201, first.text
            asked = c.post("/api/ask", json={"question": "What do kettles do?"})
            assert asked.status_code == 200, asked.text

        def upload() -> None:
            with server.client() as c:
                for i in range(12):
                    text = f"Note {i}: the lighthouse keeper counted {i * 7} gulls today.\n" * 20
                    r = c.post("/api/documents", files={"file": (f"note{i}.txt", text.encode())})
                    assert r.status_code == 201, r.text
                    done.append(i)

        uploader = threading.Thread(target=upload)
        uploader.start()
        while len(done) < 2 and uploader.is_alive():
            threading.Event().wait(0.2)
        before = len(done)
        backup = tmp_path / "backup"
        made = run_hearth(source, "backup", str(backup))
        after = len(done)
        uploader.join(timeout=600)
        assert made.returncode == 0, made.stderr
        assert len(done) == 12
    finally:
        server.stop()

    snapshot = backup / "catalogue.db"
    documents = len(rows(snapshot, "documents"))
    assert 1 + before <= documents <= 1 + after + 1  # a state from while the uploads ran
    assert rows(snapshot, "answers"), "the answer given before the backup is in it"
    # the snapshot's chunks are the source's chunks of that moment (ids never reused)
    final_chunks = {r[0] for r in rows(source / "catalogue.db", "chunks")}
    assert {r[0] for r in rows(snapshot, "chunks")} <= final_chunks

    target = tmp_path / "b"
    restored = run_hearth(target, "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    old, new = f"{source.resolve()}/uploads/", f"{target.resolve()}/uploads/"
    for table in TABLES:
        assert rows(target / "catalogue.db", table) == rows(snapshot, table, old, new), table

    with closing(sqlite3.connect(target / "catalogue.db")) as db:
        for path, sha in db.execute("SELECT path, sha256 FROM documents"):
            assert path.startswith(new) and sha256_file(Path(path)) == sha

    kb = KnowledgeBase(load_settings(data_dir=target))
    try:
        ids = kb.catalogue_ids()
        assert ids and {name: s.ids() for name, s in kb.stores.items()} == {
            "chroma": ids,
            "faiss": ids,
        }
    finally:
        kb.close()


def test_restore_refuses_a_changed_backup_and_a_used_data_dir(tmp_path: Path) -> None:
    doc = tmp_path / "n.txt"
    doc.write_text("Moss grows on the north side.")
    source = tmp_path / "a"
    assert run_hearth(source, "ingest", "-q", str(doc)).returncode == 0
    backup = tmp_path / "bk"
    assert run_hearth(source, "backup", str(backup)).returncode == 0
    used = run_hearth(source, "restore", str(backup))
    assert used.returncode == 1 and "is not empty" in used.stderr
    data = bytearray((backup / "catalogue.db").read_bytes())
    data[len(data) // 2] ^= 1
    (backup / "catalogue.db").write_bytes(bytes(data))
    target = tmp_path / "b"
    bad = run_hearth(target, "restore", str(backup))
    assert bad.returncode == 1 and "catalogue.db: size or sha256 differs" in bad.stderr
    assert not target.exists() or not any(target.iterdir())


def test_backup_refuses_a_used_destination(tmp_path: Path) -> None:
    source = tmp_path / "a"
    assert run_hearth(source, "status").returncode == 0  # creates the catalogue
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "keep.txt").write_text("x")
    done = run_hearth(source, "backup", str(dest))
    assert done.returncode == 1 and "DEST" in done.stderr
    assert [p.name for p in dest.iterdir()] == ["keep.txt"]
