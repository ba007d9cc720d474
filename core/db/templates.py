"""Prompt templates with immutable, numbered versions; one version is active per template."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from core.db.models import Base, UTCDateTime, utcnow


class PromptTemplate(Base):
    """A named template (qa, summarize, ...) and which of its versions is active."""

    __tablename__ = "prompt_templates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True, nullable=False)
    active_version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    versions: Mapped[list[PromptTemplateVersion]] = relationship(
        back_populates="template", order_by="PromptTemplateVersion.version"
    )


class PromptTemplateVersion(Base):
    """One immutable version: its text (system and user parts), content hash and note."""

    __tablename__ = "prompt_template_versions"
    __table_args__ = (
        Index(
            "ix_prompt_template_versions_template_version", "template_id", "version", unique=True
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("prompt_templates.id"), nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    system: Mapped[str] = mapped_column(Text, nullable=False)
    user: Mapped[str] = mapped_column(Text, nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    note: Mapped[str] = mapped_column(Text, nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    template: Mapped[PromptTemplate] = relationship(back_populates="versions")
