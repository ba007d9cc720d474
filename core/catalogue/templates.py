"""Prompt templates in the catalogue: the named templates (``prompt_templates``, with which
version is active) and their immutable numbered versions (``prompt_template_versions``). What a
version must satisfy (it renders, its hash matches) is ``service.templates``'s; these functions
read and write the rows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.db.templates import PromptTemplate, PromptTemplateVersion


def template_named(s: Session, name: str) -> PromptTemplate | None:
    """The template called ``name`` (its versions oldest first in ``.versions``), or None."""
    return s.scalar(select(PromptTemplate).where(PromptTemplate.name == name))


def templates_by_name(s: Session) -> Sequence[PromptTemplate]:
    """Every template, by name."""
    return s.scalars(select(PromptTemplate).order_by(PromptTemplate.name)).all()


def add_template(s: Session, name: str, active_version: int) -> PromptTemplate:
    """A new template with no version yet (flushed: its id is set)."""
    tpl = PromptTemplate(name=name, active_version=active_version)
    s.add(tpl)
    s.flush()
    return tpl


def add_template_version(
    s: Session,
    tpl: PromptTemplate,
    version: int,
    system: str,
    user: str,
    content_hash: str,
    note: str,
    created_at: datetime | None = None,
) -> PromptTemplateVersion:
    """Version ``version`` of ``tpl`` (``created_at``: now when None); not flushed."""
    extra: dict[str, Any] = {} if created_at is None else {"created_at": created_at}
    row = PromptTemplateVersion(
        template_id=tpl.id,
        version=version,
        system=system,
        user=user,
        content_hash=content_hash,
        note=note,
        **extra,
    )
    s.add(row)
    return row
