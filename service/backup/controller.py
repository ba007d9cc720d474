"""``GET /api/backup``: the same snapshot as ``hearth backup``, downloaded as one tar archive."""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from anyio import to_thread
from litestar import Controller, get
from litestar.datastructures import State
from litestar.response import Stream

from service.backup.snapshot import backup
from service.state import Hearth

CHUNK = 1024 * 1024


def snapshot_tar(hearth: Hearth) -> Path:
    """A backup of the running knowledge base packed into a tar in a new temporary folder."""
    work = Path(tempfile.mkdtemp(prefix="hearth-backup-"))
    try:
        folder = work / "hearth-backup"
        backup(hearth.settings, folder)
        archive = work / "backup.tar"
        with tarfile.open(archive, "w") as tar:
            tar.add(folder, arcname="hearth-backup")
        shutil.rmtree(folder)
        return archive
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _read_then_remove(archive: Path) -> Iterator[bytes]:
    try:
        with archive.open("rb") as fh:
            while block := fh.read(CHUNK):
                yield block
    finally:
        shutil.rmtree(archive.parent, ignore_errors=True)


class BackupController(Controller):
    """Knowledge-base backups over HTTP (the web UI's Knowledge view offers the download)."""

    path = "/api/backup"
    tags = ["documents"]

    @get("/")
    async def download(self, state: State) -> Stream:
        """A consistent snapshot (catalogue via SQLite's online backup or pg_dump, the uploads, a
        sha256 manifest) as ``hearth-backup-<time>.tar``; unpack it and run ``hearth restore``."""
        archive = await to_thread.run_sync(snapshot_tar, state.hearth)
        name = time.strftime("hearth-backup-%Y%m%d-%H%M%S.tar", time.gmtime())
        return Stream(
            _read_then_remove(archive),
            media_type="application/x-tar",
            headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "Content-Length": str(archive.stat().st_size),
            },
        )
