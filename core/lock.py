"""One writer per knowledge base: an exclusive, non-blocking ``flock`` on a file beside the stores
(SQLite catalogue), or a Postgres advisory lock (:mod:`core.pglock`) when the catalogue is shared
by several replicas.

Every command that writes the catalogue or the vector stores (``hearth ingest``, ``remove``,
``watch`` and ``serve`` when it watches folders) holds :class:`WriterLock` for as long as it runs.
A second writer is refused with a :class:`~core.errors.ConflictError` naming the holder's pid
instead of interleaving its writes with the first one's. The kernel drops the lock when the holder
exits, however it exits, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from core.errors import ConflictError

if TYPE_CHECKING:
    from core.settings import HearthSettings

LOCK_NAME = "writer.lock"
# flock belongs to an open file: two opens in one process would lock each other out, so holds
# in this process are shared and counted.
_HELD: dict[str, tuple[int, int]] = {}
_HELD_GUARD = threading.Lock()


class WriterLock:
    """The exclusive writer lock of one knowledge base (a context manager).

    With a Postgres ``database_url`` the lock is the catalogue's advisory lock, shared by every
    replica on that database; otherwise it is the ``flock`` of ``data_dir``.
    """

    def __init__(self, data_dir: Path, database_url: str | None = None) -> None:
        from core.pglock import AdvisoryLock

        self.data_dir = data_dir
        self.path = data_dir / LOCK_NAME
        self._fd: int | None = None
        self._key = ""
        shared = database_url is not None and database_url.startswith("postgres")
        self._advisory = AdvisoryLock(database_url) if shared and database_url else None

    @classmethod
    def for_settings(cls, settings: HearthSettings) -> WriterLock:
        """The writer lock the settings call for (flock for SQLite, advisory for Postgres)."""
        return cls(settings.data_dir, settings.sqlalchemy_url)

    @property
    def kind(self) -> str:
        """``flock`` or ``advisory``."""
        return "flock" if self._advisory is None else "advisory"

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        if self._advisory is not None:
            return self._advisory.held
        return self._fd is not None

    def acquire(self) -> WriterLock:
        """Take the lock now or raise ``ConflictError`` naming the process that holds it.

        Re-entrant within one process: a second :class:`WriterLock` on the same directory (an
        upload while a watching server holds the lock) shares the first one's hold.
        """
        if self._advisory is not None:
            self._advisory.acquire()
            return self
        if self._fd is not None:
            return self
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = str(self.path.resolve())
        with _HELD_GUARD:
            held = _HELD.get(key)
            if held is not None:
                _HELD[key] = (held[0], held[1] + 1)
                self._fd, self._key = held[0], key
                return self
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
            _HELD[key] = (fd, 1)
            self._fd, self._key = fd, key
            return self

    def release(self) -> None:
        """Give the lock up (the file stays; its content is only a hint)."""
        if self._advisory is not None:
            self._advisory.release()
            return
        if self._fd is None:
            return
        with _HELD_GUARD:
            fd, count = _HELD.get(self._key, (self._fd, 1))
            self._fd = None
            if count > 1:
                _HELD[self._key] = (fd, count - 1)
                return
            _HELD.pop(self._key, None)
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
