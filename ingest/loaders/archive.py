"""Guards shared by loaders of zip-based formats (docx, pptx, xlsx, epub, odt).

The guard reads only the zip's directory, before any member is unpacked. The sizes it checks are
the ones the directory declares; Python's ``zipfile`` (which python-docx, openpyxl, python-pptx,
ebooklib and odfpy all read through) never returns more than a member's declared size, so a
member cannot expand past what was checked.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from core.errors import LoaderError
from ingest.loaders.encryption import check_zip_encryption

#: Most bytes all members of one document may unpack to.
MAX_UNCOMPRESSED = 512 * 1024 * 1024
#: A member larger than ``RATIO_FLOOR`` that is packed more than ``MAX_RATIO`` times over is a
#: bomb: Office XML and media pack 2-50 times; long runs of one byte pack ~1000 times.
MAX_RATIO = 200
RATIO_FLOOR = 16 * 1024 * 1024


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):,.0f} MiB"


def check_zip(path: Path, kind: str, limit: int = MAX_UNCOMPRESSED) -> None:
    """Refuse a file that is not a zip, whose members are encrypted ("encrypted: needs a
    password"), or that would unpack to more than ``limit`` bytes or packs one member
    implausibly tightly (a zip bomb)."""
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise LoaderError(f"{path.name}: not a valid {kind} (zip) file ({exc})") from exc
    check_zip_encryption(path, kind, infos)
    total = sum(info.file_size for info in infos)
    packed = path.stat().st_size
    if total > limit:
        raise LoaderError(
            f"{path.name}: looks like a zip bomb: {_mib(packed)} on disk expands to "
            f"{_mib(total)}, over the {_mib(limit)} limit for a {kind} file; refused unread"
        )
    for info in infos:
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise LoaderError(
                f"{path.name}: looks like a zip bomb: member {info.filename} of "
                f"{info.compress_size} bytes expands to {_mib(info.file_size)} "
                f"(over {MAX_RATIO} times); refused unread"
            )
