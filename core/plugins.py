"""One way to register a backend of any kind: Hearth's own and a third party's alike.

In the style of simonw/llm's plugin manager (``llm/plugins.py``, ``llm/hookspecs.py``): one
pluggy ``PluginManager`` named ``hearth`` with one hook per kind of backend. A plugin is a module
(or any object) with ``@hookimpl`` functions; each hook is called with ``register``, a callable
``register(name, backend)``. Every kind keeps its backends in a :class:`Registry`, which on first
use registers the kind's built-in plugin modules (its ``builtins``) into the manager, exactly as
the manager registers a third party's, then calls the kind's hook once. A third-party package
is found through the ``hearth`` entry-point group::

    [project.entry-points.hearth]
    my_backends = "my_package.hearth_plugin"   # a module with @hookimpl functions

Kinds (hook: what ``register`` takes; the settings value that picks one):

- ``register_loaders``: file type, a loader class with ``extensions`` (and ``file_names``) —
  ingest/loaders/base.py; picked by a file's type.
- ``register_vector_stores``: a store name, a :class:`~core.vectorstores.base.StoreBackend` —
  core/vectorstores/base.py; ``chroma.mode`` and ``retrieval.faiss``.
- ``register_keyword_indexes``: a SQLAlchemy dialect name, an index factory —
  core/keywords/base.py; picked by the catalogue's database.
- ``register_voices``: a ``tts.backend`` name, a synthesizer factory — core/tts.py.
- ``register_llm_runtimes``: an ``llm.backend`` name, a runtime factory —
  service/llm/runtimes/__init__.py.

An unknown name is refused by :meth:`Registry.get` with :class:`UnknownBackendError`, naming the
setting, the value and every known name.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import pluggy

from core.errors import ConfigError

#: The entry-point group third-party plugins are found under.
ENTRY_POINT_GROUP = "hearth"

hookspec = pluggy.HookspecMarker("hearth")
hookimpl = pluggy.HookimplMarker("hearth")

T = TypeVar("T")
Register = Callable[[str, Any], None]


class Hooks:
    """The hook specifications: one per kind of backend, each called with ``register``."""

    @hookspec
    def register_loaders(self, register: Register) -> None:
        """``register(file_type, loader_class)``; the class names its ``extensions``."""

    @hookspec
    def register_vector_stores(self, register: Register) -> None:
        """``register(name, StoreBackend(open, resident))``."""

    @hookspec
    def register_keyword_indexes(self, register: Register) -> None:
        """``register(dialect, factory(db, max_postings) -> KeywordIndex)``."""

    @hookspec
    def register_voices(self, register: Register) -> None:
        """``register(name, factory(TtsSettings) -> Synthesizer)``."""

    @hookspec
    def register_llm_runtimes(self, register: Register) -> None:
        """``register(name, factory(HearthSettings, ModelConfig) -> LLMRuntime)``."""


class UnknownBackendError(ConfigError):
    """A settings value names no registered backend of its kind."""


_lock = threading.RLock()
_manager: pluggy.PluginManager | None = None


def plugin_manager() -> pluggy.PluginManager:
    """The process's one plugin manager; third-party plugins are loaded from the ``hearth``
    entry-point group the first time it is asked for."""
    global _manager
    with _lock:
        if _manager is None:
            manager = pluggy.PluginManager("hearth")
            manager.add_hookspecs(Hooks)
            manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
            _manager = manager
        return _manager


def register_plugin(plugin: object, name: str | None = None) -> None:
    """Register a plugin object or module (what an entry point names) with the manager, unless
    it is registered already. Kinds already built do not see it: see :func:`reset`."""
    manager = plugin_manager()
    with _lock:
        if not manager.is_registered(plugin) and (name is None or manager.get_plugin(name) is None):
            manager.register(plugin, name)


def reset() -> None:
    """Forget the manager and every kind's backends; the next use loads them again (tests)."""
    global _manager
    with _lock:
        _manager = None
        for registry in _registries:
            registry.clear()


_registries: list[Registry[Any]] = []


class Registry(Generic[T]):
    """The backends of one kind, by name, filled by the kind's hook on first use.

    ``hook``: the hook's name in :class:`Hooks`; ``setting``: what users set to pick one (for
    error messages); ``builtins``: modules (names) of Hearth's own plugins for this kind, imported
    lazily so their heavy libraries stay unloaded until a backend of the kind is needed.
    """

    def __init__(self, hook: str, setting: str, builtins: tuple[str, ...]) -> None:
        self.hook = hook
        self.setting = setting
        self.builtins = builtins
        self._items: dict[str, T] | None = None
        _registries.append(self)

    def clear(self) -> None:
        """Forget the backends; the next use calls the hook again."""
        with _lock:
            self._items = None

    def _loaded(self) -> dict[str, T]:
        with _lock:
            if self._items is None:
                for module in self.builtins:
                    register_plugin(importlib.import_module(module), module)
                items: dict[str, T] = {}

                def add(name: str, backend: T) -> None:
                    items.setdefault(name, backend)  # a name taken already is kept

                getattr(plugin_manager().hook, self.hook)(register=add)
                self._items = items
            return self._items

    def get(self, name: str) -> T:
        """The backend registered as ``name``; ``UnknownBackendError`` naming the setting, the
        value and every known name otherwise."""
        items = self._loaded()
        if name not in items:
            known = ", ".join(sorted(items)) or "none"
            raise UnknownBackendError(
                f"{self.setting} {name!r} is not a known backend: one of {known}"
            )
        return items[name]

    def names(self) -> list[str]:
        """Every registered name, in the order the hook gave them (pluggy calls the plugin
        registered last first; within one plugin, in its order)."""
        return list(self._loaded())

    def items(self) -> Iterator[tuple[str, T]]:
        """(name, backend) pairs, in registration order."""
        return iter(list(self._loaded().items()))

    def __contains__(self, name: object) -> bool:
        return name in self._loaded()
