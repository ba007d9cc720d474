"""The Loader Protocol and the registry that picks one by file type."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core.errors import UnsupportedTypeError
from core.ocr import OcrModel
from core.settings import HearthSettings, load_settings
from core.speech import SpeechModel
from core.types import Section

# Modules that register loaders; imported lazily on first use so heavy libraries stay unloaded.
LOADER_MODULES = (
    "ingest.loaders.text",
    "ingest.loaders.markdown",
    "ingest.loaders.html",
    "ingest.loaders.pdf",
    "ingest.loaders.docx",
    "ingest.loaders.audio",
    "ingest.loaders.image",
)


@dataclass
class LoaderContext:
    """What loaders that need models share within one process: settings and model holders.

    The holders load nothing until a recording or image is read, so building one is cheap.
    """

    settings: HearthSettings
    speech: SpeechModel
    ocr: OcrModel

    @classmethod
    def create(cls, settings: HearthSettings | None = None) -> LoaderContext:
        """A context on ``settings`` (default: settings from the environment)."""
        settings = settings or load_settings()
        return cls(settings, SpeechModel(settings.speech), OcrModel(settings.ocr))


class Loader(Protocol):
    """Reads one kind of file into sections of text with provenance."""

    file_type: str

    def load(self, path: Path) -> list[Section]:
        """Sections of the file, in reading order; raises ``LoaderError`` naming the file."""
        ...


_REGISTRY: dict[str, Loader] = {}
_CLASSES: dict[str, type] = {}
_EXTENSIONS: dict[str, str] = {}
_loaded = False


def register(file_type: str, extensions: tuple[str, ...]) -> Callable[[type], type]:
    """Class decorator: register a loader class for a file type and its extensions.

    A class with ``uses_context = True`` is built with a :class:`LoaderContext` by
    :class:`Loaders`; the shared instance :func:`loader_for` returns then builds its own context
    from the environment on first use.
    """

    def deco(cls: type) -> type:
        _CLASSES[file_type] = cls
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


class Loaders:
    """Loaders bound to one :class:`LoaderContext`; the pipeline picks loaders through this."""

    def __init__(self, context: LoaderContext) -> None:
        self.context = context
        self._bound: dict[str, Loader] = {}

    def for_path(self, path: Path) -> Loader:
        """The loader for this file; ``UnsupportedTypeError`` naming the file otherwise."""
        shared = loader_for(path)
        cls = _CLASSES[shared.file_type]
        if not getattr(cls, "uses_context", False):
            return shared
        if shared.file_type not in self._bound:
            self._bound[shared.file_type] = cls(self.context)
        return self._bound[shared.file_type]
