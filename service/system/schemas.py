"""Response types of the system routes (they feed the OpenAPI document)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Health:
    """Liveness and readiness."""

    status: str
    model: str
    documents: int
    chunks: int
