"""Only one process writes to a data directory: real `hearth` subprocesses."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.conftest import REPO, hearth_env, run_hearth, start_server

pytestmark = pytest.mark.embedded_only(
    "reads the SQLite catalogue; the advisory lock is tested in test_scaled_backends.py"
)


def _documents(data: Path) -> dict[str, str]:
    db = data / "catalogue.db"
    if not db.exists():
        return {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        try:
            return dict(conn.execute("SELECT path, status FROM documents").fetchall())
        except sqlite3.OperationalError:  # tables not created yet
            return {}


def _wait(check: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"not reached within {timeout} s: {what}")


def _refused(result: subprocess.CompletedProcess[str], pid: int, data: Path) -> None:
    assert result.returncode == 1, result.stderr
    assert f"another Hearth process (pid {pid}) is writing to {data}" in result.stderr


def test_a_second_writer_is_refused_while_hearth_watch_runs(tmp_path: Path) -> None:
    data, folder = (tmp_path / "data").resolve(), (tmp_path / "watched").resolve()
    folder.mkdir()
    (folder / "first.txt").write_text("The mill by the river grinds rye on Tuesdays.")
    watch = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "watch", "-q", "--quiet-seconds", "0.5", str(folder)],
        env=hearth_env(data),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Reconcile on start ingests what is already there; a new file follows by event.
        _wait(lambda: _documents(data).get(str(folder / "first.txt")) == "ingested", 300, "first")
        (folder / "second.txt").write_text("The bakery opens at six and sells out by nine.")
        _wait(lambda: str(folder / "second.txt") in _documents(data), 120, "second")

        _refused(run_hearth(data, "ingest", "-q", str(folder)), watch.pid, data)
        _refused(run_hearth(data, "remove", str(folder / "first.txt")), watch.pid, data)
        assert watch.poll() is None  # the first writer is unaffected
    finally:
        watch.send_signal(signal.SIGTERM)
        out, err = watch.communicate(timeout=60)
    assert watch.returncode == 0, err
    assert "added" in out
    # The lock went with the process: the next writer is let in.
    removed = run_hearth(data, "remove", str(folder / "first.txt"))
    assert removed.returncode == 0, removed.stderr
    assert str(folder / "first.txt") not in _documents(data)


def test_serve_watches_its_folders_and_holds_the_lock(tmp_path: Path) -> None:
    data, folder = (tmp_path / "data").resolve(), (tmp_path / "watched").resolve()
    folder.mkdir()
    (folder / "before.md").write_text("# Harbour\nThe harbour master's boat is called Wren.")
    server = start_server(
        data, HEARTH_WATCH__FOLDERS=f'["{folder}"]', HEARTH_WATCH__QUIET_SECONDS="0.5"
    )
    try:
        with server.client() as client:

            def paths() -> set[str]:
                docs = client.get("/api/documents").json()
                return {d["path"] for d in docs if d["status"] == "ingested"}

            assert str(folder / "before.md") in paths()  # reconciled before serving
            (folder / "after.txt").write_text("The orchard has forty-two apple trees.")
            _wait(lambda: str(folder / "after.txt") in paths(), 120, "after.txt served")
            (folder / "before.md").unlink()
            _wait(lambda: str(folder / "before.md") not in paths(), 120, "before.md gone")
        _refused(run_hearth(data, "remove", str(folder / "after.txt")), server.process.pid, data)
    finally:
        _out, err = server.output()
    # uvicorn re-raises SIGTERM after a graceful shutdown (which stops the watcher thread).
    assert server.process.returncode in (0, -15) and "Traceback" not in err, err[-2000:]
