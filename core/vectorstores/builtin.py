"""Hearth's own vector stores as a plugin (core/plugins.py): embedded Chroma, a Chroma server
and FAISS, registered through the same hook a third party's store uses."""

from __future__ import annotations

from core.plugins import Register, hookimpl
from core.vectorstores.base import StoreBackend


@hookimpl
def register_vector_stores(register: Register) -> None:
    """``chroma`` (the embedded directory), ``chroma-server`` and ``faiss``."""
    from core.vectorstores import chroma, faiss_store

    register("chroma", StoreBackend(chroma.open_embedded, chroma.resident_estimate))
    register("chroma-server", StoreBackend(chroma.open_server))
    register("faiss", StoreBackend(faiss_store.open_faiss, faiss_store.resident_estimate))
