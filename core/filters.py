"""Which chunks a question may see, independent of any store's query syntax."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Filters:
    """Chunks of one collection, of some documents, of some file types, of some speakers of
    recordings (all optional, ANDed).

    Each index translates this itself: the vector stores (Chroma ``where``, FAISS id selector)
    and the keyword index (SQL on the catalogue), so no question ever lists allowed chunk ids.
    ``speakers`` (names given to speakers, or ``Speaker N`` labels) is applied by retrieval
    alone, over the catalogue's turns of those speakers (service/answering/retrieval).
    """

    collection: str | None = None
    document_ids: tuple[int, ...] = ()
    file_types: tuple[str, ...] = ()
    speakers: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """True when anything is filtered."""
        return bool(self.collection or self.document_ids or self.file_types or self.speakers)
