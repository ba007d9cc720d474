"""mend the keyword index: build 0005's title column and keyword index where they are missing

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

On 2026-11-30 main briefly had 0006 following 0004; 0005 (the keyword index) was then put
before it. A catalogue migrated to 0006 in that hour never got 0005's `chunks.title`, FTS5
tables and triggers (SQLite) or `search_vector` column (Postgres), and keyword search on it
failed with "no such table: chunks_fts". This revision builds whatever of 0005 is missing, with
0005's own statements, and does nothing on a catalogue that has it all. Downgrade does nothing:
0005's downgrade removes the index.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def _revision_0005() -> ModuleType:
    path = Path(__file__).with_name('0005_keyword_index.py')
    spec = importlib.util.spec_from_file_location('hearth_migration_0005', path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    columns = {c['name'] for c in inspector.get_columns('chunks')}
    m0005 = _revision_0005()
    if 'title' not in columns:
        with op.batch_alter_table('chunks') as batch:
            batch.add_column(sa.Column('title', sa.Text(), nullable=False, server_default=''))
        m0005._first_line_titles()
    if bind.dialect.name == 'sqlite':
        tables = set(inspector.get_table_names())
        if 'chunks_fts' not in tables or 'chunks_cjk' not in tables:
            for name in ('chunks_fts_ai', 'chunks_fts_ad', 'chunks_fts_au', 'chunks_cjk_ai',
                         'chunks_cjk_ad', 'chunks_cjk_aud', 'chunks_cjk_aui'):
                op.execute(f"DROP TRIGGER IF EXISTS {name}")
            op.execute("DROP TABLE IF EXISTS chunks_fts")
            op.execute("DROP TABLE IF EXISTS chunks_cjk")
            for stmt in m0005.SQLITE_DDL + m0005.SQLITE_BUILD:
                op.execute(stmt)
    elif bind.dialect.name == 'postgresql' and 'search_vector' not in columns:
        for stmt in m0005.POSTGRES_DDL:
            op.execute(stmt.replace('CREATE INDEX ', 'CREATE INDEX IF NOT EXISTS '))


def downgrade() -> None:
    pass
