"""Why a document's original cannot be shown (mapped to 409 / 410 in ``service/errors.py``)."""

from __future__ import annotations

from core.errors import ConflictError, HearthError


class OriginalChangedError(ConflictError):
    """The file on disk is not the version that was ingested (its size or sha256 differs)."""


class OriginalGoneError(HearthError):
    """The file that was ingested is no longer on disk."""
