"""Names people give the speakers of a recording, one row per named speaker (migration 0008)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models import Base, UTCDateTime, utcnow

#: The longest name a speaker can be given (characters).
MAX_NAME = 80


class SpeakerName(Base):
    """Speaker ``speaker`` (numbered from 1 in order of first speech) of document
    ``document_id`` is called ``name``; deleted with its document."""

    __tablename__ = "speaker_names"

    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True
    )
    speaker: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME), nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)
