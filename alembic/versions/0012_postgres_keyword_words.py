"""Postgres keyword index: words cut at every ASCII punctuation mark, as SQLite's index and
the question's terms are

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07

Postgres's text-search parser keeps some runs whole that SQLite's ``unicode61`` tokenizer and
``core.keywords.base.query_terms`` cut into words, and signs a number after a hyphen: "MAR-2011"
was indexed 'mar' and '-2011', "1991-92" '1991' and '-92', "10.8", "alice@example.com",
"www.example.org" and "report.pdf" each one token, so a question's "2011", "92", "alice" or
"report" did not find them there (the scaled pass of 2026-12-07: a wide CSV's "MAR-2011" row).
``search_vector`` now reads title and text with ASCII punctuation turned into spaces (an
explicit range, not ``[:punct:]``, whose meaning follows the database's locale). SQLite is
unchanged. Postgres 15 cannot change a generated column's expression, so the column and its
GIN index are dropped and made again: the table is rewritten once (minutes at a million
chunks). Downgrade restores 0005's column.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import op


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

#: ASCII punctuation (!"#$%&'()*+,-./ :;<=>?@ [\]^_` {|}~) as one regular-expression class.
_PUNCT = r"'[!-/:-@\[-`{-~]+'"


def _words(column: str) -> str:
    return f"regexp_replace(coalesce({column}, ''), {_PUNCT}, ' ', 'g')"


POSTGRES_DDL = [
    "DROP INDEX IF EXISTS ix_chunks_search_vector",
    "ALTER TABLE chunks DROP COLUMN IF EXISTS search_vector",
    "ALTER TABLE chunks ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ("
    f"setweight(to_tsvector('english'::regconfig, {_words('title')}), 'A') || "
    f"to_tsvector('english'::regconfig, {_words('text')})) STORED",
    "CREATE INDEX ix_chunks_search_vector ON chunks USING gin (search_vector)",
]


def _column_0005() -> list[str]:
    """0005's own statements making the column and its index (for the downgrade)."""
    path = Path(__file__).with_name('0005_keyword_index.py')
    spec = importlib.util.spec_from_file_location('hearth_migration_0005', path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [stmt for stmt in module.POSTGRES_DDL if 'search_vector' in stmt]


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for stmt in POSTGRES_DDL:
            op.execute(stmt)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for stmt in POSTGRES_DDL[:2] + _column_0005():
            op.execute(stmt)
