"""The VectorStore Protocol and the registry that opens the configured stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from core.filters import Filters
from core.types import Hit

if TYPE_CHECKING:
    from core.settings import HearthSettings


class VectorStore(Protocol):
    """A store of unit vectors keyed by integer chunk ids."""

    name: str

    def add(self, ids: list[int], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
        """Insert or replace vectors under ``ids``; each metadata holds ``document_id``,
        ``collection`` and ``file_type`` (what :class:`Filters` filters on)."""
        ...

    def delete(self, ids: list[int]) -> None:
        """Remove these ids (missing ones are ignored)."""
        ...

    def ids(self) -> set[int]:
        """Every id the store holds."""
        ...

    def count(self) -> int:
        """How many ids the store holds (without reading them)."""
        ...

    def query(self, vector: np.ndarray, k: int, filters: Filters | None = None) -> list[Hit]:
        """The ``k`` nearest ids by cosine similarity among those passing ``filters`` (each
        store translates them itself from the metadata given to :meth:`add`), best first."""
        ...

    def persist(self) -> None:
        """Make every change durable."""
        ...

    def refresh(self) -> None:
        """Pick up what another process saved (a no-op for stores that are always current)."""
        ...


StoreFactory = Callable[["HearthSettings", int], VectorStore]
ResidentEstimate = Callable[["HearthSettings"], int]
_REGISTRY: dict[str, StoreFactory] = {}
_RESIDENT: dict[str, ResidentEstimate] = {}


def register_store(name: str) -> Callable[[StoreFactory], StoreFactory]:
    """Register a vector store factory under a settings name."""

    def deco(factory: StoreFactory) -> StoreFactory:
        _REGISTRY[name] = factory
        return factory

    return deco


def register_resident_estimate(name: str) -> Callable[[ResidentEstimate], ResidentEstimate]:
    """Register how many bytes the store ``name`` keeps in this process's RAM once loaded."""

    def deco(estimate: ResidentEstimate) -> ResidentEstimate:
        _RESIDENT[name] = estimate
        return estimate

    return deco


def resident_estimates(settings: HearthSettings) -> dict[str, int]:
    """Bytes each configured store keeps in this process's RAM once loaded, by role (only the
    nonzero ones: a Chroma server's index lives in its own process). For the memory plan."""
    from core.vectorstores import chroma, faiss_store  # noqa: F401 - registers the backends

    sizes = {
        role: _RESIDENT[name](settings)
        for role, name in configured_stores(settings).items()
        if name in _RESIDENT
    }
    return {role: size for role, size in sizes.items() if size}


def open_store(name: str, settings: HearthSettings, dimension: int) -> VectorStore:
    """Open the store registered as ``name``."""
    from core.vectorstores import chroma, faiss_store  # noqa: F401 - registers the backends

    return _REGISTRY[name](settings, dimension)


def configured_stores(settings: HearthSettings) -> dict[str, str]:
    """Role -> registry name of every store the settings ask for.

    The role ``chroma`` is the embedded directory or the Chroma server (``chroma.mode``); the
    role ``faiss`` exists unless ``retrieval.faiss`` is off.
    """
    roles = {"chroma": "chroma-server" if settings.chroma.mode == "server" else "chroma"}
    if settings.retrieval.faiss:
        roles["faiss"] = "faiss"
    return roles


def open_vector_stores(settings: HearthSettings, dimension: int) -> dict[str, VectorStore]:
    """Every store the catalogue is mirrored into, by role (Chroma and, unless off, FAISS)."""
    return {
        role: open_store(name, settings, dimension)
        for role, name in configured_stores(settings).items()
    }


def normalise(vector: np.ndarray) -> np.ndarray:
    """A 2-D float32 copy of ``vector``."""
    return np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(1, -1))
