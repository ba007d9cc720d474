"""``hearth backup``: a consistent snapshot of a data directory, safe while the server runs.

The SQLite catalogue is copied with SQLite's online backup API (``sqlite3.Connection.backup``,
docs.python.org/3/library/sqlite3.html#sqlite3.Connection.backup): the copy is one consistent
state even while another process writes. Every chunk's embedding lives in the catalogue, so Chroma
and FAISS are not copied: ``hearth restore`` rebuilds them from it, in step by construction. The
uploaded files the snapshot refers to (``data_dir/uploads``) are copied after it (they are written
before their document is committed, so each one is there). A ``manifest.json`` lists every file
with its size and sha256, the catalogue's dialect, migration revision and row counts.

A Postgres catalogue is dumped with ``pg_dump --format=custom`` in one exported snapshot instead
(:mod:`service.backup.postgres`); the rest (uploads, manifest, restore's rebuild) is the same.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from core import catalogue
from core.bundled import sha256_file
from core.errors import ConfigError, InvalidInputError
from core.settings import HearthSettings
from service.backup import postgres

FORMAT = 1
CATALOGUE = "catalogue.db"
MANIFEST = "manifest.json"
UPLOADS = "uploads"
#: Tables whose row counts the manifest records (what a restore must give back).
COUNTED = (
    "documents", "chunks", "prompt_templates", "prompt_template_versions", "conversations",
    "messages", "answers", "ingest_ledger",
)  # fmt: skip


@dataclass(frozen=True)
class BackupResult:
    """Where the backup went and what it holds."""

    dest: Path
    manifest: dict[str, Any]


def dialect(settings: HearthSettings) -> str:
    """``sqlite`` or ``postgresql``: how the catalogue is backed up."""
    return "sqlite" if settings.sqlalchemy_url.startswith("sqlite") else "postgresql"


def sqlite_path(settings: HearthSettings) -> Path:
    """The catalogue file of a SQLite catalogue."""
    url = settings.sqlalchemy_url
    if not url.startswith("sqlite:///"):
        raise ConfigError(f"not a SQLite file catalogue: {url.split(':')[0]}", field="database_url")
    return Path(url.removeprefix("sqlite:///"))


def _empty_dest(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise InvalidInputError(f"DEST: {dest} exists and is not an empty folder", field="DEST")
    dest.mkdir(parents=True, exist_ok=True)


def _sqlite_snapshot(
    settings: HearthSettings, dest: Path
) -> tuple[str, dict[str, int], str, list[str]]:
    source = sqlite_path(settings)
    if not source.is_file():
        raise ConfigError(f"no catalogue at {source}: nothing to back up", field="data_dir")
    target = dest / CATALOGUE
    with (
        closing(sqlite3.connect(source, timeout=60)) as src,
        closing(sqlite3.connect(target)) as out,
    ):
        src.backup(out)  # one consistent state, even while the server commits
    with catalogue.file_session(target) as s:
        counts = catalogue.table_counts(s, COUNTED)
        revision = catalogue.schema_revision(s)
        paths = catalogue.all_paths(s)
    return CATALOGUE, counts, revision, paths


def _postgres_snapshot(
    settings: HearthSettings, dest: Path
) -> tuple[str, dict[str, int], str, list[str]]:
    url = settings.sqlalchemy_url
    with (
        postgres.snapshot(url, dest) as conn,  # counts and paths in the dump's snapshot
        Session(bind=conn, join_transaction_mode="create_savepoint") as s,
    ):
        if "alembic_version" not in catalogue.table_names(s):
            raise ConfigError(
                f"database {postgres.database_name(url)} has no Hearth catalogue: nothing to "
                "back up",
                field="database_url",
            )
        counts = catalogue.table_counts(s, COUNTED)
        revision = catalogue.schema_revision(s)
        paths = catalogue.all_paths(s)
    return postgres.DUMP, counts, revision, paths


def backup(settings: HearthSettings, dest: Path) -> BackupResult:
    """Snapshot the catalogue into ``dest`` (a new or empty folder), copy the uploads it refers
    to, write the manifest. Reads only: the running server is not paused. Postgres needs
    ``pg_dump`` at least as new as the server (``ConfigError`` naming both otherwise)."""
    kind = dialect(settings)
    if kind == "sqlite":
        sqlite_path(settings)  # a refusal before DEST is touched
    else:
        postgres.tool("pg_dump")
    _empty_dest(dest)
    started = time.time()
    snap = _sqlite_snapshot if kind == "sqlite" else _postgres_snapshot
    try:
        catalogue, counts, revision, paths = snap(settings, dest)
    except BaseException:
        for child in dest.iterdir():
            child.unlink()
        raise
    target = dest / catalogue
    uploads_root = settings.data_dir.resolve() / UPLOADS
    files: dict[str, dict[str, Any]] = {
        catalogue: {"size": target.stat().st_size, "sha256": sha256_file(target)}
    }
    for raw in paths:
        path = Path(raw)
        if not path.is_relative_to(uploads_root) or not path.is_file():
            continue  # files outside the data directory are the user's own, not backed up
        rel = Path(UPLOADS) / path.relative_to(uploads_root)
        copy = dest / rel
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, copy)
        files[rel.as_posix()] = {"size": copy.stat().st_size, "sha256": sha256_file(copy)}
    manifest = {
        "format": FORMAT,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "data_dir": str(settings.data_dir.resolve()),
        "dialect": kind,
        "catalogue": catalogue,
        "alembic_revision": revision,
        "counts": counts,
        "files": files,
    }
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return BackupResult(dest, manifest)
