"""The writer lock of a data directory (a real flock on a temporary folder)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import ConflictError
from core.lock import WriterLock


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from core.lock import WriterLock; "
            f"WriterLock(Path({str(tmp_path)!r})).acquire(); print('held', flush=True); "
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        second = WriterLock(tmp_path)
        with pytest.raises(ConflictError) as err:
            second.acquire()
        assert f"pid {holder.pid}" in err.value.message
        assert str(tmp_path) in err.value.message
        assert not second.held
    finally:
        holder.kill()
        holder.wait()
    # released when its holder died: the next writer gets it
    with WriterLock(tmp_path) as again:
        assert again.held


def test_holds_in_one_process_are_shared_and_counted(tmp_path: Path) -> None:
    outer = WriterLock(tmp_path).acquire()
    with WriterLock(tmp_path) as inner:  # an upload while a watching server holds the lock
        assert inner.held
    assert outer.held
    outer.release()
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from pathlib import Path; from core.lock import WriterLock; "
            f"WriterLock(Path({str(tmp_path)!r})).acquire(); print('ok')",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert probe.stdout.strip() == "ok", probe.stderr


def test_the_lock_creates_the_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"
    with WriterLock(data):
        assert (data / "writer.lock").exists()
