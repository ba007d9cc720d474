"""The writer lock of a data directory (a real flock on a temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import ConflictError
from core.lock import WriterLock


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    with WriterLock(tmp_path) as first:
        assert first.held
        second = WriterLock(tmp_path)
        with pytest.raises(ConflictError) as err:
            second.acquire()
        assert f"pid {os.getpid()}" in err.value.message
        assert str(tmp_path) in err.value.message
        assert not second.held
    # released: the next writer gets it
    with WriterLock(tmp_path) as again:
        assert again.held


def test_the_lock_creates_the_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"
    with WriterLock(data):
        assert (data / "writer.lock").exists()
