"""Alembic environment: migrates the connection Hearth hands over, or the configured database."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine

import core.db  # noqa: F401 - every model registers on Base.metadata
from alembic import context
from core.db.models import Base
from core.keywords.base import include_object

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from core.settings import load_settings

    return load_settings().sqlalchemy_url


def _migrate(**target: Any) -> None:
    """Run the migrations on ``target`` (``connection=`` or, offline, ``url=``)."""
    context.configure(
        target_metadata=target_metadata,
        render_as_batch=True,
        include_object=include_object,
        **target,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    _migrate(url=_url(), literal_binds=True)


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _migrate(connection=connection)
        return
    engine = create_engine(_url())
    with engine.begin() as conn:
        _migrate(connection=conn)
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
