"""The Postgres half of ``hearth backup`` / ``hearth restore``: ``pg_dump`` and ``pg_restore``.

Backup opens a REPEATABLE READ transaction, exports its snapshot (``pg_export_snapshot()``) and
runs ``pg_dump --format=custom --snapshot=ID`` while holding it, so the dump, the row counts and
the uploads list of the manifest are one consistent state while the server keeps committing
(postgresql.org/docs/current/functions-admin.html#FUNCTIONS-SNAPSHOT-SYNCHRONIZATION). Restore
runs ``pg_restore --single-transaction --exit-on-error`` into a database with no Hearth tables.

The connection goes to the child processes through ``PGHOST``/``PGPORT``/``PGUSER``/
``PGPASSWORD``/``PGDATABASE`` in their environment, never their argv (process listings) nor the
manifest. Debian keeps the binaries off PATH (``/usr/lib/postgresql/<major>/bin``): the newest
installed is used, and a server newer than it is refused up front, naming both versions.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.orm import Session

from core import catalogue
from core.errors import ConfigError, InvalidInputError, LoaderError

DUMP = "catalogue.dump"
#: Tables whose presence means a database already holds a Hearth catalogue.
HEARTH_TABLES = ("alembic_version", "documents", "chunks")


def tool(name: str) -> Path:
    """``pg_dump`` or ``pg_restore``: the newest Debian install, else PATH; ConfigError if none."""
    versions = glob.glob(f"/usr/lib/postgresql/*/bin/{name}")
    versions.sort(key=lambda p: int(re.sub(r"\D", "", p.split("/")[4]) or 0), reverse=True)
    if versions:
        return Path(versions[0])
    found = shutil.which(name)
    if found:
        return Path(found)
    raise ConfigError(
        f"{name} is not installed (Debian: apt-get install postgresql-client); it is needed to "
        "back up or restore a Postgres catalogue",
        field="database_url",
    )


def tool_major(path: Path) -> int:
    """Major version of a PostgreSQL client binary (``pg_dump --version``)."""
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30)
    match = re.search(r"(\d+)(?:\.\d+)?", out.stdout)
    if out.returncode != 0 or not match:
        raise ConfigError(f"{path} --version failed: {out.stderr.strip()}", field="database_url")
    return int(match.group(1))


def child_env(url: str) -> dict[str, str]:
    """The libpq environment of ``url`` (password in ``PGPASSWORD``, not on the command line)."""
    parsed = make_url(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    for key, value in (
        ("PGHOST", parsed.host),
        ("PGPORT", parsed.port),
        ("PGUSER", parsed.username),
        ("PGPASSWORD", parsed.password),
        ("PGDATABASE", parsed.database),
    ):
        if value is not None:
            env[key] = str(value)
    return env


def database_name(url: str) -> str:
    """The database part of a URL, for messages (never the password)."""
    parsed = make_url(url)
    return f"{parsed.database} on {parsed.host or 'localhost'}:{parsed.port or 5432}"


def _run(argv: list[str], url: str, what: str) -> None:
    done = subprocess.run(argv, env=child_env(url), capture_output=True, text=True)
    if done.returncode != 0:
        raise LoaderError(
            f"{what} of {database_name(url)} failed ({Path(argv[0]).name} exited "
            f"{done.returncode}): {done.stderr.strip()[-1500:]}",
            field="database_url",
        )


def _check_versions(conn: Connection, pg_dump: Path) -> None:
    server = int(conn.execute(sa.text("SHOW server_version_num")).scalar_one()) // 10000
    client = tool_major(pg_dump)
    if server > client:
        raise ConfigError(
            f"server version mismatch: the Postgres server is {server} but {pg_dump} is "
            f"{client}; install postgresql-client-{server} (pg_dump must be at least as new)",
            field="database_url",
        )


@contextmanager
def snapshot(url: str, dest: Path) -> Iterator[Connection]:
    """Dump the database of ``url`` to ``dest/catalogue.dump``; yields a connection in the
    dump's snapshot (read the counts there) that stays open until the block ends."""
    pg_dump = tool("pg_dump")
    engine = sa.create_engine(url, isolation_level="REPEATABLE READ")
    try:
        with engine.connect() as conn, conn.begin():
            _check_versions(conn, pg_dump)
            snap = conn.execute(sa.text("SELECT pg_export_snapshot()")).scalar_one()
            argv = [str(pg_dump), "--format=custom", f"--snapshot={snap}", "--no-password"]
            _run([*argv, "--file", str(dest / DUMP)], url, "pg_dump")
            yield conn
    finally:
        engine.dispose()


def refuse_used(url: str) -> None:
    """``InvalidInputError`` naming the database of ``url`` if it already has Hearth tables."""
    engine = sa.create_engine(url)
    try:
        names = set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()
    found = [t for t in HEARTH_TABLES if t in names]
    if found:
        raise InvalidInputError(
            f"database {database_name(url)} already has Hearth tables ({', '.join(found)}): "
            "restore only into an empty database",
            field="database_url",
        )


def restore_dump(url: str, dump: Path, old: str, new: str) -> None:
    """``pg_restore`` ``dump`` into the empty database of ``url``, then point uploaded files'
    paths from ``old`` to ``new``. Refuses a database that already has Hearth tables."""
    refuse_used(url)
    pg_restore = tool("pg_restore")
    argv = [str(pg_restore), "--single-transaction", "--exit-on-error", "--no-owner"]
    _run([*argv, "--no-privileges", "--no-password", "--dbname", make_url(url).database or "",
          str(dump)], url, "pg_restore")  # fmt: skip
    engine = sa.create_engine(url)
    try:
        with Session(engine) as s, s.begin():
            catalogue.rebase_paths(s, old, new)
    finally:
        engine.dispose()
