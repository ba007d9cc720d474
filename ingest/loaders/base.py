"""The Loader Protocol and the registry that picks one by file type."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from core.errors import UnsupportedTypeError
from core.types import Section

# Modules that register loaders; imported lazily on first use so heavy libraries stay unloaded.
LOADER_MODULES = (
    "ingest.loaders.text",
    "ingest.loaders.markdown",
    "ingest.loaders.html",
    "ingest.loaders.pdf",
    "ingest.loaders.docx",
)


class Loader(Protocol):
    """Reads one kind of file into sections of text with provenance."""

    file_type: str

    def load(self, path: Path) -> list[Section]:
        """Sections of the file, in reading order; raises ``LoaderError`` naming the file."""
        ...


_REGISTRY: dict[str, Loader] = {}
_EXTENSIONS: dict[str, str] = {}
_loaded = False


def register(file_type: str, extensions: tuple[str, ...]) -> Callable[[type], type]:
    """Class decorator: register a loader class for a file type and its extensions."""

    def deco(cls: type) -> type:
        _REGISTRY[file_type] = cls()
        for ext in extensions:
            _EXTENSIONS[ext.lower()] = file_type
        return cls

    return deco


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        for module in LOADER_MODULES:
            importlib.import_module(module)
        _loaded = True


def supported_types() -> dict[str, list[str]]:
    """File type -> extensions, for help texts and ``hearth formats``."""
    _ensure_loaded()
    out: dict[str, list[str]] = {}
    for ext, ftype in sorted(_EXTENSIONS.items()):
        out.setdefault(ftype, []).append(ext)
    return out


def file_type_of(path: Path) -> str | None:
    """The file type a path's extension maps to, or None."""
    _ensure_loaded()
    return _EXTENSIONS.get(path.suffix.lower())


def loader_for(path: Path) -> Loader:
    """The loader for this file; ``UnsupportedTypeError`` naming the file otherwise."""
    ftype = file_type_of(path)
    if ftype is None:
        known = ", ".join(sorted(_EXTENSIONS))
        raise UnsupportedTypeError(
            f"{path.name}: unsupported file type {path.suffix or '(no extension)'!r}; "
            f"Hearth reads {known}"
        )
    return _REGISTRY[ftype]
