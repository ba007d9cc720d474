"""Guards shared by loaders of zip-based formats (pptx, xlsx, epub, odt)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from core.errors import LoaderError

MAX_UNCOMPRESSED = 512 * 1024 * 1024


def check_zip(path: Path, kind: str, limit: int = MAX_UNCOMPRESSED) -> None:
    """Refuse a file that is not a zip, or that would unpack to more than ``limit`` bytes."""
    try:
        with zipfile.ZipFile(path) as zf:
            total = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise LoaderError(f"{path.name}: not a valid {kind} (zip) file ({exc})") from exc
    if total > limit:
        raise LoaderError(f"{path.name}: unpacks to {total} bytes, over the {limit} byte limit")
