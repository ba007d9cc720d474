"""Engine, sessions and migrations of the catalogue."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def _migrations_dir() -> Path:
    """The Alembic scripts: the ``alembic/`` folder of the checkout this module is in (an
    editable install, ``PYTHONPATH`` or the Docker image), else the copy an installed wheel
    carries as data files (``PREFIX/share/hearth/alembic``, found in the distribution's file
    list, so a ``--user`` or ``--prefix`` install works too; beside an installed ``core`` the
    folder named ``alembic`` is the library). When neither is there, the checkout's path, which
    :meth:`Database.migrate` reports as missing."""
    checkout = Path(__file__).resolve().parents[2] / "alembic"
    if (checkout / "env.py").is_file() and (checkout / "versions").is_dir():
        return checkout
    try:
        files = metadata.distribution("hearth").files or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if f.as_posix().endswith("share/hearth/alembic/env.py"):
            return Path(str(f.locate())).resolve().parent
    return checkout


ALEMBIC_DIR = _migrations_dir()
# Postgres advisory lock key ("MIGR") that serialises migrations of one database.
MIGRATION_LOCK_KEY = 0x4D494752


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _require_psycopg() -> None:
    import importlib.util

    if importlib.util.find_spec("psycopg") is None:
        raise RuntimeError(
            "database_url is Postgres but the psycopg driver is missing: pip install "
            "'psycopg[binary]' (Hearth's dependencies include it)"
        )


class Database:
    """The catalogue's engine and session factory; :meth:`migrate` brings it to Alembic head."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith("sqlite"):
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = create_engine(
                url, connect_args={"check_same_thread": False, "timeout": 30}
            )
            event.listen(self.engine, "connect", _sqlite_pragmas)
        elif url.startswith("postgres"):
            _require_psycopg()
            self.engine = create_engine(url, pool_pre_ping=True)
        else:
            self.engine = create_engine(url, pool_pre_ping=True)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def migrate(self) -> None:
        """Run ``alembic upgrade head`` on this database (nothing when it is at head already:
        the check of references after a migration reads every row, 2.7 s at a million chunks)."""
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        from alembic import command

        if not (ALEMBIC_DIR / "env.py").is_file():
            raise RuntimeError(
                f"the catalogue's migrations are missing: no {ALEMBIC_DIR / 'env.py'} (a checkout "
                "has them in alembic/, an installed wheel in PREFIX/share/hearth/alembic)"
            )
        cfg = Config()
        cfg.set_main_option("script_location", str(ALEMBIC_DIR))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        sqlite = self.engine.dialect.name == "sqlite"
        heads = set(ScriptDirectory.from_config(cfg).get_heads())
        with self.engine.connect() as conn:
            if set(MigrationContext.configure(conn).get_current_heads()) == heads:
                return
            conn.rollback()
            if sqlite:
                # Batch migrations on SQLite copy and drop tables; with foreign keys on, dropping
                # `documents` would cascade into `chunks`. Off during the migration (outside any
                # transaction, as SQLite requires), then checked and back on.
                conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
                conn.commit()
            with conn.begin():
                if self.engine.dialect.name == "postgresql":
                    # Replicas starting together on a fresh database would all create the tables;
                    # one migrates at a time (held to the end of this transaction).
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
            if sqlite:
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()
                if broken:
                    raise RuntimeError(f"catalogue migration left broken references: {broken[:5]}")

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session in a transaction: committed on success, rolled back on error."""
        with self._sessions() as s, s.begin():
            yield s

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
