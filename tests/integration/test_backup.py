"""`hearth backup` while a real server takes uploads, then `hearth restore` into a new data
directory: the same catalogue rows (ids, hashes, embeddings) and Chroma/FAISS in step. On the
scaled pass the catalogue is Postgres (pg_dump / pg_restore) and Chroma a server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import sqlalchemy as sa

from core.bundled import sha256_file
from core.knowledge import KnowledgeBase
from tests.integration.backends import SCALED
from tests.integration.conftest import backend_settings, run_hearth, start_server

TABLES = (
    "documents", "chunks", "prompt_templates", "prompt_template_versions", "conversations",
    "messages", "answers", "ingest_ledger",
)  # fmt: skip


def url_of(data_dir: Path) -> str:
    """The catalogue URL of a data directory on this pass (SQLite file or Postgres database)."""
    return backend_settings(data_dir).sqlalchemy_url


def rows(url: str, table: str, old: str = "", new: str = "") -> list[tuple[object, ...]]:
    """Every row of a table, sorted; strings under ``old`` are moved to ``new``."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as db:
            found = sorted(
                (tuple(r) for r in db.execute(sa.text(f'SELECT * FROM "{table}"'))), key=repr
            )
    finally:
        engine.dispose()
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

    manifest = json.loads((backup / "manifest.json").read_text())
    assert manifest["dialect"] == ("postgresql" if SCALED else "sqlite")
    dump = backup / manifest["catalogue"]
    assert manifest["files"][manifest["catalogue"]]["sha256"] == sha256_file(dump)
    assert "password" not in json.dumps(manifest).lower()
    counts = manifest["counts"]
    assert 1 + before <= counts["documents"] <= 1 + after + 1  # a state from while uploads ran
    assert counts["answers"] >= 1, "the answer given before the backup is in it"

    target = tmp_path / "b"
    restored = run_hearth(target, "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    old, new = f"{source.resolve()}/uploads/", f"{target.resolve()}/uploads/"
    got = {table: rows(url_of(target), table) for table in TABLES}
    assert {t: len(r) for t, r in got.items()} == counts
    if not SCALED:  # the SQLite snapshot file itself can be read: row for row the same
        for table in TABLES:
            assert got[table] == rows(f"sqlite:///{dump}", table, old, new), table
    # the restored rows are the source's rows of that moment (ids never reused)
    for table in ("documents", "chunks", "answers"):  # repr: JSON columns come back as dicts
        final = {repr(r) for r in rows(url_of(source), table, old, new)}
        assert {repr(r) for r in got[table]} <= final, table

    engine = sa.create_engine(url_of(target))
    with engine.connect() as db:
        for path, sha in db.execute(sa.text("SELECT path, sha256 FROM documents")):
            assert path.startswith(new) and sha256_file(Path(path)) == sha
    engine.dispose()

    kb = KnowledgeBase(backend_settings(target))
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
    if SCALED:  # an empty data directory but a database that already holds a catalogue
        taken = url_of(source)
        other = run_hearth(tmp_path / "c", "restore", str(backup), HEARTH_DATABASE_URL=taken)
        assert other.returncode == 1 and "already has Hearth tables" in other.stderr
        assert sa.engine.make_url(taken).database in other.stderr
        assert not (tmp_path / "c").exists()
    name = json.loads((backup / "manifest.json").read_text())["catalogue"]
    data = bytearray((backup / name).read_bytes())
    data[len(data) // 2] ^= 1
    (backup / name).write_bytes(bytes(data))
    target = tmp_path / "b"
    bad = run_hearth(target, "restore", str(backup))
    assert bad.returncode == 1 and f"{name}: size or sha256 differs" in bad.stderr
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
