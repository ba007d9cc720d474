"""A real `hearth ingest` killed half-way: the next start repairs every store by itself."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from core.knowledge import KnowledgeBase
from core.settings import load_settings
from tests.integration.conftest import run_hearth, spawn_hearth

PARAGRAPH = (
    "Record {i}: the harbour crane number {i} lifted {w} tonnes of timber on a {d} morning, "
    "and the foreman wrote the weight in the blue ledger kept by the gate.\n\n"
)


def make_corpus(folder: Path, files: int = 60) -> None:
    folder.mkdir()
    for i in range(files):
        body = "".join(PARAGRAPH.format(i=i * 10 + j, w=i + j, d="windy") for j in range(12))
        (folder / f"log{i:03d}.txt").write_text(body)


@pytest.mark.embedded_only("watches the SQLite file grow to time the kill")
def test_kill_during_ingest_then_restart_repairs_and_completes(tmp_path: Path) -> None:
    make_corpus(tmp_path / "corpus")
    data = tmp_path / "data"
    proc = spawn_hearth(data, "ingest", "-q", str(tmp_path / "corpus"))
    # Kill once the catalogue holds some documents but before the batch is done.
    deadline = time.monotonic() + 240
    db = data / "catalogue.db"
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists() and db.stat().st_size > 200_000:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "ingest finished before it could be killed; enlarge the corpus"
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    done = run_hearth(data, "ingest", "-q", str(tmp_path / "corpus"))
    assert done.returncode == 0, done.stderr
    assert "failed 0" in done.stdout

    kb = KnowledgeBase(load_settings(data_dir=data))
    try:
        stats = kb.stats()
        truth = kb.catalogue_ids()
        assert stats["by_status"] == {"ingested": 60}
        assert all(store.ids() == truth for store in kb.stores.values())
    finally:
        kb.close()
