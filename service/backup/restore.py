"""``hearth restore``: a backup (see :mod:`service.backup.snapshot`) into an empty data directory.

Every file is checked against the manifest's size and sha256 before anything is written. The
catalogue is copied whole (ids, hashes and rows unchanged), then migrated to the current head if
the backup is older (Postgres: ``pg_restore`` of the dump into an empty database, see
:mod:`service.backup.postgres`); the paths of uploaded files are moved from the old data
directory to the new one; Chroma and FAISS are rebuilt from the embeddings in the catalogue
(``KnowledgeBase.repair``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from core import catalogue
from core.bundled import sha256_file
from core.errors import InvalidInputError, LoaderError
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from service.backup import postgres
from service.backup.snapshot import CATALOGUE, FORMAT, MANIFEST, UPLOADS, dialect, sqlite_path


def read_manifest(src: Path) -> dict[str, Any]:
    """The backup's manifest, with every listed file's size and sha256 checked."""
    try:
        manifest: dict[str, Any] = json.loads((src / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise LoaderError(f"{src / MANIFEST}: not a Hearth backup ({exc})", field="SRC") from exc
    if manifest.get("format") != FORMAT:
        raise LoaderError(f"{src}: backup format {manifest.get('format')!r} is not {FORMAT}")
    for rel, info in manifest["files"].items():
        path = src / rel
        if not path.is_file():
            raise LoaderError(f"{path}: listed in the manifest but missing", field="SRC")
        if path.stat().st_size != info["size"] or sha256_file(path) != info["sha256"]:
            raise LoaderError(f"{path}: size or sha256 differs from the manifest", field="SRC")
    return manifest


def restore(settings: HearthSettings, src: Path) -> dict[str, Any]:
    """Restore ``src`` into ``settings.data_dir`` (missing or empty); returns the stats of the
    restored knowledge base (documents, chunks, each store's size)."""
    kind = dialect(settings)
    data_dir = settings.data_dir
    if data_dir.exists() and any(data_dir.iterdir()):
        raise InvalidInputError(
            f"data directory {data_dir} is not empty: restore only into a new one", field="data_dir"
        )
    manifest = read_manifest(src)
    made = manifest.get("dialect", "sqlite")
    if made != kind:
        raise InvalidInputError(
            f"{src} is a {made} backup; the catalogue here is {kind} (set HEARTH_DATABASE_URL "
            "to match)",
            field="SRC",
        )
    url = settings.sqlalchemy_url
    if kind == "postgresql":
        postgres.tool("pg_restore")
        postgres.refuse_used(url)  # before the data directory is created
    old_uploads = str(Path(manifest["data_dir"]) / UPLOADS) + "/"
    new_uploads = str(data_dir.resolve() / UPLOADS) + "/"
    data_dir.mkdir(parents=True, exist_ok=True)
    if kind == "postgresql":
        postgres.restore_dump(url, src / postgres.DUMP, old_uploads, new_uploads)
    else:
        target = sqlite_path(settings)
        tmp = target.with_suffix(".restoring")
        shutil.copyfile(src / CATALOGUE, tmp)
        with catalogue.file_session(tmp) as s:  # uploaded files' paths into the new directory
            catalogue.rebase_paths(s, old_uploads, new_uploads)
        tmp.replace(target)
    for rel in manifest["files"]:
        if rel.startswith(UPLOADS + "/"):
            (data_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, data_dir / rel)
    kb = KnowledgeBase(settings)
    try:
        kb.repair()
        return kb.stats()
    finally:
        kb.close()
