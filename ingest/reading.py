"""What read a document into its chunks, kept as ``documents.reading`` and compared at ingest.

A file is read again when its content changed *or* when what reads it changed: its loader's
``reader_version`` (a loader class attribute, 1 when absent, raised by every change to what the
loader makes of a file), the chunker's ``VERSION`` or the chunking settings. So a mended loader
mends the libraries read before it, at their next ingest or sync, and nothing else is read
again. A document read before readings were kept (``reading`` None) was read by an older
Hearth whose reading is unknown: it is read again once.

A carrier (an e-mail, a zip) is read again when anything it carries was read otherwise: its
attachments are ingested only through it.
"""

from __future__ import annotations

from ingest.chunker import Chunker
from ingest.loaders.base import LOADERS


def reader_version(file_type: str) -> int:
    """The version of the loader registered for ``file_type`` (1 when it names none)."""
    cls = LOADERS.get(file_type) if file_type in LOADERS else None
    return int(getattr(cls, "reader_version", 1))


class Readings:
    """The current reading of each file type under one chunker."""

    def __init__(self, chunker: Chunker) -> None:
        self.chunker = chunker

    def of(self, file_type: str) -> str:
        """``"pdf/2 chunks/1 200/40"``: the type's reader and its version, then the chunker's
        (:attr:`Chunker.reading`)."""
        return f"{file_type}/{reader_version(file_type)} {self.chunker.reading}"

    def current(
        self,
        file_type: str,
        reading: str | None,
        carried: set[tuple[str, str | None]] | None = None,
    ) -> bool:
        """True when a document of ``file_type`` stored with ``reading``, and each (file type,
        reading) it ``carried`` (``catalogue.carried_readings``), reads as it would now."""
        if reading != self.of(file_type):
            return False
        return all(stored == self.of(kind) for kind, stored in carried or ())
