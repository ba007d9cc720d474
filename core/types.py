"""Plain data types passed between ingest, the stores and the service."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Section:
    """A span of a file's text with where it came from (page, heading, time range, box)."""

    text: str
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before it has an id: text, token count, ordinal and provenance."""

    ordinal: int
    text: str
    token_count: int
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with its score (higher is better)."""

    chunk_id: int
    score: float
