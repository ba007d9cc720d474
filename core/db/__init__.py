"""The SQL catalogue: ORM models, engine and migrations."""

from core.db.models import Base, Chunk, Document, LedgerEntry
from core.db.session import Database

__all__ = ["Base", "Chunk", "Database", "Document", "LedgerEntry"]
