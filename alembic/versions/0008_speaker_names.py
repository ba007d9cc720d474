"""speaker_names: the names people give the speakers of a recording ("Speaker 2 is Maria")

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02

One row per named speaker of a document (issue 32). The names lived in DATA_DIR/speakers.json,
which a backup did not carry and several hosts on one Postgres catalogue would not share; that
file is imported once by ingest/speakers/names.py (it needs the data directory, which a
migration does not know). A name goes with its document (ON DELETE CASCADE); a re-ingest of the
same file keeps the document row, so it keeps the names.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'speaker_names',
        sa.Column('document_id', sa.Integer(), nullable=False),
        sa.Column('speaker', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('document_id', 'speaker'),
    )


def downgrade() -> None:
    op.drop_table('speaker_names')
