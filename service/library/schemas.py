"""Response types of the document routes (they feed the OpenAPI document)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class DocumentOut:
    """A document in the catalogue."""

    id: int
    path: str
    collection: str
    file_type: str
    status: str
    error: str | None
    chunk_count: int
    size_bytes: int
    sha256: str | None
