"""Which chunks a question may see, independent of any store's query syntax."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Filters:
    """Chunks of one collection, of some documents, of some file types (all optional, ANDed).

    Each index translates this itself: the vector stores (Chroma ``where``, FAISS id selector)
    and the keyword index (SQL on the catalogue), so no question ever lists allowed chunk ids.
    """

    collection: str | None = None
    document_ids: tuple[int, ...] = ()
    file_types: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """True when anything is filtered."""
        return bool(self.collection or self.document_ids or self.file_types)

    def admits(self, document_id: int, collection: str, file_type: str) -> bool:
        """True when a chunk with this metadata passes the filter."""
        if self.collection and collection != self.collection:
            return False
        if self.document_ids and document_id not in self.document_ids:
            return False
        return not (self.file_types and file_type not in self.file_types)
