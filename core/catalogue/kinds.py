"""Document statuses and ledger actions: :class:`enum.StrEnum` members, stored and shown as the
same strings as before ("ingested", "moved-away") and equal to them."""

from __future__ import annotations

from enum import StrEnum


class DocumentStatus(StrEnum):
    """``documents.status``: how a document's last ingest went."""

    PENDING = "pending"
    INGESTED = "ingested"
    EMPTY = "empty"
    FAILED = "failed"


#: A document whose last ingest finished (with or without chunks).
DONE = (DocumentStatus.INGESTED, DocumentStatus.EMPTY)


class Action(StrEnum):
    """``ingest_ledger.action``, and what happened to a file in an ingest, move or removal."""

    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    EMPTY = "empty"
    FAILED = "failed"
    REMOVED = "removed"
    MOVED = "moved"
    MOVED_AWAY = "moved-away"
