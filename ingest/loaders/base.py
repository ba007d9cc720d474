"""The Loader Protocol and the registry that picks one by file type (extension and content)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from core.errors import HearthError, UnsupportedTypeError
from core.ocr import OcrModel
from core.plugins import Registry
from core.settings import HearthSettings, load_settings
from core.speech import SpeechModel
from core.types import Section
from ingest.loaders.detect import BINARY_EXTENSIONS, sniff
from ingest.loaders.encryption import default_password_kind, needs_password

log = logging.getLogger(__name__)
_C = TypeVar("_C", bound=type)

#: The plugin of Hearth's own loaders (core/plugins.py): registered the way a third party's is.
BUILTIN_PLUGINS = ("ingest.loaders.builtin",)


class Loader(Protocol):
    """Reads one kind of file into sections of text with provenance.

    A loader may also set ``library`` (what reads the format) and ``provenance`` (what each
    section records) for ``hearth formats``, and may define ``load_parts(path) -> LoadedFile``
    when the file carries other files (e-mail attachments). ``reader_version`` (an int, 1 when
    absent) is raised by every change to what the loader makes of a file, a shared module's
    (tables, hidden text) included: files it read before are then read again at their next
    ingest or sync although they did not change (ingest/reading.py).
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
        return cls(
            settings, SpeechModel(settings.speech, settings.models_dir), OcrModel(settings.ocr)
        )


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


#: Loader classes by file type, from every plugin's ``register_loaders`` hook: a class names
#: its ``extensions`` (with the dot) and may name ``file_names`` (exact names, ``Makefile``).
LOADERS: Registry[type] = Registry("register_loaders", "file type", BUILTIN_PLUGINS)
#: File types whose password-protected files are encrypted OLE packages.
_OOXML_TYPES = frozenset({"docx", "xlsx", "pptx"})


def handles(
    file_type: str, extensions: tuple[str, ...], names: tuple[str, ...] = ()
) -> Callable[[_C], _C]:
    """Class decorator: a loader class reads ``file_type``, files with these extensions and
    files of these exact names without a telling extension (``Makefile``). It declares; a
    plugin's ``register_loaders`` hook registers the class.

    A class with ``uses_context = True`` is built with a :class:`LoaderContext` by
    :class:`Loaders`; the shared instance :func:`loader_for` returns then builds its own context
    from the environment on first use.
    """

    def deco(cls: _C) -> _C:
        setattr(cls, "file_type", file_type)  # noqa: B010 - a class of any shape
        setattr(cls, "extensions", extensions)  # noqa: B010
        setattr(cls, "file_names", names)  # noqa: B010
        return cls

    return deco


@dataclass
class _Tables:
    """The registered loaders' shared instances and their extension and name maps."""

    loaders: dict[str, Loader]
    extensions: dict[str, str]
    names: dict[str, str]


_tables: _Tables | None = None
_tables_of: dict[str, type] | None = None


def _loaded() -> _Tables:
    global _tables, _tables_of
    classes = dict(LOADERS.items())
    if _tables is None or _tables_of != classes:
        tables = _Tables({}, {}, {})
        for file_type, cls in classes.items():
            tables.loaders[file_type] = cls()
            for ext in getattr(cls, "extensions", ()):
                tables.extensions.setdefault(ext.lower(), file_type)
            for name in getattr(cls, "file_names", ()):
                tables.names.setdefault(name.lower(), file_type)
        _tables, _tables_of = tables, classes
    return _tables


def supported_types() -> dict[str, list[str]]:
    """File type -> extensions (and exact names), for help texts and ``hearth formats``."""
    tables = _loaded()
    out: dict[str, list[str]] = {}
    for ext, ftype in sorted(tables.extensions.items()):
        out.setdefault(ftype, []).append(ext)
    for name, ftype in sorted(tables.names.items()):
        out.setdefault(ftype, []).append(name)
    return out


def registered_loaders() -> dict[str, Loader]:
    """File type -> its loader, in registration order."""
    return dict(_loaded().loaders)


def file_type_of(path: Path) -> str | None:
    """The file type a path's extension (or exact name) maps to, or None."""
    tables = _loaded()
    return tables.extensions.get(path.suffix.lower()) or tables.names.get(path.name.lower())


def _unsupported(path: Path, what: str) -> UnsupportedTypeError:
    return UnsupportedTypeError(f"{path.name}: {what} (`hearth formats` lists what Hearth reads)")


def detect_type(path: Path) -> str:
    """The file type to read ``path`` as, judged by content as well as by name.

    Binary content with a known signature is read by what it is whatever the extension says;
    text behind an extension that claims a binary format is read as the text it is. Content no
    loader reads raises ``UnsupportedTypeError`` saying what the content is.
    """
    claimed = file_type_of(path)
    extensions, loaders = _loaded().extensions, _loaded().loaders
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
        return extensions[inner]
    if found.binary or found.strong:
        actual = extensions.get(found.extension or "")
        if actual is None:
            lie = "" if claimed is None else f", not the {suffix} file its name says"
            raise _unsupported(path, f"the content is {found.description}{lie}")
        if claimed is not None and actual != claimed:
            log.debug(
                "%s: named %s but is %s; read as %s", path.name, suffix, found.description, actual
            )
        return actual
    binary_claim = {extensions.get(ext) for ext in BINARY_EXTENSIONS} - {None}
    if claimed is not None and claimed not in binary_claim:
        return claimed
    actual = extensions.get(found.extension or "") or ("text" if claimed else None)
    if actual is None or actual not in loaders:
        raise _unsupported(path, f"unsupported file type {suffix} ({found.description})")
    log.debug("%s: named %s but is %s; read as %s", path.name, suffix, found.description, actual)
    return actual


def loader_for(path: Path) -> Loader:
    """The loader for this file (by content and name); ``UnsupportedTypeError`` otherwise."""
    return _loaded().loaders[detect_type(path)]


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
        cls = LOADERS.get(shared.file_type)
        if not getattr(cls, "uses_context", False):
            return shared
        if shared.file_type not in self._bound:
            self._bound[shared.file_type] = cls(self.context)
        return self._bound[shared.file_type]
