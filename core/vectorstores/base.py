"""The VectorStore Protocol and the registry that opens the configured stores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from core.filters import Filters
from core.plugins import Registry
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


@dataclass(frozen=True)
class StoreBackend:
    """A vector store backend as a plugin registers it (core/plugins.py, hook
    ``register_vector_stores``): how to open it (settings, dimension) and, for one that lives
    in this process, how many bytes it keeps in RAM once loaded (for the memory plan)."""

    open: StoreFactory
    resident: ResidentEstimate | None = None


#: Vector store backends by name, from every plugin's ``register_vector_stores`` hook.
STORES: Registry[StoreBackend] = Registry(
    "register_vector_stores", "vector store", ("core.vectorstores.builtin",)
)


def store_resident_bytes(settings: HearthSettings) -> dict[str, int]:
    """Bytes each configured store keeps in this process's RAM once loaded, by role (only the
    nonzero ones: a Chroma server's index lives in its own process). For the memory plan."""
    sizes: dict[str, int] = {}
    for role, name in configured_stores(settings).items():
        estimate = STORES.get(name).resident
        if estimate is not None and (size := estimate(settings)):
            sizes[role] = size
    return sizes


def open_store(name: str, settings: HearthSettings, dimension: int) -> VectorStore:
    """Open the store registered as ``name`` (``UnknownBackendError`` naming the known ones)."""
    return STORES.get(name).open(settings, dimension)


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
