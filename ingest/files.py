"""Finding files to ingest and hashing them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from core.errors import InvalidInputError


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def is_hidden(path: Path, root: Path) -> bool:
    """True for dot files and anything inside a dot folder below ``root``."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(part.startswith(".") for part in parts)


def iter_files(paths: list[Path]) -> Iterator[Path]:
    """Files named directly, and every non-hidden file below named folders, sorted."""
    for raw in paths:
        path = raw.expanduser().resolve()
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                broken_link = child.is_symlink() and not child.exists()  # reported, not skipped
                if (child.is_file() or broken_link) and not is_hidden(child, path):
                    yield child
        elif path.is_file():
            yield path
        else:
            raise InvalidInputError(f"{raw}: no such file or folder")
