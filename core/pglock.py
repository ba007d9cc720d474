"""The writer lock of a catalogue on Postgres: a session-level advisory lock.

Replicas on several machines share one Postgres, so a file lock in one data directory cannot keep
two writers apart. ``pg_try_advisory_lock`` on a dedicated connection can: Postgres grants it to
one session at a time and drops it when that session ends, however the holder exits (a crash or a
lost network connection closes the session; TCP keepalives make a vanished host count too).
The holder is named by the ``application_name`` its connection carries.
"""

from __future__ import annotations

import os
import socket
import threading
from typing import Any

from core.errors import ConflictError

# One catalogue per database, so one fixed key ("HEAR"); it fits in 32 bits, so pg_locks shows it
# as classid 0, objid KEY, objsubid 1 (the bigint form).
LOCK_KEY = 0x48454152
_HOLDER_SQL = (
    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
    "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = :key "
    "AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database "
    "WHERE datname = current_database())"
)
# Advisory locks belong to a session: two sessions of one process would lock each other out, so
# holds in this process share one connection and are counted.
_HELD: dict[str, tuple[Any, int]] = {}
_GUARD = threading.Lock()


def safe_url(url: str) -> str:
    """The URL without its password (for messages)."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def holder_name() -> str:
    """What this process calls itself in ``pg_stat_activity``."""
    return f"hearth-writer pid {os.getpid()} on {socket.gethostname()}"[:63]


class AdvisoryLock:
    """One writer per Postgres catalogue, by ``pg_try_advisory_lock`` (non-blocking)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._conn is not None

    def acquire(self) -> None:
        """Take the lock or raise ``ConflictError`` naming the holder (pid and host)."""
        if self._conn is not None:
            return
        with _GUARD:
            held = _HELD.get(self.url)
            if held is not None:
                _HELD[self.url] = (held[0], held[1] + 1)
                self._conn = held[0]
                return
            conn = _connect(self.url)
            try:
                got = conn.exec_driver_sql(f"SELECT pg_try_advisory_lock({LOCK_KEY})").scalar()
                if not got:
                    who = _holder(conn)
                    raise ConflictError(
                        f"another Hearth process ({who}) is writing to the catalogue "
                        f"{safe_url(self.url)}; wait for it to finish or stop it"
                    )
            except BaseException:
                conn.close()
                raise
            _HELD[self.url] = (conn, 1)
            self._conn = conn

    def release(self) -> None:
        """Give the lock up (closing the session releases it on the server)."""
        if self._conn is None:
            return
        with _GUARD:
            conn, count = _HELD.get(self.url, (self._conn, 1))
            self._conn = None
            if count > 1:
                _HELD[self.url] = (conn, count - 1)
                return
            _HELD.pop(self.url, None)
            try:
                conn.exec_driver_sql(f"SELECT pg_advisory_unlock({LOCK_KEY})")
            except Exception:  # the session is gone: so is the lock
                pass
            finally:
                conn.close()


def _connect(url: str) -> Any:
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    engine = create_engine(
        url,
        poolclass=NullPool,
        isolation_level="AUTOCOMMIT",
        connect_args={
            "application_name": holder_name(),
            "keepalives": 1,
            "keepalives_idle": 30,
            "keepalives_interval": 10,
            "keepalives_count": 3,
        },
    )
    return engine.connect()


def _holder(conn: Any) -> str:
    from sqlalchemy import text

    try:
        name = conn.execute(text(_HOLDER_SQL), {"key": LOCK_KEY}).scalar()
    except Exception:
        name = None
    if isinstance(name, str) and name.startswith("hearth-writer "):
        return name.removeprefix("hearth-writer ")
    return "pid unknown"
