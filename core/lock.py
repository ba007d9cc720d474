"""One writer per data directory: an exclusive, non-blocking ``flock`` on a file beside the stores.

Every command that writes the catalogue or the vector stores (``hearth ingest``, ``remove``,
``watch`` and ``serve`` when it watches folders) holds :class:`WriterLock` for as long as it runs.
A second writer is refused with a :class:`~core.errors.ConflictError` naming the holder's pid
instead of interleaving its writes with the first one's. The kernel drops the lock when the holder
exits, however it exits, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from core.errors import ConflictError

LOCK_NAME = "writer.lock"


class WriterLock:
    """The exclusive writer lock of one data directory (a context manager)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / LOCK_NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> WriterLock:
        """Take the lock now or raise ``ConflictError`` naming the process that holds it."""
        if self._fd is not None:
            return self
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"pid {holder}" if holder else "pid unknown"
            raise ConflictError(
                f"another Hearth process ({who}) is writing to {self.data_dir}; "
                "stop it or use another data directory"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Give the lock up (the file stays; its content is only a hint)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
