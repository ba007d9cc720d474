"""Issue 9, bad inputs: the corpus of tests/badfiles.py through the CLI, the upload API and the
watcher, in one batch with good files.

Every bad file gets its own specific error (naming the file) in the ledger, the `hearth` output or
a 4xx body; files with nothing to read are recorded as empty with the reason; the good files of
the same batch are ingested and found by retrieval; what was stored before is unchanged in SQL,
Chroma and FAISS (same chunk ids, texts and embeddings), with no duplicates.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from core.db.models import Chunk, Document, LedgerEntry
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.commands import EXIT_FILES_FAILED
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from service.library.service import safe_filename
from tests.badfiles import BAD_NAMES, MAX_FILE_BYTES, BadFile, bad_files
from tests.integration.conftest import backend_settings, run_hearth, start_server
from tests.integration.test_pipeline import assert_in_step
from tests.integration.watching import (
    catalogue_state,
    folder_state,
    note,
    settle,
    wait_until,
    watching,
)

LIMIT_ENV = {"HEARTH_INGEST__MAX_FILE_BYTES": str(MAX_FILE_BYTES)}
OLD = {
    "old-otters.md": "# Otters\nSea otters hold hands while sleeping so they do not drift apart.\n",
    "old-kettle.txt": "The blue kettle in the cabin was bought in Oslo in 1987 for forty crowns.\n",
}
NEW = {
    "new-lamp.md": "# Lamp\nThe brass lamp in the hallway was made in Bergen in 1911.\n",
    "new-boat.txt": "The rowing boat Maren is painted yellow and kept in shed nine.\n",
}
QUESTIONS = {
    "new-lamp.md": "Where was the brass lamp in the hallway made?",
    "new-boat.txt": "What colour is the rowing boat Maren?",
    "old-otters.md": "Why do sea otters hold hands?",
}

Stored = dict[str, list[tuple[int, str, bytes]]]


def write_all(folder: Path, files: dict[str, str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in files.items():
        (folder / name).write_text(text)
        out.append(folder / name)
    return out


def stored(kb: KnowledgeBase) -> Stored:
    """Document path -> its chunks (id, text, embedding bytes), for ingested documents."""
    out: Stored = {}
    with kb.db.session() as s:
        rows = s.execute(
            select(Document.path, Chunk.id, Chunk.text, Chunk.embedding)
            .join(Chunk, Chunk.document_id == Document.id)
            .order_by(Chunk.id)
        )
        for path, cid, text, emb in rows:
            out.setdefault(path, []).append((cid, text, emb))
    return out


def assert_unchanged(kb: KnowledgeBase, before: Stored) -> set[int]:
    """What was stored before is still there, identical, in every store; stores in step."""
    after = stored(kb)
    for path, chunks in before.items():
        assert after.get(path) == chunks, f"{path} changed"
    ids = assert_in_step(kb)
    for chunks in before.values():
        assert {c[0] for c in chunks} <= ids
    return ids


def last_ledger(kb: KnowledgeBase) -> dict[str, tuple[str, str]]:
    """Path -> (action, error) of its latest ledger row."""
    with kb.db.session() as s:
        rows = s.execute(
            select(LedgerEntry.path, LedgerEntry.action, LedgerEntry.error).order_by(LedgerEntry.id)
        )
        return {p: (a, e or "") for p, a, e in rows}


def key_of(path: Path) -> str:
    """The catalogue key of a file (a broken link is recorded under its own path)."""
    if path.is_symlink() and not path.exists():
        return str(path.parent.resolve() / path.name)
    return str(path.resolve())


def assert_outcomes(kb: KnowledgeBase, written: dict[Path, BadFile]) -> None:
    """Each bad file ended as its kind says, with a specific message naming it."""
    ledger = last_ledger(kb)
    texts = stored(kb)
    problems = []
    for path, bad in written.items():
        key = key_of(path)
        action, error = ledger.get(key, ("(no ledger row)", ""))
        if action != bad.outcome:
            problems.append(f"{bad.kind}: {action} ({error}), expected {bad.outcome}")
            continue
        if bad.outcome == "added":
            text = " ".join(t for _, t, _ in texts.get(key, []))
            missing = [f for f in bad.expect if f not in text]
        else:
            missing = [f for f in (bad.name, *bad.expect) if f not in error]
            if "Traceback" in error or not error.startswith(bad.name):
                missing.append("(message must start with the file's name)")
        if missing:
            problems.append(f"{bad.kind}: {missing} not in {error!r}")
    assert not problems, "\n".join(problems)


def assert_answerable(
    kb: KnowledgeBase, embedder: Embedder, folder: Path, names: list[str]
) -> None:
    retriever = Retriever(kb, embedder)
    for name in names:
        top = retriever.retrieve(QUESTIONS[name])
        assert top and Path(top[0].path).name == name, (name, [p.path for p in top[:3]])
        assert top[0].path.startswith(str(folder.resolve()))


def make_batch(folder: Path, channel: str, scratch: Path) -> dict[Path, BadFile]:
    """Write every bad file of ``channel`` and the new good files into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    kinds = [b for b in bad_files(scratch) if channel in b.channels]
    assert len(kinds) >= 30
    written = {b.write(folder): b for b in kinds}
    write_all(folder, NEW)
    return written


