"""SQLAlchemy 2 models of the catalogue. The catalogue is the source of truth for every store."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator


def utcnow() -> datetime:
    """Timezone-aware now, for column defaults."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC that reads back timezone-aware on every database (SQLite drops
    the zone, so its values came back naive and the API sent them without an offset)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    """Declarative base of every catalogue table."""


class Document(Base):
    """A file Hearth knows: where it is, its content hash, and how its ingest went."""

    __tablename__ = "documents"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    path: Mapped[str] = mapped_column(String(4096), unique=True, nullable=False)
    collection: Mapped[str] = mapped_column(String(200), nullable=False, default="default")
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    size_bytes: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    file_type: Mapped[str] = mapped_column(String(32), nullable=False, default="")
    # One of core.catalogue.DocumentStatus (set by every writer: core/catalogue/).
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    chunk_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)
    ingested_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # What read the file into its chunks ("pdf/2 chunks/1 200/40": ingest/reading.py); a file
    # whose reading is not the current one is read again although its content is unchanged.
    # None: read before migration 0013, by a reader whose version is not known.
    reading: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # A file carried inside another (an e-mail attachment) links to the document that carries it;
    # removing or re-ingesting the carrier removes it too.
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE", name="fk_documents_parent_id"),
        nullable=True,
        index=True,
    )

    chunks: Mapped[list[Chunk]] = relationship(
        back_populates="document", cascade="all, delete-orphan", passive_deletes=True
    )


class Chunk(Base):
    """A piece of a document's text with its provenance and embedding; its id keys every store."""

    __tablename__ = "chunks"
    # AUTOINCREMENT: a deleted chunk's id is never reused, so a store holding a stale id after a
    # crash can never be mistaken for holding the new chunk with that id.
    __table_args__ = (
        Index("ix_chunks_document_ordinal", "document_id", "ordinal", unique=True),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), nullable=False
    )
    ordinal: Mapped[int] = mapped_column(Integer, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    # The document's title, carried by every chunk for both arms (a chunk far from the heading
    # keeps its subject); the keyword index reads title and text (migration 0005).
    title: Mapped[str] = mapped_column(Text, nullable=False, default="", server_default="")
    token_count: Mapped[int] = mapped_column(Integer, nullable=False)
    provenance: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    embedding: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)

    document: Mapped[Document] = relationship(back_populates="chunks")


class LedgerEntry(Base):
    """One line per file per ingest attempt: what was decided and why."""

    __tablename__ = "ingest_ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    path: Mapped[str] = mapped_column(String(4096), nullable=False, index=True)
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    action: Mapped[str] = mapped_column(String(16), nullable=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    chunk_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    duration_ms: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
