"""Catalogues at an older revision, for migration tests: upgrade to a revision, store rows with
SQL valid since 0001 (the models describe head, not the old schema)."""

from __future__ import annotations

from collections.abc import Sequence

from alembic.config import Config
from sqlalchemy import create_engine, text

from alembic import command
from core.db.session import ALEMBIC_DIR


def alembic_config(url: str) -> Config:
    """An Alembic config for ``url`` (``%`` escaped, as ConfigParser needs)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(ALEMBIC_DIR))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade_to(url: str, revision: str) -> None:
    """``alembic upgrade REVISION`` on the catalogue at ``url``."""
    command.upgrade(alembic_config(url), revision)


def store_document(url: str, chunks: Sequence[str], first_id: int = 7) -> None:
    """Document 1 (``/a.txt``) with one chunk per text, ids from ``first_id``, ordinals from 0."""
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO documents (id, path, collection, size_bytes, file_type, status, "
                "chunk_count, created_at, updated_at) VALUES (1, '/a.txt', 'default', 3, 'text', "
                "'ingested', :n, '2026-01-01', '2026-01-01')"
            ),
            {"n": len(chunks)},
        )
        for ordinal, body in enumerate(chunks):
            conn.execute(
                text(
                    "INSERT INTO chunks (id, document_id, ordinal, text, token_count, "
                    "provenance, embedding) VALUES (:i, 1, :o, :t, 1, '{}', :e)"
                ),
                {"i": first_id + ordinal, "o": ordinal, "t": body, "e": b"\x00"},
            )
    engine.dispose()