@pytest.mark.embedded_only("reads the local Chroma and FAISS files after the CLI run")
def test_bad_files_through_the_cli(tmp_path: Path, embedder: Embedder) -> None:
    data = tmp_path / "data"
    old = tmp_path / "old"
    write_all(old, OLD)
    done = run_hearth(data, "ingest", "-q", str(old), **LIMIT_ENV)
    assert done.returncode == 0, done.stderr
    settings = backend_settings(data, ingest={"max_file_bytes": MAX_FILE_BYTES})
    kb = KnowledgeBase(settings)
    try:
        before = stored(kb)
        assert len(before) == len(OLD)
    finally:
        kb.close()

    batch = tmp_path / "batch"
    written = make_batch(batch, "cli", tmp_path / "scratch")
    done = run_hearth(data, "ingest", "-q", str(batch), **LIMIT_ENV)
    # Some files failed, so the exit status says so (issue 20); the rest of the batch went on.
    assert done.returncode == EXIT_FILES_FAILED, done.stderr
    assert "Traceback" not in done.stderr
    failed = [b for b in written.values() if b.outcome == "failed"]
    assert f"added {len(NEW) + sum(b.outcome == 'added' for b in written.values())}," in done.stdout
    assert f"failed {len(failed)}" in done.stdout, done.stdout

    kb = KnowledgeBase(settings)
    try:
        assert_outcomes(kb, written)
        ledger = last_ledger(kb)
        for path, bad in written.items():  # each failure is printed with its reason
            if bad.outcome == "failed":
                key = key_of(path)
                assert f"failed: {key}: {ledger[key][1]}" in done.stderr, bad.kind
        assert_unchanged(kb, before)
        assert_answerable(kb, embedder, batch, list(NEW))
        assert_answerable(kb, embedder, old, ["old-otters.md"])
    finally:
        kb.close()

    # The same batch again: nothing changes, nothing is duplicated.
    again = run_hearth(data, "ingest", "-q", str(batch), **LIMIT_ENV)
    assert again.returncode == EXIT_FILES_FAILED, again.stderr
    kb = KnowledgeBase(settings)
    try:
        assert_unchanged(kb, before)
    finally:
        kb.close()


