"""keyword index in the catalogue: chunks carry their document's title; SQLite FTS5 tables
(porter-stemmed words, and trigrams for CJK text) or a Postgres tsvector + GIN index, kept in
step with the chunk rows by the database itself (triggers / a generated column), so they are
written in the same transaction as the chunks by construction.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

# Chunks holding Hiragana/Katakana, CJK ideographs (with extension A) or Hangul syllables.
CJK_GLOB = "'*[぀-ヿ㐀-䶿一-鿿가-힯]*'"

SQLITE_DDL = [
    # External content: the words index reads title and text from `chunks` itself (no copy).
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(title, text, content='chunks', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE chunks_cjk USING fts5(title, text, content='chunks', "
    "content_rowid='id', tokenize='trigram')",
    "CREATE TRIGGER chunks_fts_ai AFTER INSERT ON chunks BEGIN "
    "INSERT INTO chunks_fts(rowid, title, text) VALUES (new.id, new.title, new.text); END",
    "CREATE TRIGGER chunks_fts_ad AFTER DELETE ON chunks BEGIN "
    "INSERT INTO chunks_fts(chunks_fts, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); END",
    "CREATE TRIGGER chunks_fts_au AFTER UPDATE OF title, text ON chunks BEGIN "
    "INSERT INTO chunks_fts(chunks_fts, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); "
    "INSERT INTO chunks_fts(rowid, title, text) VALUES (new.id, new.title, new.text); END",
    # Only chunks with CJK characters enter the trigram index (the same test on insert and
    # delete: a row's text decides both).
    f"CREATE TRIGGER chunks_cjk_ai AFTER INSERT ON chunks WHEN new.text GLOB {CJK_GLOB} "
    "OR new.title GLOB " + CJK_GLOB + " BEGIN "
    "INSERT INTO chunks_cjk(rowid, title, text) VALUES (new.id, new.title, new.text); END",
    f"CREATE TRIGGER chunks_cjk_ad AFTER DELETE ON chunks WHEN old.text GLOB {CJK_GLOB} "
    "OR old.title GLOB " + CJK_GLOB + " BEGIN "
    "INSERT INTO chunks_cjk(chunks_cjk, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); END",
    f"CREATE TRIGGER chunks_cjk_aud AFTER UPDATE OF title, text ON chunks "
    f"WHEN old.text GLOB {CJK_GLOB} OR old.title GLOB {CJK_GLOB} BEGIN "
    "INSERT INTO chunks_cjk(chunks_cjk, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); END",
    f"CREATE TRIGGER chunks_cjk_aui AFTER UPDATE OF title, text ON chunks "
    f"WHEN new.text GLOB {CJK_GLOB} OR new.title GLOB {CJK_GLOB} BEGIN "
    "INSERT INTO chunks_cjk(rowid, title, text) VALUES (new.id, new.title, new.text); END",
]

SQLITE_BUILD = [
    "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')",
    "INSERT INTO chunks_cjk(rowid, title, text) SELECT id, title, text FROM chunks "
    f"WHERE text GLOB {CJK_GLOB} OR title GLOB {CJK_GLOB}",
]

POSTGRES_DDL = [
    "ALTER TABLE chunks ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ("
    "setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || "
    "to_tsvector('english'::regconfig, text)) STORED",
    "CREATE INDEX ix_chunks_search_vector ON chunks USING gin (search_vector)",
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX ix_chunks_text_trgm ON chunks USING gin (text gin_trgm_ops)",
]


def _first_line_titles() -> None:
    """Existing documents get the first line of their first chunk as title (what ingest now
    does for new files; see ingest/titles.py)."""
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT document_id, text FROM chunks WHERE ordinal = 0")).all()
    updates = []
    for doc_id, text in rows:
        line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
        if line and len(line) <= 200:
            updates.append({"d": doc_id, "t": line})
    if updates:
        conn.execute(sa.text("UPDATE chunks SET title = :t WHERE document_id = :d"), updates)


def upgrade() -> None:
    with op.batch_alter_table('chunks') as batch:
        batch.add_column(sa.Column('title', sa.Text(), nullable=False, server_default=''))
    _first_line_titles()
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for stmt in SQLITE_DDL + SQLITE_BUILD:
            op.execute(stmt)
    elif dialect == 'postgresql':
        for stmt in POSTGRES_DDL:
            op.execute(stmt)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for name in ('chunks_fts_ai', 'chunks_fts_ad', 'chunks_fts_au', 'chunks_cjk_ai',
                     'chunks_cjk_ad', 'chunks_cjk_aud', 'chunks_cjk_aui'):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        op.execute("DROP TABLE IF EXISTS chunks_fts")
        op.execute("DROP TABLE IF EXISTS chunks_cjk")
    elif dialect == 'postgresql':
        op.execute("DROP INDEX IF EXISTS ix_chunks_text_trgm")
        op.execute("DROP INDEX IF EXISTS ix_chunks_search_vector")
        op.execute("ALTER TABLE chunks DROP COLUMN search_vector")
    with op.batch_alter_table('chunks') as batch:
        batch.drop_column('title')
