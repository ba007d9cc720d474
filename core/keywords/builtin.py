"""Hearth's own keyword indexes as a plugin (core/plugins.py): SQLite FTS5 and Postgres
full-text, registered through the same hook a third party's index uses."""

from __future__ import annotations

from core.plugins import Register, hookimpl


@hookimpl
def register_keyword_indexes(register: Register) -> None:
    """``sqlite`` (FTS5) and ``postgresql`` (tsvector + GIN, pg_trgm)."""
    from core.keywords.postgres_fts import PostgresKeywordIndex
    from core.keywords.sqlite_fts import SqliteKeywordIndex

    register("sqlite", SqliteKeywordIndex)
    register("postgresql", PostgresKeywordIndex)
