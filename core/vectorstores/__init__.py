"""Vector stores keyed by chunk id: a Protocol and a registry of backends."""

from core.vectorstores.base import VectorStore, open_vector_stores

__all__ = ["VectorStore", "open_vector_stores"]
