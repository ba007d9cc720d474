"""The Loader Protocol and the registry that picks one by file type (extension and content)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from core.errors import HearthError, UnsupportedTypeError
from core.ocr import OcrModel
from core.settings import HearthSettings, load_settings
from core.speech import SpeechModel
from core.types import Section
from ingest.loaders.detect import BINARY_EXTENSIONS, sniff
from ingest.loaders.encryption import default_password_kind, needs_password

log = logging.getLogger(__name__)

# Modules that register loaders; imported lazily on first use so heavy libraries stay unloaded.
LOADER_MODULES = (
    "ingest.loaders.text",
    "ingest.loaders.markdown",
    "ingest.loaders.html",
    "ingest.loaders.pdf",
    "ingest.loaders.docx",
    "ingest.loaders.audio",
    "ingest.loaders.image",
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


class StreamingLoader(Loader, Protocol):
    """A loader that can also read a file piece by piece, for files of any size: the pipeline
    streams a large file through ``stream`` when its loader has one (``TextLoader``)."""

    def stream(self, path: Path) -> Iterator[tuple[Section, int]]:
        """The file's sections in blocks, each with the count of the file's bytes read so far;
        consecutive blocks of equal provenance continue one section. ``LoaderError`` (raised
        as the blocks are read) naming the file."""
        ...


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


class ContextLoader:
    """Base of loaders that need models (Whisper, OCR): built with a :class:`LoaderContext` by
    :class:`Loaders`, or make one from the environment on first use."""

    uses_context = True

    def __init__(self, context: LoaderContext | None = None) -> None:
        self._context = context

    @property
    def context(self) -> LoaderContext:
        """The bound context, or one from the environment on first use."""
        if self._context is None:
            self._context = LoaderContext.create()
        return self._context


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


#: What reading one file may raise that fails that file alone (the batch goes on). A loader's
#: library that is not installed (ImportError) is one too: that kind of file cannot be read.
READ_ERRORS = (HearthError, OSError, MemoryError, RecursionError, UnicodeError, ImportError)


def failure_reason(name: str, exc: BaseException) -> str:
    """Why the file ``name`` failed, for one of ``READ_ERRORS``: a ``HearthError``'s message
    (it names the file), the library to install for an ``ImportError``, else the error."""
    if isinstance(exc, HearthError):
        return exc.message
    if isinstance(exc, ImportError):
        module = exc.name or str(exc)
        return (
            f"{name}: cannot be read here: it needs the Python package {module!r}, which is "
            f"not installed ({exc}); install it into Hearth's environment and add the file again"
        )
    return f"{name}: {exc}"


_REGISTRY: dict[str, Loader] = {}
_EXTENSIONS: dict[str, str] = {}
_NAMES: dict[str, str] = {}
_CLASSES: dict[str, type] = {}
_loaded = False
#: File types whose password-protected files are encrypted OLE packages.
_OOXML_TYPES = frozenset({"docx", "xlsx", "pptx"})


def register(
    file_type: str, extensions: tuple[str, ...], names: tuple[str, ...] = ()
) -> Callable[[type], type]:
    """Class decorator: register a loader class for a file type, its extensions and any exact
    file names without a telling extension (``Makefile``).

    A class with ``uses_context = True`` is built with a :class:`LoaderContext` by
    :class:`Loaders`; the shared instance :func:`loader_for` returns then builds its own context
    from the environment on first use.
    """

    def deco(cls: type) -> type:
        _CLASSES[file_type] = cls
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
    return UnsupportedTypeError(f"{path.name}: {what} (`hearth formats` lists what Hearth reads)")


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
    if found.encrypted:  # read by the OOXML loader its name or decrypted content says
        if claimed in _OOXML_TYPES:
            return claimed
        inner = default_password_kind(path)
        if inner is None:
            raise needs_password(path, "an encrypted Office document")
        return _EXTENSIONS[inner]
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


class Loaders:
    """Loaders bound to one :class:`LoaderContext`; the pipeline picks loaders through this."""

    def __init__(self, context: LoaderContext) -> None:
        self.context = context
        self._bound: dict[str, Loader] = {}

    def for_path(self, path: Path) -> Loader:
        """The loader for this file (by content and name); ``UnsupportedTypeError`` otherwise."""
        shared = loader_for(path)
        cls = _CLASSES[shared.file_type]
        if not getattr(cls, "uses_context", False):
            return shared
        if shared.file_type not in self._bound:
            self._bound[shared.file_type] = cls(self.context)
        return self._bound[shared.file_type]
