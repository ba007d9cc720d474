"""The Loader Protocol and the registry that picks one by file type (extension and content)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from core.errors import UnsupportedTypeError
from core.types import Section
from ingest.loaders.detect import BINARY_EXTENSIONS, sniff

log = logging.getLogger(__name__)

# Modules that register loaders; imported lazily on first use so heavy libraries stay unloaded.
LOADER_MODULES = (
    "ingest.loaders.text",
    "ingest.loaders.markdown",
    "ingest.loaders.html",
    "ingest.loaders.pdf",
    "ingest.loaders.docx",
    "ingest.loaders.pptx",
    "ingest.loaders.xlsx",
    "ingest.loaders.csv",
    "ingest.loaders.epub",
    "ingest.loaders.eml",
    "ingest.loaders.mbox",
    "ingest.loaders.odt",
    "ingest.loaders.rtf",
    "ingest.loaders.json",
    "ingest.loaders.yaml",
    "ingest.loaders.code",
)


class Loader(Protocol):
    """Reads one kind of file into sections of text with provenance.

    A loader may also set ``library`` (what reads the format) and ``provenance`` (what each
    section records) for ``hearth formats``, and may define ``load_parts(path) -> LoadedFile``
    when the file carries other files (e-mail attachments).
    """

    file_type: str

    def load(self, path: Path) -> list[Section]:
        """Sections of the file, in reading order; raises ``LoaderError`` naming the file."""
        ...


@dataclass(frozen=True)
class Attachment:
    """A file carried inside another (an e-mail attachment): ingested as its own document."""

    name: str
    data: bytes
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadedFile:
    """A file's own sections and the files it carries."""

    sections: list[Section]
    attachments: list[Attachment] = field(default_factory=list)


@dataclass(frozen=True)
class FormatInfo:
    """One supported kind of file, for ``hearth formats``."""

    file_type: str
    loader: str
    library: str
    provenance: str
    extensions: list[str]


_REGISTRY: dict[str, Loader] = {}
_EXTENSIONS: dict[str, str] = {}
_NAMES: dict[str, str] = {}
_loaded = False


def register(
    file_type: str, extensions: tuple[str, ...], names: tuple[str, ...] = ()
) -> Callable[[type], type]:
    """Class decorator: register a loader class for a file type, its extensions and any exact
    file names without a telling extension (``Makefile``)."""

    def deco(cls: type) -> type:
        _REGISTRY[file_type] = cls()
        for ext in extensions:
            _EXTENSIONS.setdefault(ext.lower(), file_type)
        for name in names:
            _NAMES.setdefault(name.lower(), file_type)
        return cls

    return deco


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        for module in LOADER_MODULES:
            importlib.import_module(module)
        _loaded = True


def supported_types() -> dict[str, list[str]]:
    """File type -> extensions (and exact names), for help texts and ``hearth formats``."""
    _ensure_loaded()
    out: dict[str, list[str]] = {}
    for ext, ftype in sorted(_EXTENSIONS.items()):
        out.setdefault(ftype, []).append(ext)
    for name, ftype in sorted(_NAMES.items()):
        out.setdefault(ftype, []).append(name)
    return out


def registered_loaders() -> dict[str, Loader]:
    """File type -> its loader, in registration order."""
    _ensure_loaded()
    return dict(_REGISTRY)


def file_type_of(path: Path) -> str | None:
    """The file type a path's extension (or exact name) maps to, or None."""
    _ensure_loaded()
    return _EXTENSIONS.get(path.suffix.lower()) or _NAMES.get(path.name.lower())


def _unsupported(path: Path, what: str) -> UnsupportedTypeError:
    known = ", ".join(sorted(_EXTENSIONS))
    return UnsupportedTypeError(f"{path.name}: {what}; Hearth reads {known}")


def detect_type(path: Path) -> str:
    """The file type to read ``path`` as, judged by content as well as by name.

    Binary content with a known signature is read by what it is whatever the extension says;
    text behind an extension that claims a binary format is read as the text it is. Content no
    loader reads raises ``UnsupportedTypeError`` saying what the content is.
    """
    claimed = file_type_of(path)
    try:
        found = sniff(path)
    except OSError as exc:
        raise UnsupportedTypeError(f"{path.name}: cannot be read ({exc})") from exc
    suffix = path.suffix.lower() or "(no extension)"
    if found.binary or found.strong:
        actual = _EXTENSIONS.get(found.extension or "")
        if actual is None:
            lie = "" if claimed is None else f", not the {suffix} file its name says"
            raise _unsupported(path, f"the content is {found.description}{lie}")
        if claimed is not None and actual != claimed:
            log.debug(
                "%s: named %s but is %s; read as %s", path.name, suffix, found.description, actual
            )
        return actual
    binary_claim = {_EXTENSIONS.get(ext) for ext in BINARY_EXTENSIONS} - {None}
    if claimed is not None and claimed not in binary_claim:
        return claimed
    actual = _EXTENSIONS.get(found.extension or "") or ("text" if claimed else None)
    if actual is None or actual not in _REGISTRY:
        raise _unsupported(path, f"unsupported file type {suffix} ({found.description})")
    log.debug("%s: named %s but is %s; read as %s", path.name, suffix, found.description, actual)
    return actual


def loader_for(path: Path) -> Loader:
    """The loader for this file (by content and name); ``UnsupportedTypeError`` otherwise."""
    _ensure_loaded()
    return _REGISTRY[detect_type(path)]


def load_file(loader: Loader, path: Path) -> LoadedFile:
    """Sections and carried files of a file: attachments only from loaders with ``load_parts``."""
    parts = getattr(loader, "load_parts", None)
    if parts is not None:
        result: LoadedFile = parts(path)
        return result
    return LoadedFile(loader.load(path))


def formats() -> list[FormatInfo]:
    """Every supported kind of file, in registration order, for ``hearth formats``."""
    kinds = supported_types()
    return [
        FormatInfo(
            file_type=ftype,
            loader=type(loader).__name__,
            library=str(getattr(loader, "library", "-")),
            provenance=str(getattr(loader, "provenance", "-")),
            extensions=kinds.get(ftype, []),
        )
        for ftype, loader in registered_loaders().items()
    ]