@pytest.mark.embedded_only("reads the local Chroma and FAISS files after the server stops")
def test_bad_files_through_the_upload_api(tmp_path: Path, embedder: Embedder) -> None:
    data = tmp_path / "data"
    files = tmp_path / "files"
    written = make_batch(files, "upload", tmp_path / "scratch")
    server = start_server(data, **LIMIT_ENV)
    try:
        with server.client() as c:
            for name, text in OLD.items():
                resp = c.post("/api/documents", files={"file": (name, text.encode())})
                assert resp.status_code == 201, resp.text
            before_api = {
                d["path"]: [
                    (ch["id"], ch["text"])
                    for ch in c.get(f"/api/documents/{d['id']}").json()["chunks"]
                ]
                for d in c.get("/api/documents").json()
            }
            problems = []
            # Bad files and the new good files in one batch, good ones last.
            for path, bad in [*written.items(), *((files / n, None) for n in NEW)]:
                resp = c.post("/api/documents", files={"file": (path.name, path.read_bytes())})
                if bad is None:
                    assert resp.status_code == 201, resp.text
                    continue
                if resp.status_code != bad.status:
                    problems.append(f"{bad.kind}: {resp.status_code} {resp.text[:300]}")
                    continue
                body = resp.json()
                if resp.status_code >= 400:
                    detail = body.get("detail", "")
                    want = (safe_filename(bad.name), *bad.expect)
                    missing = [w for w in want if w not in detail]
                elif bad.outcome == "empty":
                    error = body["document"]["error"] or ""
                    missing = [w for w in bad.expect if w not in error]
                    missing += [] if body["action"] == "empty" else ["action empty"]
                else:
                    missing = [] if body["action"] == "added" else ["action added"]
                if missing:
                    problems.append(f"{bad.kind}: {missing} not in {resp.text[:300]}")
            assert not problems, "\n".join(problems)

            for bad_name in BAD_NAMES:
                resp = c.post("/api/documents", files={"file": (bad_name.name, b"ordinary words")})
                assert resp.status_code == bad_name.status, (bad_name.name, resp.text)
                if resp.status_code >= 400:
                    assert all(w in resp.json()["detail"] for w in bad_name.expect), resp.text
                    continue
                stored_at = Path(resp.json()["document"]["path"])
                uploads = (data / "uploads").resolve()
                assert stored_at.parent.parent == uploads, stored_at
                assert len(stored_at.name) <= 200 and "/" not in stored_at.name
        assert server.process.poll() is None  # no crash
    finally:
        server.stop()
    # Nothing was written outside the upload folder.
    outside = [
        p
        for p in tmp_path.rglob("*evil*")
        if (data / "uploads").resolve() not in p.resolve().parents
    ]
    assert outside == []

    kb = KnowledgeBase(backend_settings(data))
    try:
        after = stored(kb)
        for path, chunks in before_api.items():
            assert [(cid, text) for cid, text, _ in after[path]] == chunks
        assert_in_step(kb)
        retriever = Retriever(kb, embedder)
        for name in [*NEW, "old-otters.md"]:
            top = retriever.retrieve(QUESTIONS[name])
            assert top and Path(top[0].path).name == name, (name, [p.path for p in top[:3]])
    finally:
        kb.close()


@pytest.mark.embedded_only("reads the local Chroma and FAISS files while the watcher runs")
def test_bad_files_through_the_watcher(tmp_path: Path, embedder: Embedder) -> None:
    settings = backend_settings(tmp_path / "data", ingest={"max_file_bytes": MAX_FILE_BYTES})
    kb = KnowledgeBase(settings)
    pipeline = IngestPipeline(kb, embedder)
    folder = tmp_path / "watched"
    folder.mkdir()
    try:
        with watching(pipeline, folder) as w:
            for name, text in OLD.items():
                note(folder, name, text.splitlines()[-1])
            settle(w, kb, folder)
            before = stored(kb)
            assert len(before) == len(OLD)

            written = make_batch(folder / "batch", "watch", tmp_path / "scratch")
            keys = {key_of(p) for p in written} | {
                str((folder / "batch" / n).resolve()) for n in NEW
            }

            def all_seen() -> bool:
                return w.idle and keys <= set(last_ledger(kb))

            try:
                wait_until(all_seen, 180, "a ledger row for every file of the batch")
            except AssertionError:
                missing = sorted(Path(k).name for k in keys - set(last_ledger(kb)))
                raise AssertionError(f"no ledger row for {missing}") from None
            # Every file of the folder is in the catalogue (failed ones as failed), and no other.
            wait_until(
                lambda: w.idle and catalogue_state(kb, folder) == folder_state(folder),
                60,
                "catalogue equals folder",
            )
            assert_outcomes(kb, written)
            assert_unchanged(kb, before)
            assert_answerable(kb, embedder, folder / "batch", list(NEW))
    finally:
        kb.close()
